// The management API's portability operations (DESIGN section 13), kept beside the main SDL:
// exportApp answers a signed download URL (the server signs it: it holds the key), importApp
// makes a new app of an archive sent as a GraphQL multipart request (the server spools the file
// to a temporary file first: an Upload value names it), forkApp copies an app. Archives can
// also be imported over POST /admin/apps/import, with progress (docs/portability.md).

import { GraphQLError } from 'graphql';
import type { AppSummary } from './types.js';

/** An archive sent with the request, written whole to a temporary file before the operation runs. */
export class UploadedArchive {
  constructor(
    readonly path: string,
    /** The part's file name, as the client gave it. */
    readonly filename: string,
  ) {}
}

/** The Upload scalar's input: only a file of the same multipart request is one. */
export function uploadedArchive(value: unknown): UploadedArchive {
  if (value instanceof UploadedArchive) return value;
  throw new GraphQLError('Upload values are files sent in a multipart request (the GraphQL multipart request specification: operations, map and the file); this value is not one');
}

/** What the API needs of the server for portability: signed export URLs, imports and forks. */
export interface PortabilityPort {
  /** A URL that downloads the app's archive until `expiresAt`; NOT_FOUND when there is no such app. */
  exportUrl(appId: string): Promise<{ url: string; expiresAt: Date }>;
  importApp(input: { file: UploadedArchive; name?: string | null | undefined }): Promise<{ app: AppSummary; rows: number; warnings: string[] }>;
  forkApp(input: { appId: string; name: string }): Promise<{ app: AppSummary; warnings: string[] }>;
}

export const PORTABILITY_SDL = /* GraphQL */ `
"A file sent in the same multipart request (the GraphQL multipart request specification)."
scalar Upload

extend type Mutation {
  "A signed URL that downloads the app's archive (gzip-compressed JSON lines, docs/portability.md) from a consistent snapshot; it works without the platform key until it expires."
  exportApp(input: ExportAppInput!): ExportAppPayload!
  "A new app made of an archive sent in the same multipart request, with the same ids; all or nothing."
  importApp(input: ImportAppInput!): ImportAppPayload!
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

input ImportAppInput {
  "The archive (application/gzip), as exportApp's URL downloads it."
  file: Upload!
  "The new app's name; the exported app's name when absent."
  name: String
}

type ImportAppPayload {
  app: App!
  "Rows loaded, over every table."
  rows: Int!
  "What was not carried over, or arrived changed, and why (functions arrive disabled)."
  warnings: [String!]!
}

input ForkAppInput {
  "The app to copy, by id or name."
  appId: ID!
  "The new app's name."
  name: String!
}

type ForkAppPayload {
  app: App!
  "What was not carried over, or arrived changed, and why (functions arrive disabled, with new secrets)."
  warnings: [String!]!
}
`;

interface PortabilityContext {
  portability: PortabilityPort;
}

type Resolver<A> = (source: unknown, args: A, context: PortabilityContext) => unknown;

export const PORTABILITY_MUTATIONS: Readonly<Record<string, Resolver<never>>> = {
  exportApp: ((_source, { input }: { input: { appId: string } }, context) => context.portability.exportUrl(input.appId)) as Resolver<never>,
  importApp: ((_source, { input }: { input: { file: UploadedArchive; name?: string | null } }, context) => context.portability.importApp(input)) as Resolver<never>,
  forkApp: ((_source, { input }: { input: { appId: string; name: string } }, context) => context.portability.forkApp(input)) as Resolver<never>,
};
