// What the management API offers, independent of GraphQL and HTTP: the server's admin
// schema and the CLI both go through an AdminService.

import type { AppSettings } from '../model/index.js';

export interface AppSummary {
  id: string;
  name: string;
  /** Path of the app's GraphQL endpoint, e.g. `/graphql/<id>`; the server prefixes its base URL. */
  endpointPath: string;
  schemaVersion: number;
  createdAt: Date;
  settings: AppSettings;
  /** The cluster the app lives on (`main`: the catalog's). */
  cluster?: string;
}

export interface AppDetail extends AppSummary {
  /** SDL of the live version, as pushed. */
  schema: string;
  history: { version: number; appliedAt: Date; steps: number }[];
  adminTokens: { name: string; createdAt: Date }[];
}

export interface PlanStepView {
  kind: string;
  description: string;
  destructive: boolean;
}

export interface MigrateResult {
  plan: PlanStepView[];
  applied: boolean;
  /** The version created (or, on a dry run, that would be created); the live one if nothing changes. */
  version: number;
}

/** An app's OpenID provider as the management API shows it: never its client secret. */
export interface OidcProviderView {
  name: string;
  /** The issuer as the provider states it (its ID tokens carry exactly this). */
  issuer: string;
  clientId: string;
  scopes: string[];
  /** Where clients send users to sign in (from the provider's discovery document). */
  authorizationEndpoint: string;
  createdAt: Date;
}

export interface AddOidcProviderInput {
  appId: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Default: openid, email, profile. */
  scopes?: readonly string[] | null | undefined;
}

