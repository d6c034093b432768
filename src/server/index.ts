// The HTTP server's public face: configuration, the platform key, building a server for
// tests or embedding, and running one with signal handling.

export { loadConfig, defaultPublicUrl, LOG_LEVELS } from './config.js';
export type { ServerConfig, ConfigFlags, Env, LogLevel, TrustProxy } from './config.js';
export { resolvePlatformKey, generatePlatformKey, keysMatch } from './platformKey.js';
export type { PlatformKey } from './platformKey.js';
export { resolveSecretKey, SECRET_KEY_FILE } from './secretKey.js';
export type { SecretKey } from './secretKey.js';
export { createServer, DEFAULT_BODY_LIMIT } from './server.js';
export type { ServerOptions, LogDestination } from './server.js';
export { startServer, SHUTDOWN_GRACE_MS } from './start.js';
export type { RunningServer, StartOptions } from './start.js';
export { handleGraphQLOverHttp } from './graphqlOverHttp.js';
export type { GraphQLHttpRequest, GraphQLHttpResponse } from './graphqlOverHttp.js';
export { ADMIN_PATH } from './routes/adminGraphql.js';
