// The HTTP side of the benchmark: GraphQL POSTs with a bearer token over keep-alive
// connections. It uses node:http rather than fetch: on the reference machine fetch alone costs
// more CPU per request than the server under test, so it would measure the client.

import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface HttpReply {
  status: number;
  text: string;
}

/**
 * Who a request is from: a bearer token (empty: an anonymous caller), or the headers a peer's
 * server wants instead (Parse Server's application id and master key).
 */
export type Credentials = string | Readonly<Record<string, string>>;

function credentialHeaders(credentials: Credentials): Record<string, string> {
  if (typeof credentials !== 'string') return { ...credentials };
  return credentials ? { authorization: `Bearer ${credentials}` } : {};
}

export function post(url: string, credentials: Credentials, body: string): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...credentialHeaders(credentials) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** A GraphQL operation whose parsed reply is looked into (set-up and checks, not timed). */
export async function postJson(url: string, credentials: Credentials, query: string, variables: Record<string, unknown>): Promise<unknown> {
  const reply = await post(url, credentials, JSON.stringify({ query, variables }));
  if (reply.status !== 200) throw new Error(`POST ${url}: HTTP ${reply.status} ${reply.text.slice(0, 500)}`);
  return JSON.parse(reply.text);
}

/**
 * One timed GraphQL request: the body is read whole but not parsed (the direct-SQL baseline
 * does not parse its JSON either); an error in it fails the benchmark.
 */
export async function postGraphql(url: string, credentials: Credentials, body: string): Promise<string> {
  const reply = await post(url, credentials, body);
  if (reply.status !== 200 || reply.text.startsWith('{"errors"') || reply.text.includes(',"errors":[')) {
    throw new Error(`GraphQL request failed: HTTP ${reply.status} ${reply.text.slice(0, 500)}`);
  }
  return reply.text;
}

/** Lets the process exit: keep-alive sockets would hold it open. */
export function closeConnections(): void {
  agent.destroy();
}