/** An app's function as the management API shows it: never its secret nor its header values. */
export interface FunctionView {
  appId: string;
  name: string;
  kind: 'BEFORE' | 'EVENT' | 'RESOLVER';
  url: string;
  operations: string[];
  headers: { name: string }[];
  timeoutMs: number;
  enabled: boolean;
  order: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface FunctionHeaderInput {
  name: string;
  value: string;
}

export interface CreateFunctionInput {
  appId: string;
  name: string;
  kind: string;
  url: string;
  operations?: readonly string[] | null | undefined;
  headers?: readonly FunctionHeaderInput[] | null | undefined;
  timeoutMs?: number | null | undefined;
  enabled?: boolean | null | undefined;
  order?: number | null | undefined;
}

/** What to change of a function; omitted fields keep their value (`headers` replaces them all). */
export interface UpdateFunctionInput {
  appId: string;
  name: string;
  url?: string | null | undefined;
  operations?: readonly string[] | null | undefined;
  headers?: readonly FunctionHeaderInput[] | null | undefined;
  timeoutMs?: number | null | undefined;
  enabled?: boolean | null | undefined;
  order?: number | null | undefined;
  /** Replace the signing secret with a new one (answered once). */
  rotateSecret?: boolean | null | undefined;
}

export type DeliveryStatusView = 'PENDING' | 'DELIVERED' | 'DEAD';

/** One event delivery of an EVENT function. */
export interface DeliveryView {
  id: string;
  functionName: string;
  operation: string;
  status: DeliveryStatusView;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  /** When it is tried next; null once delivered or dead. */
  nextAttemptAt: Date | null;
  createdAt: Date;
  deliveredAt: Date | null;
}

/** A PostgreSQL server apps are placed on. */
export interface ClusterSummary {
  name: string;
  apps: number;
  reachable: boolean;
}

/** The management service of one store's apps (clusterRouting.ts makes the whole AdminService of them). */
export type StoreAdminService = Omit<AdminService, 'addCluster' | 'clusters' | 'moveApp'>;

export interface AdminService {
  /** Places the app on `cluster`, or else on the cluster holding the fewest apps. */
  createApp(input: { name: string; schema: string; cluster?: string | null | undefined }): Promise<AppSummary>;
  /** Adds a PostgreSQL server apps can be placed on (its database gets the catalog schema). */
  addCluster(input: { name: string; url: string }): Promise<ClusterSummary>;
  /** Every cluster, `main` first, with its apps and whether it answers. */
  clusters(): Promise<ClusterSummary[]>;
  /** Copies the app to another cluster (its writes held off meanwhile), serves it from there, and drops the old copy. */
  moveApp(input: { appId: string; cluster: string }): Promise<AppSummary>;
  migrateSchema(input: { appId: string; schema: string; dryRun?: boolean; allowDestructive?: boolean }): Promise<MigrateResult>;
  updateApp(input: { appId: string; settings: Partial<AppSettings> }): Promise<AppSummary>;
  deleteApp(input: { appId: string }): Promise<boolean>;
  /** Returns the token in clear text, once; only its hash is stored. */
  createAdminToken(input: { appId: string; name: string }): Promise<string>;
  revokeAdminToken(input: { appId: string; name: string }): Promise<boolean>;
  /** A new signing key for user tokens; the older ones are retired (they still verify). Returns the new kid. */
  rotateSigningKey(input: { appId: string }): Promise<string>;
  /** Replaces the app's trusted documents (the allow-list its API runs when `enforce` is on); returns how many it holds. */
  setTrustedDocuments(input: { appId: string; documents: readonly string[]; enforce: boolean }): Promise<number>;
  /** The app's trusted documents: whether they are enforced and how many there are. */
  trustedDocuments(appId: string): Promise<{ enforce: boolean; count: number }>;
  /** Adds an OpenID provider to an app, once its issuer's discovery document is fetched and checked. */
  addOidcProvider(input: AddOidcProviderInput): Promise<OidcProviderView>;
  /** Removes an app's OpenID provider; false when it has none of that name. */
  removeOidcProvider(input: { appId: string; name: string }): Promise<boolean>;
  /** The app's OpenID providers, by name. */
  oidcProviders(appId: string): Promise<OidcProviderView[]>;
  /** Adds a function to an app; its signing secret is generated and answered this once. */
  createFunction(input: CreateFunctionInput): Promise<{ function: FunctionView; secret: string }>;
  /** Changes a function; `secret` is the new one when rotateSecret was asked, else null. */
  updateFunction(input: UpdateFunctionInput): Promise<{ function: FunctionView; secret: string | null }>;
  /** Removes a function and its deliveries; false when the app has none of that name. */
  deleteFunction(input: { appId: string; name: string }): Promise<boolean>;
  /** The app's functions, by order then name. */
  functions(appId: string): Promise<FunctionView[]>;
  /** A function's latest deliveries (1 to 100), newest first, of one status or any. */
  functionDeliveries(appId: string, name: string, first: number, status?: DeliveryStatusView | null): Promise<DeliveryView[]>;
  /** Sends a delivery again now, whatever its status, with a fresh retry window. */
  redeliver(input: { appId: string; deliveryId: string }): Promise<DeliveryView>;
  listApps(): Promise<AppSummary[]>;
  /** By id or by name; null when there is no such (live) app. */
  getApp(idOrName: string): Promise<AppDetail | null>;
  /** The app's generated GraphQL API as SDL, sorted (what codegen and relay-compiler take); null when there is no such app. */
  apiSchema(idOrName: string): Promise<string | null>;
  /** Two-factor login of these users (their API ids), one entry per id in order; BAD_USER_INPUT for an id that is not a user's. */
  twoFactor(appId: string, userIds: readonly string[]): Promise<TwoFactorView[]>;
}

/** Whether one user has two-factor login on. */
export interface TwoFactorView {
  userId: string;
  enabled: boolean;
  /** When it was turned on; null when it is off. */
  enabledAt: Date | null;
  /** Unused recovery codes; 0 when it is off. */
  recoveryCodesLeft: number;
}

/** One minute of an app's traffic, across every instance. */
export interface TrafficMinuteView {
  minute: Date;
  operations: number;
  /** Operations answered with an error of any kind, refusals included. */
  errors: number;
  /** Operations the server failed (INTERNAL, UNAVAILABLE). */
  failures: number;
  /** Latency under which half (95 %) of the minute's operations finished, in ms; null without operations. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** One of an app's latest operations: what it was, who asked and how it ended; never its document or variables. */
export interface LoggedOperationView {
  at: Date;
  transport: 'http' | 'websocket';
  type: string;
  name?: string | undefined;
  outcome: string;
  durationMs: number;
  status?: number | undefined;
  requestId: string;
  caller: 'anonymous' | 'user' | 'admin';
  userId?: string | undefined;
}

/** Where the management API reads apps' traffic: the server that serves both APIs. */
/** Sends an app's test mail through its mail settings (the server's accounts stage does). */
export interface MailTester {
  /** Sends a test mail to `to`; throws with the mail server's answer when it cannot. */
  sendTest(appId: string, to: string): Promise<void>;
}

export interface TrafficSource {
  /** The last `minutes` minutes, oldest first, one entry per minute (zeros included). */
  minutes(appId: string, minutes: number): Promise<TrafficMinuteView[]>;
  /** The latest operations the answering instance served, newest first. */
  recent(appId: string, last: number): LoggedOperationView[];
}
