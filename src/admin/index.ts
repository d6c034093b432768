// The management API's public face: the service contract, its GraphQL schema and the
// per-request context the schema's resolvers use.

export type { AddOidcProviderInput, AdminService, CreateFunctionInput, DeliveryStatusView, DeliveryView, FunctionHeaderInput, FunctionView, UpdateFunctionInput, AppDetail, AppSummary, ClusterSummary, LoggedOperationView, MailTester, MigrateResult, OidcProviderView, PlanStepView, TrafficMinuteView, TrafficSource, TwoFactorView } from './types.js';
export { MAX_LOGGED_OPERATIONS, MAX_TRAFFIC_MINUTES, MAX_TWO_FACTOR_USERS } from './resolvers.js';
export { createAdminSchema } from './schema.js';
export { createAdminContext } from './context.js';
export type { AdminContext } from './context.js';
export { ADMIN_SDL } from './sdl.js';

export type { AdminServiceOptions } from './service.js';
export { MAX_DELIVERIES_LISTED } from './functions.js';
export { createAdminService, createPortability } from './clusterRouting.js';
export type { Portability, PortabilityOptions, ProgressListener } from './portability.js';
export type { ImportResult } from './importArchive.js';
export { UploadedArchive } from './portabilityApi.js';
export type { PortabilityPort } from './portabilityApi.js';
export type { PortableFiles, PortableStorage } from './portabilityFiles.js';
