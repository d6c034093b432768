// Fuzzing the server's edge on both stores, where a request is not yet a GraphQL operation:
// made-up app ids and other path segments on every route (raw and percent-encoded bytes,
// traversal, huge segments), hostile header sets on the data API (garbage and forged
// credentials, odd media types, forwarding headers, oversized and malformed headers), and
// WebSocket sessions opened with random subprotocols and `connection_init` payloads followed by
// random frames. No answer may be a 5xx or an unmasked error, no WebSocket may be closed as an
// internal failure, the server logs no error and stays up.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { STORE_KINDS, admin, startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { rawHttp } from '../helpers/raw.js';
import { Choose } from './fuzz/choose.js';
import { Tally, checkReply } from './fuzz/checks.js';
import { headerRequest, initPayload, laterFrame, pathRequest, subprotocol } from './fuzz/edgeGen.js';
import type { RawRequest } from './fuzz/edgeGen.js';

/** Requests per kind and store (TESSERA_FUZZ_EDGE_REQUESTS). */
const REQUESTS = Number(process.env.TESSERA_FUZZ_EDGE_REQUESTS ?? 200);

interface Credentials {
  adminToken: string;
  userToken: string;
  otherToken: string;
  platformKey: string;
}

async function sendRaw(server: TestServer, request: RawRequest, tally: Tally): Promise<void> {
  const reply = await rawHttp(server.base, request.head, request.body);
  const fuzzRequest = { kind: request.kind, method: request.head.split(' ')[0] ?? '?', search: request.head.split(' ')[1]?.slice(0, 300), headers: {} };
  if (request.anyBody || reply.headers['content-type']?.startsWith('text/html')) {
    tally.requests += 1;
    tally.count(tally.byKind, request.kind);
    tally.count(tally.byStatus, reply.status);
    if (reply.status >= 500) throw new Error(`HTTP ${reply.status} for ${request.head.slice(0, 300)}`);
    return;
  }
  checkReply(fuzzRequest, { status: reply.status, contentType: reply.headers['content-type'] ?? '', text: reply.body }, tally);
}

interface SocketOutcome {
  code: number;
  reason: string;
  /** What was sent, to read when a session fails. */
  sent?: string;
}

