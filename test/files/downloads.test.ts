// Downloads through the real server, on both stores and both storage drivers: every header of
// the contract, one byte range (206, 416), If-None-Match (304), and the signature — missing,
// tampered (signature, file, app, expiry) or expired → 403; a deleted file or app → 404.

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileUrlSigner } from '../../src/files/index.js';
import { admin, STORE_KINDS } from '../server/harness.js';
import { DRIVER_KINDS, createTestApp, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer, TestApp } from './harness.js';

const COMBOS = STORE_KINDS.flatMap((kind) => DRIVER_KINDS.map((driver) => [kind, driver] as const));
const SECRET = 'a test secret of the file urls';

async function codeOf(response: Response): Promise<string> {
  return ((await response.json()) as { errors: { extensions: { code: string } }[] }).errors[0]?.extensions.code ?? '';
}

describe.each(STORE_KINDS)('downloads with compression on (%s store)', (kind) => {
  it('sends the bytes as stored, with their length and ranges, whatever the client accepts', async () => {
    const fs = await startFileServer(kind, 'disk', { compression: true });
    try {
      const app = await createTestApp(fs.server, '');
      const alice = await signUp(app, 'alice');
      const text = 'compressible '.repeat(1000);
      const file = (await uploadFile(app, alice.headers, { filename: 'a.txt', type: 'text/plain', bytes: text })).body.data.createFile.changedFile;
      const whole = await fetch(file.url, { headers: { 'accept-encoding': 'gzip, br' } });
      expect(whole.headers.get('content-encoding')).toBeNull();
      expect(whole.headers.get('content-length')).toBe(String(text.length));
      expect(await whole.text()).toBe(text);
      const part = await fetch(file.url, { headers: { 'accept-encoding': 'gzip, br', range: 'bytes=0-11' } });
      expect(part.status).toBe(206);
      expect(await part.text()).toBe('compressible');
    } finally {
      await fs.close();
    }
  });
});

