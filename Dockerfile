# syntax=docker/dockerfile:1
# The Tessera server image: `docker build -t tessera .`, then see docs/deploy.md.
# Two stages: the first installs every dependency and builds dist/ (server, CLI, console); the
# second carries only what runs — production dependencies, dist/, bin/ and examples/ — on the
# slim Node.js 20 image, as the unprivileged `node` user.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    TESSERA_HOST=0.0.0.0 \
    TESSERA_PORT=4000 \
    TESSERA_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY examples ./examples
# The data directory holds the embedded store and a generated platform key: owned by `node`.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 4000
# Ready means the store answers (GET /readyz); Node's own fetch, so the image needs no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.TESSERA_PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "bin/tessera.js"]
CMD ["serve"]
