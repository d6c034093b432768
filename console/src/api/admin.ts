// The management API (/admin/graphql, DESIGN.md section 7) as typed functions, authorised by
// the platform key of the session. A refused key ends the session.

import { ApiError, requestGraphQL } from './graphql';
import { platformKey, signOut } from './session';

export const ADMIN_URL = '/admin/graphql';

export interface AppSummary {
  id: string;
  name: string;
  endpoint: string;
  schemaVersion: number;
  createdAt: string;
}

export interface SchemaVersion {
  version: number;
  appliedAt: string;
  steps: number;
}

export interface AdminToken {
  name: string;
  createdAt: string;
}

export interface AppDetail extends AppSummary {
  schema: string;
  history: SchemaVersion[];
  adminTokens: AdminToken[];
}

export interface PlanStep {
  kind: string;
  description: string;
  destructive: boolean;
}

export interface MigrateResult {
  plan: PlanStep[];
  applied: boolean;
  version: number;
}

export async function adminRequest<T>(query: string, variables: Record<string, unknown> = {}, key = platformKey()): Promise<T> {
  try {
    return await requestGraphQL<T>(ADMIN_URL, query, variables, key);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401 && key === platformKey()) signOut();
    throw err;
  }
}

const SUMMARY = 'id name endpoint schemaVersion createdAt';

export async function checkKey(key: string): Promise<void> {
  await adminRequest('{ apps { id } }', {}, key);
}

export async function listApps(): Promise<AppSummary[]> {
  return (await adminRequest<{ apps: AppSummary[] }>(`{ apps { ${SUMMARY} } }`)).apps;
}

export async function getApp(id: string): Promise<AppDetail | null> {
  const query = `query($id: ID!) { app(id: $id) { ${SUMMARY} schema history { version appliedAt steps } adminTokens { name createdAt } } }`;
  return (await adminRequest<{ app: AppDetail | null }>(query, { id })).app;
}

export async function createApp(name: string, schema: string): Promise<AppSummary> {
  const query = `mutation($i: CreateAppInput!) { createApp(input: $i) { app { ${SUMMARY} } } }`;
  return (await adminRequest<{ createApp: { app: AppSummary } }>(query, { i: { name, schema } })).createApp.app;
}

export async function deleteApp(appId: string): Promise<boolean> {
  const query = 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }';
  return (await adminRequest<{ deleteApp: { deleted: boolean } }>(query, { i: { appId } })).deleteApp.deleted;
}

export async function migrateSchema(appId: string, schema: string, options: { dryRun: boolean; allowDestructive?: boolean }): Promise<MigrateResult> {
  const query = 'mutation($i: MigrateSchemaInput!) { migrateSchema(input: $i) { plan { kind description destructive } applied version } }';
  const input = { appId, schema, dryRun: options.dryRun, allowDestructive: options.allowDestructive ?? false };
  return (await adminRequest<{ migrateSchema: MigrateResult }>(query, { i: input })).migrateSchema;
}

export async function createAdminToken(appId: string, name: string): Promise<string> {
  const query = 'mutation($i: CreateAdminTokenInput!) { createAdminToken(input: $i) { token } }';
  return (await adminRequest<{ createAdminToken: { token: string } }>(query, { i: { appId, name } })).createAdminToken.token;
}

export async function revokeAdminToken(appId: string, name: string): Promise<boolean> {
  const query = 'mutation($i: RevokeAdminTokenInput!) { revokeAdminToken(input: $i) { revoked } }';
  return (await adminRequest<{ revokeAdminToken: { revoked: boolean } }>(query, { i: { appId, name } })).revokeAdminToken.revoked;
}

/** The app's endpoint path on this server (the console talks to its own origin). */
export function appPath(appId: string): string {
  return `/graphql/${encodeURIComponent(appId)}`;
}

/** The WebSocket URL of the app's endpoint on this origin. */
export function appSocketUrl(appId: string): string {
  const url = new URL(appPath(appId), window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  return url.toString();
}

/** The WebSocket form of an endpoint URL the server reports. */
export function socketUrlOf(endpoint: string): string {
  return endpoint.replace(/^http/, 'ws');
}

/** A signed link that downloads the app's archive (valid 15 minutes, no key needed). */
export async function exportAppUrl(appId: string): Promise<string> {
  const query = 'mutation($i: ExportAppInput!) { exportApp(input: $i) { url } }';
  return (await adminRequest<{ exportApp: { url: string } }>(query, { i: { appId } })).exportApp.url;
}

export async function forkApp(appId: string, name: string): Promise<{ app: AppSummary; warnings: string[] }> {
  const query = `mutation($i: ForkAppInput!) { forkApp(input: $i) { app { ${SUMMARY} } warnings } }`;
  return (await adminRequest<{ forkApp: { app: AppSummary; warnings: string[] } }>(query, { i: { appId, name } })).forkApp;
}
