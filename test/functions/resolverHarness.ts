// What the resolver tests share: an app endpoint (a real `node:http` server) that checks each
// call's signature and answers per operation as the test says — JSON, text, any status, late —
// and records the calls in the order they start and end; and the app schema with custom fields.

import { createServer } from 'node:http';
import type { IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/functions/index.js';
import type { Json } from '../server/harness.js';
import { sleep } from '../helpers/wait.js';

/** How the endpoint answers one call. */
export interface Answer {
  status?: number;
  /** Sent as JSON unless `text` is given. */
  json?: unknown;
  text?: string;
  contentType?: string;
  /** Answers this late (a test of the function's timeout). */
  delayMs?: number;
}

export interface ResolverCall {
  headers: IncomingHttpHeaders;
  raw: string;
  body: Json;
  verified: boolean;
}

/** The app's endpoint: answers each operation with its handler (`{ data: null }` by default). */
export class ResolverEndpoint {
  readonly calls: ResolverCall[] = [];
  /** `start:<operation>` and `end:<operation>` in the order they happened. */
  readonly timeline: string[] = [];
  readonly handlers = new Map<string, (body: Json) => Answer>();
  secret = '';
  #server: Server | undefined;
  #port = 0;

  static async start(): Promise<ResolverEndpoint> {
    const endpoint = new ResolverEndpoint();
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as Json;
        endpoint.calls.push({ headers: request.headers, raw, body, verified: verifySignature(endpoint.secret, request.headers['tessera-signature'] as string | undefined, raw) });
        endpoint.timeline.push(`start:${body.operation}`);
        const answer = endpoint.handlers.get(body.operation)?.(body) ?? { json: { data: null } };
        const send = () => {
          endpoint.timeline.push(`end:${body.operation}`);
          const text = answer.text ?? JSON.stringify(answer.json);
          response.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'application/json' }).end(text);
        };
        if (answer.delayMs) void sleep(answer.delayMs).then(send);
        else send();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    endpoint.#server = server;
    endpoint.#port = (server.address() as AddressInfo).port;
    return endpoint;
  }

  get port(): number {
    return this.#port;
  }

  url(host = '127.0.0.1'): string {
    return `http://${host}:${this.#port}/resolve`;
  }

  /** The calls made for one operation (a custom field's name). */
  callsOf(operation: string): ResolverCall[] {
    return this.calls.filter((c) => c.body.operation === operation);
  }

  async close(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The app's data: posts readable by their author only (and app admins), embedded and enum types for answers. */
export const BASE_SCHEMA = `
enum Side { BUY SELL }
type Price { amount: Float! currency: String at: DateTime tags: [String] }
type Quote { symbol: String! side: Side price: Price history: [Price] }
type User @model { posts: [Post] @relation(name: "PostAuthor") }
type Post @model
  @permission(scope: RELATION, userFields: ["author"], read: true, update: true)
  @permission(scope: AUTHENTICATED, create: true) {
  title: String!
  secretNote: String @permission(scope: ROLE, roles: ["Editors"], read: true)
  author: User @relation(name: "PostAuthor")
}
type Tag @model @permission(scope: EVERYONE, read: true) { name: String! }
`;

/** The custom fields, all answered by the RESOLVER function "r". */
export const CUSTOM_FIELDS = `
extend type Query {
  echo(text: String, n: Int, sides: [Side!], at: DateTime, price: Price, data: JSON, long: Text): JSON @function(name: "r") @permission(scope: EVERYONE, read: true)
  quote(symbol: String!): Quote @function(name: "r") @permission(scope: EVERYONE, read: true)
  quotes: [Quote]! @function(name: "r") @permission(scope: EVERYONE, read: true)
  count: Int! @function(name: "r") @permission(scope: AUTHENTICATED, read: true)
  side: Side @function(name: "r") @permission(scope: EVERYONE, read: true)
  sides: [Side!]! @function(name: "r") @permission(scope: EVERYONE, read: true)
  when: DateTime @function(name: "r") @permission(scope: EVERYONE, read: true)
  adminOnly: String @function(name: "r")
  editorsOnly: String @function(name: "r") @permission(scope: ROLE, roles: ["Editors"], read: true)
  post: Post @function(name: "r") @permission(scope: EVERYONE, read: true)
  posts: [Post]! @function(name: "r") @permission(scope: EVERYONE, read: true)
  tag: Tag @function(name: "r") @permission(scope: EVERYONE, read: true)
  slow: Int @function(name: "slow") @permission(scope: EVERYONE, read: true)
}
extend type Mutation {
  publish(postId: ID!, note: String): Post @function(name: "r") @permission(scope: AUTHENTICATED, create: true)
  step(n: Int!): Int @function(name: "r") @permission(scope: EVERYONE, create: true)
  purge: Int @function(name: "r")
}
`;