describe.each(COMBOS)('downloads (%s store, %s storage)', (kind, driver) => {
  let fs: FileServer;
  let app: TestApp;
  let headers: Record<string, string>;
  const bytes = randomBytes(100_000);
  let file: { id: string; url: string; sha256: string };

  beforeAll(async () => {
    fs = await startFileServer(kind, driver);
    app = await createTestApp(fs.server, '');
    headers = (await signUp(app, 'alice')).headers;
    const reply = await uploadFile(app, headers, { filename: 'Résumé "final".pdf', type: 'application/pdf', bytes });
    file = reply.body.data.createFile.changedFile;
  });
  afterAll(async () => fs?.close());

  it('streams the bytes with every header of the contract', async () => {
    const response = await fetch(file.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('etag')).toBe(`"${file.sha256}"`);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(response.headers.get('content-disposition')).toBe(`inline; filename="R_sum_ _final_.pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22.pdf`);
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('answers HEAD with the headers and no body', async () => {
    const response = await fetch(file.url, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(`"${file.sha256}"`);
    expect((await response.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers one byte range with 206 and Content-Range', async () => {
    const middle = await fetch(file.url, { headers: { range: 'bytes=1000-1999' } });
    expect(middle.status).toBe(206);
    expect(middle.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(middle.headers.get('content-length')).toBe('1000');
    expect(Buffer.from(await middle.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    const tail = await fetch(file.url, { headers: { range: 'bytes=-10' } });
    expect(tail.status).toBe(206);
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    const open = await fetch(file.url, { headers: { range: `bytes=${bytes.length - 5}-` } });
    expect(open.headers.get('content-range')).toBe(`bytes ${bytes.length - 5}-${bytes.length - 1}/${bytes.length}`);
    expect((await open.arrayBuffer()).byteLength).toBe(5);
  });

  it('answers a range past the end with 416, and an If-Range of another version with the whole file', async () => {
    const past = await fetch(file.url, { headers: { range: `bytes=${bytes.length}-` } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${bytes.length}`);
    await past.arrayBuffer();
    const stale = await fetch(file.url, { headers: { range: 'bytes=0-9', 'if-range': '"another"' } });
    expect(stale.status).toBe(200);
    expect((await stale.arrayBuffer()).byteLength).toBe(bytes.length);
  });

  it('answers 304 to If-None-Match with its ETag', async () => {
    const response = await fetch(file.url, { headers: { 'if-none-match': `"other", "${file.sha256}"` } });
    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(`"${file.sha256}"`);
    const changed = await fetch(file.url, { headers: { 'if-none-match': '"other"' } });
    expect(changed.status).toBe(200);
    await changed.arrayBuffer();
  });

  it('refuses a missing, tampered or expired signature with 403', async () => {
    const url = new URL(file.url);
    const expires = url.searchParams.get('expires') as string;
    const signature = url.searchParams.get('signature') as string;
    const variants: [string, string][] = [
      ['no signature', `${url.origin}${url.pathname}`],
      ['no expiry', `${url.origin}${url.pathname}?signature=${signature}`],
      ['a changed signature', `${url.origin}${url.pathname}?expires=${expires}&signature=${signature.replace(/^./, (c) => (c === '0' ? '1' : '0'))}`],
      ['a later expiry', `${url.origin}${url.pathname}?expires=${Number(expires) + 60}&signature=${signature}`],
      ['garbage', `${url.origin}${url.pathname}?expires=x&signature=<script>`],
    ];
    for (const [what, variant] of variants) {
      const response = await fetch(variant);
      expect(response.status, what).toBe(403);
      expect(await codeOf(response), what).toBe('FORBIDDEN');
    }
    // Correctly signed by this server's key, but expired.
    const past = Math.floor(Date.now() / 1000) - 10;
    const expired = await fetch(`${url.origin}${url.pathname}?expires=${past}&signature=${new FileUrlSigner(SECRET).sign(app.id, file.id, past)}`);
    expect(expired.status).toBe(403);
    expect(await codeOf(expired)).toBe('FORBIDDEN');
  });

  it("does not open another file, or another app's, with a file's signature", async () => {
    const other = (await uploadFile(app, headers, { filename: 'other.txt', bytes: 'other' })).body.data.createFile.changedFile;
    const url = new URL(file.url);
    const swapped = await fetch(`${url.origin}/files/${app.id}/${other.id}${url.search}`);
    expect(swapped.status).toBe(403);
    const elsewhere = await createTestApp(fs.server, '');
    const moved = await fetch(`${url.origin}/files/${elsewhere.id}/${file.id}${url.search}`);
    expect(moved.status).toBe(403);
  });

  it('answers 404 for a deleted file and for a deleted app', async () => {
    const doomed = (await uploadFile(app, headers, { filename: 'doomed.txt', bytes: 'doomed' })).body.data.createFile.changedFile;
    const deleted = await app.gql('mutation($i: DeleteFileInput!) { deleteFile(input: $i) { changedFile { name } } }', { i: { id: doomed.id } }, headers);
    expect(deleted.body.data.deleteFile.changedFile.name).toBe('doomed.txt');
    const gone = await fetch(doomed.url);
    expect(gone.status).toBe(404);
    expect(await codeOf(gone)).toBe('NOT_FOUND');

    const second = await createTestApp(fs.server, '');
    const carol = await signUp(second, 'carol');
    const kept = (await uploadFile(second, carol.headers, { filename: 'kept.txt', bytes: 'kept' })).body.data.createFile.changedFile;
    expect((await fetch(kept.url)).status).toBe(200);
    const removed = await admin(fs.server, 'mutation($i: DeleteAppInput!) { deleteApp(input: $i) { deleted } }', { i: { appId: second.id } });
    expect(removed.body.data.deleteApp.deleted).toBe(true);
    const appGone = await fetch(kept.url);
    expect(appGone.status).toBe(404);
    expect(await codeOf(appGone)).toBe('NOT_FOUND');
  });

  it('never answers 5xx for malformed paths', async () => {
    const url = new URL(file.url);
    for (const path of [`/files/${app.id}/%00${url.search}`, `/files/..%2F..%2Fetc/passwd${url.search}`, `/files/${'a'.repeat(2000)}/${file.id}${url.search}`, `/files/${app.id}/${'x'.repeat(300)}`]) {
      const response = await fetch(`${url.origin}${path}`);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(response.status, path).toBeLessThan(500);
    }
  });
});
