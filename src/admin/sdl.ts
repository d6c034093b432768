// The management API's schema as SDL (DESIGN.md section 7). The settings types are generated
// from one typed table, so a new AppSettings field cannot be forgotten here.

import { DEFAULT_SETTINGS, SETTING_BOUNDS } from '../model/index.js';
import type { AppSettings } from '../model/index.js';

const SETTING_FIELDS: Readonly<Record<keyof AppSettings, { type: 'Int' | 'Boolean' | 'String' | '[String!]'; description: string; nullable?: true }>> = {
  tokenLifetimeSeconds: { type: 'Int', description: 'Lifetime of user tokens issued by loginUser/createUser, in seconds.' },
  refreshTokenLifetimeSeconds: { type: 'Int', description: 'Lifetime of a refresh token, in seconds: a session not refreshed for this long ends.' },
  defaultPageSize: { type: 'Int', description: 'Page size when a query gives neither first nor last.' },
  maxPageSize: { type: 'Int', description: 'Largest first/last a query may ask for.' },
  maxDepth: { type: 'Int', description: 'Deepest selection nesting a query may have.' },
  maxAliases: { type: 'Int', description: 'Most aliases a query may use.' },
  maxDirectives: { type: 'Int', description: 'Most directives (@skip, @include, …) one operation may use.' },
  maxTokens: { type: 'Int', description: 'Most lexical tokens a query document may have.' },
  maxCost: { type: 'Int', description: 'Highest estimated cost a query may have (page sizes multiply).' },
  introspection: { type: 'Boolean', description: 'Whether the app API answers introspection queries.' },
  fieldSuggestions: { type: 'Boolean', description: 'Whether error messages suggest similar field names.' },
  statementTimeoutMs: { type: 'Int', description: 'Database statement timeout, in milliseconds.' },
  corsOrigins: {
    type: '[String!]',
    description: "Origins whose browser apps may call the app's API (https://app.example.com, or * for any); null follows the server's TESSERA_CORS_ORIGINS.",
    nullable: true,
  },
  smtpUrl: {
    type: 'String',
    description: "Where the app's mail goes out: smtp://user:password@host:587 or smtps://…; null uses the server's TESSERA_SMTP_URL. Read back with the password hidden; writing back the hidden form keeps it.",
    nullable: true,
  },
  mailFrom: { type: 'String', description: "The sender of the app's mail (Shop <noreply@shop.example>); null uses the server's TESSERA_MAIL_FROM.", nullable: true },
  verifyEmailSubject: { type: 'String', description: 'Subject of the address verification mail ({{appName}}, {{username}} are replaced); null: the built-in one.', nullable: true },
  verifyEmailText: { type: 'String', description: 'Text of the address verification mail; must hold {{token}} ({{appName}}, {{username}} are replaced too); null: the built-in one.', nullable: true },
  resetPasswordSubject: { type: 'String', description: 'Subject of the password reset mail; null: the built-in one.', nullable: true },
  resetPasswordText: { type: 'String', description: 'Text of the password reset mail; must hold {{token}}; null: the built-in one.', nullable: true },
  maxFileSize: { type: 'Int', description: 'The largest file an upload may hold, in bytes; a bigger one is refused with LIMIT_EXCEEDED and nothing is kept.' },
  fileUrlLifetimeSeconds: { type: 'Int', description: "How long a File's signed download URL stays valid, in seconds." },
};

/** A setting's description with its default and, for numbers, the values it may take. */
function describeSetting(name: keyof AppSettings, description: string): string {
  const value = DEFAULT_SETTINGS[name];
  const bounds = SETTING_BOUNDS[name];
  const range = bounds ? ` From ${bounds[0]} to ${bounds[1]}.` : '';
  return `${description} Default: ${value === null ? 'null' : String(value)}.${range}`;
}

function settingsFields(required: boolean): string {
  return Object.entries(SETTING_FIELDS)
    .map(([name, { type, description, nullable }]) => `  ${JSON.stringify(describeSetting(name as keyof AppSettings, description))}\n  ${name}: ${type}${required && !nullable ? '!' : ''}`)
    .join('\n');
}

