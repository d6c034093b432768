// The graphql stage's public face: the GraphQL schema of one app built from its model, a
// cache of those schemas per app version, and the custom scalars they use.

export { buildAppSchema } from './buildAppSchema.js';
export { SCHEMA_CACHE_SIZE, appSchema } from './schemaCache.js';
export { printApiSchema } from './print.js';
export { DateTimeScalar, JSONScalar, TextScalar, parseDateTimeInput } from './scalars.js';
export { roleOf } from './roles.js';
export { UploadScalar, UploadedBlob, isUploadedBlob } from './upload.js';
export type { FieldRole, RoleKind } from './roles.js';
