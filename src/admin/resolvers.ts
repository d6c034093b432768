// Resolvers of the management schema: thin calls into the AdminService, plus the fields the
// service leaves to the API (full endpoint URL, lazily loaded app detail).

import type { AdminContext } from './context.js';
import type { AddOidcProviderInput, AppDetail, AppSummary, CreateFunctionInput, DeliveryStatusView, FunctionView, UpdateFunctionInput } from './types.js';
import type { AppSettings } from '../model/index.js';
import { badInput } from '../errors/index.js';

type Resolver<S, A> = (source: S, args: A, context: AdminContext) => unknown;

/** What an App field is resolved from: a summary, or the detail when it is already loaded. */
type AppSource = AppSummary | AppDetail;

async function detailOf(app: AppSource, context: AdminContext): Promise<AppDetail> {
  return 'schema' in app ? app : context.appDetail(app.id);
}

interface Input<T> {
  input: T;
}

const query: Record<string, Resolver<unknown, never>> = {
  apps: (_source, _args: Record<string, never>, context) => context.admin.listApps(),
  app: (_source, args: { id: string }, context) => context.admin.getApp(args.id),
  clusters: (_source, _args: Record<string, never>, context) => context.admin.clusters(),
};

const mutation: Record<string, Resolver<unknown, never>> = {
  createApp: async (_source, { input }: Input<{ name: string; schema: string; cluster?: string | null }>, context) => ({
    app: await context.admin.createApp({ name: input.name, schema: input.schema, cluster: input.cluster }),
  }),
  addCluster: async (_source, { input }: Input<{ name: string; url: string }>, context) => ({
    cluster: await context.admin.addCluster({ name: input.name, url: input.url }),
  }),
  moveApp: async (_source, { input }: Input<{ appId: string; cluster: string }>, context) => ({
    app: await context.admin.moveApp({ appId: input.appId, cluster: input.cluster }),
  }),
  migrateSchema: (
    _source,
    { input }: Input<{ appId: string; schema: string; dryRun?: boolean | null; allowDestructive?: boolean | null }>,
    context,
  ) =>
    context.admin.migrateSchema({
      appId: input.appId,
      schema: input.schema,
      dryRun: input.dryRun ?? false,
      allowDestructive: input.allowDestructive ?? false,
    }),
  updateApp: async (_source, { input }: Input<{ appId: string; settings: Partial<AppSettings> }>, context) => ({
    app: await context.admin.updateApp({ appId: input.appId, settings: { ...input.settings } }),
  }),
  deleteApp: async (_source, { input }: Input<{ appId: string }>, context) => ({
    deleted: await context.admin.deleteApp({ appId: input.appId }),
  }),
  createAdminToken: async (_source, { input }: Input<{ appId: string; name: string }>, context) => ({
    token: await context.admin.createAdminToken({ appId: input.appId, name: input.name }),
  }),
  revokeAdminToken: async (_source, { input }: Input<{ appId: string; name: string }>, context) => ({
    revoked: await context.admin.revokeAdminToken({ appId: input.appId, name: input.name }),
  }),
  rotateSigningKey: async (_source, { input }: Input<{ appId: string }>, context) => ({
    kid: await context.admin.rotateSigningKey({ appId: input.appId }),
  }),
  sendTestMail: async (_source, { input }: Input<{ appId: string; to: string }>, context) => {
    const app = await context.appDetail(input.appId);
    await context.mail.sendTest(app.id, input.to);
    return { sent: true };
  },
  setTrustedDocuments: async (_source, { input }: Input<{ appId: string; documents: string[]; enforce: boolean }>, context) => ({
    count: await context.admin.setTrustedDocuments({ appId: input.appId, documents: input.documents, enforce: input.enforce }),
  }),
  addOidcProvider: async (_source, { input }: Input<AddOidcProviderInput>, context) => ({
    oidcProvider: await context.admin.addOidcProvider(input),
  }),
  removeOidcProvider: async (_source, { input }: Input<{ appId: string; name: string }>, context) => ({
    removed: await context.admin.removeOidcProvider({ appId: input.appId, name: input.name }),
  }),
  createFunction: (_source, { input }: Input<CreateFunctionInput>, context) => context.admin.createFunction(input),
  updateFunction: (_source, { input }: Input<UpdateFunctionInput>, context) => context.admin.updateFunction(input),
  deleteFunction: async (_source, { input }: Input<{ appId: string; name: string }>, context) => ({
    deleted: await context.admin.deleteFunction({ appId: input.appId, name: input.name }),
  }),
  redeliver: async (_source, { input }: Input<{ appId: string; deliveryId: string }>, context) => ({
    delivery: await context.admin.redeliver({ appId: input.appId, deliveryId: input.deliveryId }),
  }),
};

/** The longest traffic window the API answers: a day of minutes. */
export const MAX_TRAFFIC_MINUTES = 1440;
/** The most recent operations the API answers (what an instance keeps per app). */
export const MAX_LOGGED_OPERATIONS = 100;
/** The most users one twoFactor question may name (a page of the console's user list is far fewer). */
export const MAX_TWO_FACTOR_USERS = 1000;

function count(value: number, name: string, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max) throw badInput(`${name} must be from 1 to ${max}, got ${value}`);
  return value;
}

const app: Record<string, Resolver<AppSource, never>> = {
  endpoint: (source, _args, context) => `${context.publicUrl}${source.endpointPath}`,
  cluster: (source) => source.cluster ?? 'main',
  schema: async (source, _args, context) => (await detailOf(source, context)).schema,
  apiSchema: async (source, _args, context) => (await context.admin.apiSchema(source.id)) ?? '',
  history: async (source, _args, context) => (await detailOf(source, context)).history,
  adminTokens: async (source, _args, context) => (await detailOf(source, context)).adminTokens,
  trustedDocuments: (source, _args, context) => context.admin.trustedDocuments(source.id),
  oidcProviders: (source, _args, context) => context.admin.oidcProviders(source.id),
  traffic: (source, args: { minutes: number }, context) => context.traffic.minutes(source.id, count(args.minutes, 'minutes', MAX_TRAFFIC_MINUTES)),
  recentOperations: (source, args: { last: number }, context) => context.traffic.recent(source.id, count(args.last, 'last', MAX_LOGGED_OPERATIONS)),
  functions: (source, _args, context) => context.admin.functions(source.id),
  function: async (source, args: { name: string }, context) => (await context.admin.functions(source.id)).find((f) => f.name === args.name) ?? null,
  twoFactor: (source, args: { userIds: string[] }, context) => {
    if (args.userIds.length > MAX_TWO_FACTOR_USERS) throw badInput(`userIds: at most ${MAX_TWO_FACTOR_USERS} ids, got ${args.userIds.length}`);
    return context.admin.twoFactor(source.id, args.userIds);
  },
};

const appFunction: Record<string, Resolver<FunctionView, never>> = {
  deliveries: (source, args: { first: number; status?: DeliveryStatusView | null }, context) => context.admin.functionDeliveries(source.appId, source.name, args.first, args.status),
};

/** Resolvers by type and field name; every entry must name a field of the schema. */
export const ADMIN_RESOLVERS: Readonly<Record<string, Record<string, Resolver<never, never>>>> = {
  Query: query,
  Mutation: mutation,
  App: app,
  AppFunction: appFunction,
};
