// A real server keeping files on a real store — a temporary directory, or an s3rver started by
// the test — with one app and helpers to sign up users and upload as clients do: a multipart
// request of the GraphQL multipart request specification (what Apollo Upload Client, urql and
// graphql-request send), or the original service's `blobFieldName` form.

import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DiskStorage } from '../../src/files/index.js';
import type { BlobStorage } from '../../src/files/index.js';
import type { StoreKind } from '../helpers/stores.js';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import type { ServerOptions } from '../../src/server/index.js';
import { startS3 } from './s3.js';
import type { TestS3 } from './s3.js';

export type DriverKind = 'disk' | 's3';
export const DRIVER_KINDS: readonly DriverKind[] = ['disk', 's3'];

export interface FileServer {
  server: TestServer;
  storage: BlobStorage;
  /** The S3 server, for the s3 driver. */
  s3?: TestS3;
  /** The keys stored for an app (`<appId>/<uuid>`), temporary files included. */
  stored(appId: string): Promise<string[]>;
  close(): Promise<void>;
}

/** A server of `kind` storing files with `driver`; the removal worker looks every 200 ms. */
export async function startFileServer(kind: StoreKind, driver: DriverKind, options: { removals?: boolean; compression?: boolean; functions?: ServerOptions['functions'] } = {}): Promise<FileServer> {
  let dir: string | undefined;
  let s3: TestS3 | undefined;
  let storage: BlobStorage;
  if (driver === 's3') {
    s3 = await startS3();
    storage = s3.storage();
  } else {
    dir = await mkdtemp(join(tmpdir(), 'tessera-files-'));
    storage = new DiskStorage(dir);
  }
  // The server closes its own storage; the tests read through a second driver of the same store.
  const serverStorage = s3 ? s3.storage() : new DiskStorage(dir as string);
  const server = await startTestServer(kind, { compression: options.compression ?? false, files: { storage: serverStorage, secret: 'a test secret of the file urls', removalIntervalMs: 200, removals: options.removals ?? true }, ...(options.functions ? { functions: options.functions } : {}) });
  return {
    server,
    storage,
    ...(s3 ? { s3 } : {}),
    async stored(appId) {
      if (s3) return s3.keys(`${appId}/`);
      const names = await readdir(join(dir as string, appId)).catch(() => [] as string[]);
      return names.map((n) => `${appId}/${n}`);
    },
    async close() {
      await server.close();
      await storage.close();
      await s3?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface Upload {
  /** The form field name (the spec's map key, or the part blobFieldName names). */
  name: string;
  filename: string;
  type?: string;
  bytes: Uint8Array | string;
}

export interface Reply {
  status: number;
  body: Json;
}

function blobOf(upload: Upload): Blob {
  return new Blob([upload.bytes], { type: upload.type ?? 'application/octet-stream' });
}

/** A GraphQL multipart request: `operations`, `map` (file name → paths), then the files. */
export async function multipart(
  app: Pick<TestApp, 'endpoint'>,
  operation: { query: string; variables: Record<string, unknown>; operationName?: string },
  map: Record<string, string[]>,
  files: Upload[],
  headers: Record<string, string> = {},
): Promise<Reply> {
  const form = new FormData();
  form.append('operations', JSON.stringify(operation));
  form.append('map', JSON.stringify(map));
  for (const file of files) form.append(file.name, blobOf(file), file.filename);
  const response = await fetch(app.endpoint, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as Json };
}

/** The original service's form: `query`, `variables`, and the parts `blobFieldName` names. */
export async function blobFieldForm(
  app: Pick<TestApp, 'endpoint'>,
  query: string,
  variables: Record<string, unknown>,
  files: Upload[],
  headers: Record<string, string> = {},
): Promise<Reply> {
  const form = new FormData();
  form.append('query', query);
  form.append('variables', JSON.stringify(variables));
  for (const file of files) form.append(file.name, blobOf(file), file.filename);
  const response = await fetch(app.endpoint, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as Json };
}

export const CREATE_FILE = `mutation($input: CreateFileInput!) {
  createFile(input: $input) { changedFile { id name contentType size sha256 url owner { id username } } }
}`;

/** Signs up a user; their bearer header and id. */
export async function signUp(app: TestApp, username: string): Promise<{ id: string; headers: Record<string, string> }> {
  const reply = await app.gql('mutation($i: CreateUserInput!) { createUser(input: $i) { token changedUser { id } } }', { i: { username, password: 'pw-123456' } }, {});
  if (reply.body.errors) throw new Error(`sign-up failed: ${JSON.stringify(reply.body.errors)}`);
  return { id: reply.body.data.createUser.changedUser.id, headers: { authorization: `Bearer ${reply.body.data.createUser.token}` } };
}

/** Uploads one file as `who` with createFile; the reply. */
export async function uploadFile(app: TestApp, who: Record<string, string>, file: Omit<Upload, 'name'>, input: Record<string, unknown> = {}): Promise<Reply> {
  return multipart(app, { query: CREATE_FILE, variables: { input: { ...input, blob: null } } }, { 0: ['variables.input.blob'] }, [{ ...file, name: '0' }], who);
}

/** Waits (polling, up to `ms`) until `check` holds; false if it never did. */
export async function eventually(check: () => Promise<boolean>, ms = 15_000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export { createTestApp };
export type { TestApp, Json };
