// BEFORE functions on createFile, through the real server with files on disk, on both stores:
// the hook is told of the uploaded file (its name, type, size and hash — never where it is
// stored) and may change the other fields, but what it answers in the file's place is ignored:
// the File keeps the bytes the client sent.

import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SecretBox, generateSecretKey } from '../../src/secrets/index.js';
import { STORE_KINDS, admin } from '../server/harness.js';
import { createTestApp, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer, Json, TestApp } from './harness.js';

const CREATE = 'mutation($i: CreateFunctionInput!) { createFunction(input: $i) { secret } }';

describe.each(STORE_KINDS)('BEFORE functions on createFile (%s)', (kind) => {
  let files: FileServer;
  let app: TestApp;
  let endpoint: Server;
  const received: Json[] = [];
  let answer: (input: Json) => Json = (input) => ({ input });

  beforeAll(async () => {
    endpoint = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (c: Buffer) => chunks.push(c));
      request.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        received.push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(body.input)));
      });
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', () => resolve()));
    files = await startFileServer(kind, 'disk', { functions: { secrets: new SecretBox(generateSecretKey()), allowPrivate: true } });
    app = await createTestApp(files.server, '');
    const url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/files`;
    const created = await admin(files.server, CREATE, { i: { appId: app.id, name: 'names', kind: 'BEFORE', url, operations: ['createFile'] } });
    expect(created.body.errors).toBeUndefined();
  });
  afterAll(async () => {
    await files?.close();
    endpoint?.closeAllConnections();
    await new Promise<void>((resolve) => endpoint?.close(() => resolve()));
  });

  it('tells the hook of the file and writes the fields it answers, with the bytes the client sent', async () => {
    const user = await signUp(app, `u${kind}`);
    const bytes = 'the bytes of the report';
    answer = (input) => ({ input: { ...input, name: `checked-${input.name}`, blob: 'a string in the file’s place' } });
    const reply = await uploadFile(app, user.headers, { filename: 'report.txt', type: 'text/plain', bytes }, { name: 'report.txt' });
    expect(reply.body.errors).toBeUndefined();
    const file = reply.body.data.createFile.changedFile;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(file).toMatchObject({ name: 'checked-report.txt', contentType: 'text/plain', size: bytes.length, sha256 });
    const call = received.at(-1);
    expect(call.operation).toBe('createFile');
    expect(call.input.blob).toEqual({ filename: 'report.txt', contentType: 'text/plain', size: bytes.length, sha256 });
    expect(JSON.stringify(call)).not.toContain(app.id + '/');
    const download = await fetch(file.url);
    expect(await download.text()).toBe(bytes);
  });

  it('refuses the upload when the hook refuses it, and keeps no bytes', async () => {
    const user = await signUp(app, `v${kind}`);
    answer = () => ({ error: { message: 'No executables' } });
    const reply = await uploadFile(app, user.headers, { filename: 'run.exe', bytes: 'MZ…' }, { name: 'run.exe' });
    expect(reply.body.errors[0]).toMatchObject({ message: 'No executables', extensions: { code: 'REJECTED' } });
    const stored = async () => (await files.stored(app.id)).length;
    const listed = await app.data('{ viewer { allFiles { edges { node { name } } } } }');
    expect(listed.viewer.allFiles.edges.map((e: Json) => e.node.name)).not.toContain('run.exe');
    // The refused upload's bytes are released once the answer is sent (removed by the worker).
    const deadline = Date.now() + 15_000;
    while ((await stored()) > 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await stored()).toBe(1);
  });
});
