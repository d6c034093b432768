// Closing the server while a download streams out on a kept-alive connection: the download
// finishes, and the connection is closed as soon as it has, so the shutdown does not wait for
// the client's keep-alive (Node would otherwise hold the server open for its keep-alive
// timeout, 72 s, well past this test's own time limit).

import { createHash, randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORE_KINDS } from '../server/harness.js';
import { createTestApp, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer } from './harness.js';

const SIZE = 8 * 1024 * 1024;

describe.each(STORE_KINDS)('shutdown during a download (%s)', (kind) => {
  let fs: FileServer;
  beforeAll(async () => {
    fs = await startFileServer(kind, 'disk');
  });
  afterAll(async () => fs?.close());

  it('lets the download finish, then closes its kept-alive connection', async () => {
    const app = await createTestApp(fs.server, 'type Note @model { text: String }');
    const alice = await signUp(app, 'alice');
    const bytes = randomBytes(SIZE);
    const reply = await uploadFile(app, alice.headers, { filename: 'big.bin', bytes });
    expect(reply.body.errors).toBeUndefined();
    const url: string = reply.body.data.createFile.changedFile.url;

    const agent = new Agent({ keepAlive: true, keepAliveMsecs: 60_000 });
    const response = await new Promise<IncomingMessage>((resolve, reject) => get(url, { agent }, resolve).on('error', reject));
    expect(response.statusCode).toBe(200);
    // Nothing read yet: the server's response is still under way when the shutdown begins.
    response.pause();
    const socket = response.socket as Socket;
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const closing = fs.server.app.close();

    const hash = createHash('sha256');
    let received = 0;
    response.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      received += chunk.length;
    });
    await new Promise<void>((resolve, reject) => response.on('end', resolve).on('error', reject).resume());
    expect(received).toBe(SIZE);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(bytes).digest('hex'));
    // The server closed the connection the client would have kept, and finished closing.
    await socketClosed;
    await closing;
    expect(socket.destroyed).toBe(true);
    agent.destroy();
  });
});