/** One WebSocket session: connect, init with a random payload, a few random frames, then see how it ends. */
function socketSession(endpoint: string, c: Choose, real: Credentials): Promise<SocketOutcome> {
  const protocol = subprotocol(c);
  const query = c.chance(0.2) ? `?Authorization=${encodeURIComponent(c.pick([`Bearer ${real.userToken}`, 'Bearer x', '%00', 'x'.repeat(3000)]))}` : '';
  const init = initPayload(c, real);
  const frames = Array.from({ length: c.int(0, 4) }, () => laterFrame(c));
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${endpoint.replace(/^http/, 'ws')}${query}`, protocol === undefined ? [] : [protocol]);
    let ended = false;
    const sent = JSON.stringify({ protocol, query: query.slice(0, 100), init: init?.slice(0, 300), frames: frames.map((f) => (typeof f === 'string' ? f.slice(0, 300) : `<${f.length} bytes>`)) });
    const finish = (outcome: SocketOutcome) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      resolve({ ...outcome, sent });
    };
    // A session the server keeps open is fine: we end it ourselves.
    const timer = setTimeout(() => {
      socket.close(1000, 'done');
      finish({ code: 1000, reason: 'kept open' });
    }, 150);
    socket.on('open', () => {
      if (init !== undefined) socket.send(`{"type":"connection_init","payload":${init}}`);
      for (const frame of frames) socket.send(frame);
    });
    socket.on('close', (code, reason) => finish({ code, reason: String(reason) }));
    // The upgrade refused over HTTP (404, 4406-like refusals of an unknown subprotocol).
    socket.on('unexpected-response', (_req, res) => {
      if ((res.statusCode ?? 500) >= 500) reject(new Error(`upgrade answered ${res.statusCode}`));
      finish({ code: -(res.statusCode ?? 0), reason: 'refused upgrade' });
      socket.terminate();
    });
    // The client's own refusal of a handshake that selected none of the subprotocols it asked
    // for: the server declined them (and would close with 4406), nothing failed.
    socket.on('error', (err) => {
      if (/no subprotocol/i.test(err.message)) finish({ code: 4406, reason: 'no subprotocol selected' });
    });
  });
}

/** Close codes that say the server failed, not the client. */
function internalClose(outcome: SocketOutcome): boolean {
  return outcome.code === 4500 || outcome.code === 1006 || /internal/i.test(outcome.reason);
}

describe.each(STORE_KINDS)('fuzzing the edge (%s store)', (kind) => {
  let server: TestServer;
  let app: TestApp;
  let real: Credentials;
  const errorLines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { logLevel: 'error', logDestination: { write: (line) => void errorLines.push(line.slice(0, 4000)) } });
    app = await createTestApp(server, 'type Note @model @permission(scope: EVERYONE, read: true) { text: String }');
    const other = await createTestApp(server, 'type Note @model { text: String }');
    const user = await app.data('mutation { createUser(input: { username: "fuzzy", password: "pw-123456" }) { token } }');
    real = { adminToken: app.token, userToken: user.createUser.token, otherToken: other.token, platformKey: server.key };
  });
  afterAll(async () => {
    if (errorLines.length > 0) console.log(`server errors (${kind}):\n${errorLines.join('\n')}`);
    await server?.close();
  });

  async function property(run: (c: Choose) => Promise<void>): Promise<void> {
    await fc.assert(fc.asyncProperty(fc.gen(), (g) => run(new Choose(g))), { numRuns: REQUESTS, endOnFailure: true });
  }

  async function stillUp(): Promise<void> {
    expect(errorLines).toEqual([]);
    expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    expect((await app.gql('{ viewer { allNotes { aggregations { count } } } }')).body.errors).toBeUndefined();
  }

  it('answers made-up path segments on every route with a coded 4xx', async () => {
    const tally = new Tally();
    await property((c) => sendRaw(server, pathRequest(c, app.id), tally));
    console.log(`edge fuzz, paths (${kind}): ${tally.summary()}`);
    expect(tally.byStatus.get(404) ?? 0).toBeGreaterThan(REQUESTS / 3);
    await stillUp();
  }, 120_000);

  it('answers hostile header sets with a coded answer, never a 5xx', async () => {
    const tally = new Tally();
    await property((c) => sendRaw(server, headerRequest(c, `/graphql/${app.id}`, real), tally));
    console.log(`edge fuzz, headers (${kind}): ${tally.summary()}`);
    // Some requests get through as the real admin or user, most are refused.
    expect(tally.clean).toBeGreaterThan(0);
    expect(tally.byStatus.get(401) ?? 0).toBeGreaterThan(0);
    await stillUp();
  }, 120_000);

  it('ends WebSocket sessions with random subprotocols, init payloads and frames without an internal failure', async () => {
    const outcomes = new Map<string, number>();
    await property(async (c) => {
      const outcome = await socketSession(app.endpoint, c, real);
      outcomes.set(String(outcome.code), (outcomes.get(String(outcome.code)) ?? 0) + 1);
      if (internalClose(outcome)) throw new Error(`closed as an internal failure: ${JSON.stringify(outcome)}`);
    });
    console.log(`edge fuzz, websocket (${kind}): ${REQUESTS} sessions; endings by close code (negative: HTTP status of a refused upgrade): ${[...outcomes].map(([k, n]) => `${k} ${n}`).join(', ')}`);
    // The run reached both refusals and sessions the server accepted and kept open.
    expect(outcomes.get('1000') ?? 0).toBeGreaterThan(0);
    expect(outcomes.size).toBeGreaterThan(2);
    await stillUp();
    // Connections are not left behind.
    const metrics = await (await fetch(`${server.base}/metrics`)).text();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(/^tessera_subscriptions (\d+)$/m.exec(metrics)?.[1]).toBe('0');
    await admin(server, '{ apps { id } }');
  }, 120_000);
});
