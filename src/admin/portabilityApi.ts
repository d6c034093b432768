// The management API's portability operations (DESIGN section 13), kept beside the main SDL:
// exportApp answers a signed download URL (the server signs it: it holds the key), forkApp
// copies an app. importApp(file: Upload!) waits for multipart uploads; until then archives are
// imported over POST /admin/apps/import (docs/portability.md).

import type { AppSummary } from './types.js';

/** What the API needs of the server for portability: signed export URLs, and forks. */
export interface PortabilityPort {
  /** A URL that downloads the app's archive until `expiresAt`; NOT_FOUND when there is no such app. */
  exportUrl(appId: string): Promise<{ url: string; expiresAt: Date }>;
  forkApp(input: { appId: string; name: string }): Promise<{ app: AppSummary; warnings: string[] }>;
}

export const PORTABILITY_SDL = /* GraphQL */ `
extend type Mutation {
  "A signed URL that downloads the app's archive (gzip-compressed JSON lines, docs/portability.md) from a consistent snapshot; it works without the platform key until it expires."
  exportApp(input: ExportAppInput!): ExportAppPayload!
  "A new app with the app's schema and settings and a copy of its data (same ids), made inside the database; the two are independent from then on."
  forkApp(input: ForkAppInput!): ForkAppPayload!
}

input ExportAppInput {
  "The app's id or name."
  appId: ID!
}

type ExportAppPayload {
  "GET it for the archive (application/gzip)."
  url: String!
  expiresAt: DateTime!
}

input ForkAppInput {
  "The app to copy, by id or name."
  appId: ID!
  "The new app's name."
  name: String!
}

type ForkAppPayload {
  app: App!
  "What was not carried over, and why (an OpenID provider whose secret this server cannot open)."
  warnings: [String!]!
}
`;

interface PortabilityContext {
  portability: PortabilityPort;
}

type Resolver<A> = (source: unknown, args: A, context: PortabilityContext) => unknown;

export const PORTABILITY_MUTATIONS: Readonly<Record<string, Resolver<never>>> = {
  exportApp: ((_source, { input }: { input: { appId: string } }, context) => context.portability.exportUrl(input.appId)) as Resolver<never>,
  forkApp: ((_source, { input }: { input: { appId: string; name: string } }, context) => context.portability.forkApp(input)) as Resolver<never>,
};
