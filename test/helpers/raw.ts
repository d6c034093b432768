// Requests written byte for byte, as a hostile client sends them: paths no URL parser would
// produce, WebSocket upgrades by hand, and requests from chosen loopback addresses (every
// 127.x.y.z is this machine, so a test can be many clients).

import { request } from 'node:http';
import { connect } from 'node:net';
import type { Json } from '../server/harness.js';

export interface RawReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `head` (request line and headers, without the blank line) and `body` over a new socket. */
export function rawHttp(base: string, head: string, body = ''): Promise<RawReply> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(new Error(`no answer to ${head.split('\r\n')[0]}`)), 10_000);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      const text = Buffer.concat(chunks).toString('latin1');
      const reply = parse(text);
      if (reply) {
        clearTimeout(timer);
        socket.destroy();
        resolve(reply);
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('end', () => {
      clearTimeout(timer);
      const reply = parse(Buffer.concat(chunks).toString('latin1'), true);
      if (reply) resolve(reply);
      else reject(new Error(`connection closed without a whole answer to ${head.split('\r\n')[0]}`));
    });
    const bytes = Buffer.from(`${head}\r\nHost: ${hostname}:${port}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`, 'latin1');
    socket.write(bytes);
  });
}

/** A whole HTTP/1.1 answer in `text`, or undefined while it is still arriving. */
function parse(text: string, ended = false): RawReply | undefined {
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = text.slice(split + 4);
  const length = headers['content-length'];
  if (length !== undefined && Buffer.byteLength(body, 'latin1') < Number(length)) return undefined;
  if (length === undefined && headers['transfer-encoding'] === 'chunked' && !ended && !body.endsWith('0\r\n\r\n')) return undefined;
  return { status, headers, body: headers['transfer-encoding'] === 'chunked' ? unchunk(body) : body };
}

function unchunk(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const eol = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, eol), 16);
    if (!(size > 0)) return out;
    out += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}

/** A WebSocket upgrade of `path` asking for `protocol`: the status line the server answers with. */
export function rawUpgrade(base: string, path: string, protocol = 'graphql-transport-ws'): Promise<RawReply> {
  return rawHttp(
    base,
    [`GET ${path} HTTP/1.1`, 'Upgrade: websocket', 'Connection: Upgrade', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Version: 13', `Sec-WebSocket-Protocol: ${protocol}`].join('\r\n'),
  );
}

/** POSTs a GraphQL operation from the loopback address `from` (e.g. 127.0.0.7). */
export function postFrom(from: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress: from, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json });
        } catch (err) {
          reject(err);
        }
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}
