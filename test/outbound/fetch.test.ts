// Outbound calls made for an app, against real local HTTP servers: private, loopback and
// link-local addresses refused unless allowed — by literal address and by a name resolving to
// one —, redirects answered, not followed, answers capped, slow peers cut off.

import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundError, isPrivateAddress, outboundFetch } from '../../src/outbound/index.js';

let server: Server;
let base: string;
let hits = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits += 1;
    if (req.url === '/redirect') return void res.writeHead(302, { location: '/target' }).end();
    if (req.url === '/big') return void res.writeHead(200).end(Buffer.alloc(2048, 'x'));
    if (req.url === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 2000);
    if (req.url === '/echo') {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null })));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['::', true],
    ['fd00::1', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', true],
    ['8.8.8.8', false],
    ['93.184.216.34', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('outboundFetch', () => {
  it('refuses a private address, literal or resolved from a name, without connecting', async () => {
    const before = hits;
    await expect(outboundFetch(`${base}/`, {}, { allowPrivate: false })).rejects.toThrow(/TESSERA_FUNCTIONS_ALLOW_PRIVATE/);
    await expect(outboundFetch(base.replace('127.0.0.1', 'localhost') + '/', {}, { allowPrivate: false })).rejects.toThrow(/localhost resolves to/);
    await expect(outboundFetch('ftp://example.com/', {}, { allowPrivate: true })).rejects.toBeInstanceOf(OutboundError);
    expect(hits).toBe(before);
  });

  it('calls when allowed, with the method, headers and body given', async () => {
    const response = await outboundFetch(`${base}/echo`, { method: 'POST', headers: { authorization: 'Basic eDp5', 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ a: '1' }) }, { allowPrivate: true });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ method: 'POST', body: 'a=1', auth: 'Basic eDp5' });
  });

  it('answers a redirect as it is, never following it', async () => {
    const before = hits;
    const response = await outboundFetch(`${base}/redirect`, {}, { allowPrivate: true });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/target');
    expect(hits).toBe(before + 1);
  });

  it('refuses an answer over the size cap, and a peer slower than the deadline', async () => {
    await expect(outboundFetch(`${base}/big`, {}, { allowPrivate: true, maxBodyBytes: 1024 })).rejects.toThrow(/larger than 1024 bytes/);
    expect((await outboundFetch(`${base}/big`, {}, { allowPrivate: true, maxBodyBytes: 4096 })).status).toBe(200);
    await expect(outboundFetch(`${base}/slow`, {}, { allowPrivate: true, timeoutMs: 200 })).rejects.toThrow(/within 200 ms/);
  });
});
