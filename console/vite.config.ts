// Builds the web console into dist/console, served by the server at /console
// (src/server/routes/console.ts). JSX is compiled by Vite's own esbuild step.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { defineConfig } from 'vite';
import type { Plugin } from 'vite';

/** Writes a .gz copy of each large text asset, which the server sends to clients accepting gzip. */
function gzipCopies(): Plugin {
  return {
    name: 'tessera-gzip-copies',
    apply: 'build',
    // After writing, when every plugin has finished changing the code.
    writeBundle(options, bundle) {
      const dir = options.dir ?? '';
      for (const [name, output] of Object.entries(bundle)) {
        if (!/\.(js|css|html|svg|json|ttf)$/.test(name)) continue;
        const source = output.type === 'chunk' ? output.code : output.source;
        if (source.length < 1024) continue;
        writeFileSync(join(dir, `${name}.gz`), gzipSync(source, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  esbuild: { jsx: 'automatic' },
  worker: { format: 'es' },
  plugins: [gzipCopies()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // Monaco (the editor GraphiQL and the schema page share) is one large chunk by nature.
    chunkSizeWarningLimit: 5000,
    reportCompressedSize: false,
    rollupOptions: {
      onwarn(warning, warn) {
        // framer-motion (through GraphiQL) marks its modules "use client", a hint for React
        // server bundlers that means nothing in a browser bundle.
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  // `npm run console:dev`: the console with hot reload, talking to a server on port 4000.
  server: {
    proxy: {
      '/admin/graphql': 'http://127.0.0.1:4000',
      '/graphql': { target: 'http://127.0.0.1:4000', ws: true },
      '/files': 'http://127.0.0.1:4000',
    },
  },
});