export const ADMIN_SDL = /* GraphQL */ `
"An instant in time: ISO 8601, UTC, with milliseconds (2016-12-08T12:33:56.000Z)."
scalar DateTime

type Query {
  "Every live app, oldest first."
  apps: [App!]!
  "An app by id or by name; null when there is no such app."
  app(id: ID!): App
  "Every PostgreSQL cluster apps are placed on, main (the catalog's) first."
  clusters: [Cluster!]!
}

type Mutation {
  "Creates an app from a schema; it becomes schema version 1."
  createApp(input: CreateAppInput!): CreateAppPayload!
  "Adds a PostgreSQL server apps can be placed on: it must answer, and its database gets Tessera's catalog schema. PostgreSQL-backed servers only."
  addCluster(input: AddClusterInput!): AddClusterPayload!
  "Moves an app to another cluster: its data and catalog rows are copied while its writes wait (reads go on), then it is served from there and the old copy is dropped. A write that waited is answered UNAVAILABLE (503, Retry-After) and goes to the new home when sent again."
  moveApp(input: MoveAppInput!): MoveAppPayload!
  "Plans (and unless dryRun, applies) the change from the live schema to the one given."
  migrateSchema(input: MigrateSchemaInput!): MigrateSchemaPayload!
  "Changes an app's settings; only the settings given change."
  updateApp(input: UpdateAppInput!): UpdateAppPayload!
  "Deletes an app and all its data."
  deleteApp(input: DeleteAppInput!): DeleteAppPayload!
  "Creates an admin token for an app; the token is returned once and only its hash is stored."
  createAdminToken(input: CreateAdminTokenInput!): CreateAdminTokenPayload!
  "Revokes an app's admin token by name; it stops working at the next request."
  revokeAdminToken(input: RevokeAdminTokenInput!): RevokeAdminTokenPayload!
  "Makes a new key sign the app's user tokens; tokens signed by the old keys keep working until they expire."
  rotateSigningKey(input: RotateSigningKeyInput!): RotateSigningKeyPayload!
  "Replaces the app's trusted documents; with enforce, its API runs those documents only (the platform key excepted)."
  setTrustedDocuments(input: SetTrustedDocumentsInput!): SetTrustedDocumentsPayload!
  "Sends a test mail through the app's mail settings (or the server's), to check them; UNAVAILABLE with the mail server's answer when it cannot."
  sendTestMail(input: SendTestMailInput!): SendTestMailPayload!
  "Adds an OpenID provider users of the app sign in with (loginUserWithOidc); its issuer's discovery document is fetched and checked first."
  addOidcProvider(input: AddOidcProviderInput!): AddOidcProviderPayload!
  "Removes an app's OpenID provider; identities linked through it stay, and work again if a provider of the same issuer is added."
  removeOidcProvider(input: RemoveOidcProviderInput!): RemoveOidcProviderPayload!
  "Adds a function (an endpoint of the app's own that Tessera calls, signed); its signing secret is generated and answered this once."
  createFunction(input: CreateFunctionInput!): CreateFunctionPayload!
  "Changes a function; the fields given change. rotateSecret replaces its signing secret (the new one is answered this once)."
  updateFunction(input: UpdateFunctionInput!): UpdateFunctionPayload!
  "Deletes a function and its deliveries; events not yet delivered are dropped."
  deleteFunction(input: DeleteFunctionInput!): DeleteFunctionPayload!
  "Sends an event delivery again now, whatever its status (delivered, dead, pending), with a fresh retry window; its id stays the same."
  redeliver(input: RedeliverInput!): RedeliverPayload!
}

type App {
  id: ID!
  name: String!
  "The full URL of the app's GraphQL endpoint."
  endpoint: String!
  "The live schema version."
  schemaVersion: Int!
  createdAt: DateTime!
  settings: AppSettings!
  "The cluster the app lives on (main: the catalog's)."
  cluster: String!
  "The SDL of the live schema version, as pushed."
  schema: String!
  "The app's generated GraphQL API (SDL, sorted): the schema clients and their tools (relay-compiler, graphql-codegen) work against."
  apiSchema: String!
  "Every schema version, the live one last."
  history: [SchemaVersion!]!
  adminTokens: [AdminToken!]!
  "The app's trusted documents."
  trustedDocuments: TrustedDocuments!
  "The OpenID providers the app's users sign in with, by name (never their client secrets)."
  oidcProviders: [OidcProvider!]!
  "The app's operations per minute over the last \`minutes\` minutes (1 to 1,440), oldest first, one entry per minute, summed over every instance (the last few seconds of other instances arrive within 10 s)."
  traffic(minutes: Int! = 60): [TrafficMinute!]!
  "The latest operations of the app the answering instance served (1 to 100), newest first: what each was, who asked and how it ended — never its document or variables."
  recentOperations(last: Int! = 50): [LoggedOperation!]!
  "The app's functions, by order then name (never their secrets nor header values)."
  functions: [AppFunction!]!
  "The app's function of that name; null when there is none."
  function(name: String!): AppFunction
  "Two-factor login of the app's users with these ids (User ids of the app's API, at most 1,000), one entry per id in the order given; an id of no user answers enabled: false."
  twoFactor(userIds: [ID!]!): [UserTwoFactor!]!
}

type UserTwoFactor {
  userId: ID!
  "Whether the user has two-factor login (TOTP) on: loginUser asks them for a code."
  enabled: Boolean!
  "When it was turned on (confirmTotp); null when it is off."
  enabledAt: DateTime
  "The user's recovery codes not used yet; 0 when it is off."
  recoveryCodesLeft: Int!
}

type TrafficMinute {
  "The minute's start."
  minute: DateTime!
  operations: Int!
  "Operations answered with an error of any kind, refusals included."
  errors: Int!
  "Operations the server failed (INTERNAL, UNAVAILABLE)."
  failures: Int!
  "Milliseconds under which half of the minute's operations finished (a bucket's upper bound); null without operations."
  p50Ms: Float
  "Milliseconds under which 95 % of the minute's operations finished (a bucket's upper bound; 10000 means 10 s or more); null without operations."
  p95Ms: Float
}

type LoggedOperation {
  at: DateTime!
  "http or websocket."
  transport: String!
  "query, mutation, subscription, or unknown when the document did not parse or validate."
  type: String!
  name: String
  "ok, or the code of the first error."
  outcome: String!
  durationMs: Float!
  "The HTTP status; null over WebSocket."
  status: Int
  "The request id (the x-request-id header), to find the operation's log lines."
  requestId: String!
  "anonymous, user or admin."
  caller: String!
  "The user's id, when a user asked."
  userId: ID
}

type OidcProvider {
  "The name clients give loginUserWithOidc."
  name: String!
  "The issuer as the provider states it; ID tokens must carry exactly this."
  issuer: String!
  clientId: String!
  "The scopes clients ask for (openid among them)."
  scopes: [String!]!
  "Where clients send users to sign in, from the provider's discovery document."
  authorizationEndpoint: String!
  createdAt: DateTime!
}

type TrustedDocuments {
  "Whether the app's API runs these documents only."
  enforce: Boolean!
  count: Int!
}

type SchemaVersion {
  version: Int!
  appliedAt: DateTime!
  "How many migration steps the version applied."
  steps: Int!
}

type AdminToken {
  name: String!
  createdAt: DateTime!
}

type AppSettings {
${settingsFields(true)}
}

"Settings to change; omitted ones keep their value."
input AppSettingsInput {
${settingsFields(false)}
}

type PlanStep {
  "The step kind, e.g. createType, addField, dropField."
  kind: String!
  description: String!
  "Whether the step loses data; destructive steps need allowDestructive."
  destructive: Boolean!
}

input CreateAppInput {
  "Letters, digits, - and _, starting with a letter."
  name: String!
  "The app schema (SDL)."
  schema: String!
  "The cluster to place the app on; default: the reachable cluster holding the fewest apps."
  cluster: String
}

type CreateAppPayload {
  app: App!
}

"A PostgreSQL server apps are placed on."
type Cluster {
  "main is the one DATABASE_URL names, which holds the catalog."
  name: String!
  "Apps placed on it."
  apps: Int!
  "Whether it answered just now."
  reachable: Boolean!
}

input AddClusterInput {
  "A lowercase letter, then up to 30 lowercase letters, digits, - and _."
  name: String!
  "Its connection URL (postgres://...); stored sealed under the server's secret key, never shown."
  url: String!
}

type AddClusterPayload {
  cluster: Cluster!
}

input MoveAppInput {
  "The app's id or name."
  appId: ID!
  "The cluster to move it to."
  cluster: String!
}

type MoveAppPayload {
  app: App!
}

input MigrateSchemaInput {
  "The app's id or name."
  appId: ID!
  "The whole new schema (SDL)."
  schema: String!
  "Report the plan and the version it would create without applying anything."
  dryRun: Boolean = false
  "Apply destructive steps too; without it they are refused with DESTRUCTIVE_CHANGE."
  allowDestructive: Boolean = false
}

type MigrateSchemaPayload {
  plan: [PlanStep!]!
  applied: Boolean!
  "The version created, or on a dry run the one that would be; the live one when nothing changes."
  version: Int!
}

input UpdateAppInput {
  "The app's id or name."
  appId: ID!
  settings: AppSettingsInput!
}

type UpdateAppPayload {
  app: App!
}

input DeleteAppInput {
  "The app's id or name."
  appId: ID!
}

type DeleteAppPayload {
  "False when there was no such app."
  deleted: Boolean!
}

input CreateAdminTokenInput {
  "The app's id or name."
  appId: ID!
  "A name to revoke the token by: letters, digits, '.', '_' and '-'."
  name: String!
}

type CreateAdminTokenPayload {
  token: String!
}

input RevokeAdminTokenInput {
  "The app's id or name."
  appId: ID!
  name: String!
}

type RevokeAdminTokenPayload {
  "False when the app has no live token of that name."
  revoked: Boolean!
}

input SetTrustedDocumentsInput {
  "The app's id or name."
  appId: ID!
  "The documents' texts; a request matches one by the SHA-256 of its text, sent whole or as a persisted-query hash."
  documents: [String!]!
  "Refuse every other document (PERSISTED_QUERY_NOT_FOUND) for users and admin tokens."
  enforce: Boolean!
}

type SetTrustedDocumentsPayload {
  "How many distinct documents the app trusts now."
  count: Int!
}

input SendTestMailInput {
  "The app's id or name."
  appId: ID!
  "The address to send it to."
  to: String!
}

type SendTestMailPayload {
  "True once the mail server accepted the mail."
  sent: Boolean!
}

input AddOidcProviderInput {
  "The app's id or name."
  appId: ID!
  "1–64 letters, digits, '.', '_' and '-': what clients call the provider in loginUserWithOidc."
  name: String!
  "The provider's issuer URL (https; http only on this machine); its /.well-known/openid-configuration is fetched."
  issuer: String!
  "The app's client id at the provider."
  clientId: String!
  "The app's client secret at the provider: stored sealed, never answered back."
  clientSecret: String!
  "The scopes clients ask for; must include openid. Default: openid, email, profile."
  scopes: [String!]
}

type AddOidcProviderPayload {
  oidcProvider: OidcProvider!
}

input RemoveOidcProviderInput {
  "The app's id or name."
  appId: ID!
  name: String!
}

type RemoveOidcProviderPayload {
  "False when the app has no provider of that name."
  removed: Boolean!
}

input RotateSigningKeyInput {
  "The app's id or name."
  appId: ID!
}

type RotateSigningKeyPayload {
  "The key id (kid) of the key that signs from now on."
  kid: String!
}
`;
