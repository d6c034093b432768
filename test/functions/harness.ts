// What the function tests share: a real `node:http` receiver that checks each call's signature
// as an app's endpoint would, a server with functions set up (its secret key, private addresses
// allowed unless asked otherwise, a delivery schedule short enough for a test), and the
// management operations the tests call.

import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/functions/index.js';
import type { DeliverySchedule } from '../../src/functions/index.js';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import type { ServerOptions } from '../../src/server/index.js';
import { admin, startTestServer } from '../server/harness.js';
import type { Json, TestServer } from '../server/harness.js';
import type { StoreKind } from '../helpers/stores.js';
import { sleep } from '../helpers/wait.js';

export const codeOf = (body: Json): string | undefined => body.errors?.[0]?.extensions?.code;

/** Blog-like schema: a one-to-many relation for nested creates, a many-to-many one for edges, a unique title for a rollback. */
export const SCHEMA = `
type Author @model { name: String! posts: [Post] @relation(name: "AuthorPosts") }
type Post @model {
  title: String! @unique
  rating: Int
  publishedAt: DateTime
  author: Author @relation(name: "AuthorPosts")
  tags: [Tag] @relation(name: "PostTags")
}
type Tag @model { name: String! posts: [Post] @relation(name: "PostTags") }
`;

/** A schedule that retries within a test's patience. */
export const FAST: Partial<DeliverySchedule> = { pollMs: 100, retryBaseMs: 100, retryMaxMs: 400, sweepMs: 200, leaseMarginMs: 2_000 };

export interface Received {
  /** Tessera-Event-Id. */
  eventId: string | undefined;
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
  /** Whether Tessera-Signature signs the raw body with the function's secret. */
  verified: boolean;
  /** The status this call was answered with. */
  answered: number;
}

/** An endpoint of the app's own: records each call, and answers `status` (200 by default). */
export class Receiver {
  readonly received: Received[] = [];
  /** The answer's status: a test makes the endpoint fail with 500 or 503. */
  status = 200;
  /** The function's secret, once created; calls are verified against it. */
  secret = '';
  #server: Server | undefined;
  #port = 0;

  static async start(): Promise<Receiver> {
    const receiver = new Receiver();
    await receiver.up();
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/hook`;
  }

  get port(): number {
    return this.#port;
  }

  /** Listens (again, on the same port once it had one). */
  async up(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const eventId = request.headers['tessera-event-id'];
        this.received.push({
          eventId: typeof eventId === 'string' ? eventId : undefined,
          headers: request.headers,
          raw,
          body: JSON.parse(raw) as Json,
          verified: verifySignature(this.secret, request.headers['tessera-signature'] as string | undefined, raw, 300),
          answered: this.status,
        });
        response.writeHead(this.status, { 'content-type': 'application/json' }).end('{"ok":true}');
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => resolve());
    });
    this.#port = (server.address() as AddressInfo).port;
    this.#server = server;
  }

  /** Stops listening: calls are refused at the connection. */
  async down(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The bodies received for an operation. */
  bodies(operation?: string): Json[] {
    return this.received.filter((r) => operation === undefined || r.body.operation === operation).map((r) => r.body);
  }

  /** Waits until `count` calls (of an operation) have arrived; fails after `timeoutMs`. */
  async waitFor(count: number, operation?: string, timeoutMs = 15_000): Promise<Json[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.bodies(operation).length < count) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} call(s)${operation ? ` of ${operation}` : ''}; got ${JSON.stringify(this.bodies())}`);
      await sleep(20);
    }
    return this.bodies(operation);
  }
}

/** A test server with functions set up (private addresses allowed unless `allowPrivate` is false). */
export function startFunctionsServer(kind: StoreKind, options: { allowPrivate?: boolean; schedule?: Partial<DeliverySchedule> } & Partial<ServerOptions> = {}): Promise<TestServer> {
  const { allowPrivate = true, schedule = FAST, ...rest } = options;
  return startTestServer(kind, { functions: { secrets: new SecretBox(generateSecretKey()), allowPrivate, schedule }, ...rest });
}

export const FUNCTION_FIELDS = 'name kind url operations headers { name } timeoutMs enabled order';
export const CREATE = `mutation($i: CreateFunctionInput!) { createFunction(input: $i) { function { ${FUNCTION_FIELDS} } secret } }`;
export const UPDATE = `mutation($i: UpdateFunctionInput!) { updateFunction(input: $i) { function { ${FUNCTION_FIELDS} } secret } }`;
export const DELETE = 'mutation($i: DeleteFunctionInput!) { deleteFunction(input: $i) { deleted } }';
export const REDELIVER = 'mutation($i: RedeliverInput!) { redeliver(input: $i) { delivery { id status attempts } } }';
export const DELIVERY_FIELDS = 'id operation status attempts lastStatusCode lastError nextAttemptAt createdAt deliveredAt';
export const DELIVERIES = `query($app: ID!, $name: String!, $status: FunctionDeliveryStatus) { app(id: $app) { function(name: $name) { deliveries(first: 100, status: $status) { ${DELIVERY_FIELDS} } } } }`;

/** Creates an EVENT function posting to `receiver` (its secret given to the receiver); fails the test on an error. */
export async function createEventFunction(server: TestServer, appId: string, receiver: Receiver, operations: string[], name = 'hook', extra: Record<string, unknown> = {}): Promise<Json> {
  const reply = await admin(server, CREATE, { i: { appId, name, kind: 'EVENT', url: receiver.url, operations, ...extra } });
  if (reply.body.errors) throw new Error(`createFunction failed: ${JSON.stringify(reply.body.errors)}`);
  receiver.secret = reply.body.data.createFunction.secret;
  return reply.body.data.createFunction;
}

/** A function's deliveries, newest first. */
export async function deliveries(server: TestServer, appId: string, name = 'hook', status?: string): Promise<Json[]> {
  const reply = await admin(server, DELIVERIES, { app: appId, name, ...(status ? { status } : {}) });
  if (reply.body.errors) throw new Error(`deliveries failed: ${JSON.stringify(reply.body.errors)}`);
  return reply.body.data.app.function.deliveries;
}

/** Waits until a function's deliveries satisfy `check`; fails after `timeoutMs`. */
export async function waitForDeliveries(server: TestServer, appId: string, check: (list: Json[]) => boolean, name = 'hook', timeoutMs = 15_000): Promise<Json[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await deliveries(server, appId, name);
    if (check(list)) return list;
    if (Date.now() > deadline) throw new Error(`timed out waiting for deliveries; last: ${JSON.stringify(list)}`);
    await sleep(50);
  }
}
