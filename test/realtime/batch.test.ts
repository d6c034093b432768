// DeliveryBatch on real TCP sockets: frames go out at once while the hub keeps up; while
// notifications wait, each socket's frames are held and then written together, for at most
// MAX_HELD_NOTIFICATIONS notifications or MAX_HOLD_MS, and no longer than the backlog lasts
// (a notification with no subscriber here ends it too).

import { once } from 'node:events';
import { createServer, connect } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeliveryBatch, MAX_HELD_NOTIFICATIONS, MAX_HOLD_MS } from '../../src/realtime/batch.js';

/** A connected pair: `sender` writes, and each chunk `chunks` receives is one read on the other end. */
interface Pair {
  sender: Socket;
  chunks: string[];
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('DeliveryBatch', () => {
  let server: Server;
  let pairs: Pair[];

  beforeEach(async () => {
    pairs = [];
    server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterEach(async () => {
    for (const { sender } of pairs) sender.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  async function pair(): Promise<Pair> {
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const sender = connect((server.address() as { port: number }).port, '127.0.0.1');
    sender.setNoDelay(true);
    await once(sender, 'connect');
    const [receiver] = await accepted;
    const chunks: string[] = [];
    receiver.on('data', (data: Buffer) => chunks.push(data.toString()));
    const made = { sender, chunks };
    pairs.push(made);
    return made;
  }

  it('writes frames at once while the hub keeps up', async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    batch.begin(false);
    batch.hold(a.sender);
    expect(a.sender.writableCorked).toBe(0);
    a.sender.write('one');
    expect(a.sender.writableLength).toBe(0);
    batch.end(false);
    await until(() => a.chunks.join('') === 'one', 'the frame');
    expect(batch.holding).toBe(false);
  });

  it('holds the frames of a backlog and writes each socket\'s frames in one write', async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    const b = await pair();
    // Two notifications waited: the first is handled with another behind it.
    batch.begin(true);
    for (const { sender } of [a, b]) {
      batch.hold(sender);
      sender.write('1;');
    }
    batch.end(true);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(1);
    expect(a.sender.writableLength).toBe(2);
    expect(a.chunks).toEqual([]);
    // The second, with nothing behind it: once it is done, everything goes out.
    batch.begin(false);
    for (const { sender } of [a, b]) {
      batch.hold(sender);
      batch.hold(sender);
      sender.write('2;');
    }
    batch.end(false);
    expect(a.sender.writableCorked).toBe(1);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(0);
    await until(() => a.chunks.join('') === '1;2;' && b.chunks.join('') === '1;2;', 'both frames on both sockets');
    // One read each: the two frames left in one write.
    expect(a.chunks).toEqual(['1;2;']);
    expect(b.chunks).toEqual(['1;2;']);
    expect(batch.holding).toBe(false);
  });

  it(`writes after ${MAX_HELD_NOTIFICATIONS} notifications, however long the backlog`, async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    for (let n = 1; n <= MAX_HELD_NOTIFICATIONS; n++) {
      batch.begin(true);
      batch.hold(a.sender);
      a.sender.write(`${n};`);
      batch.end(true);
      await nextTurn();
      expect(a.sender.writableCorked).toBe(n < MAX_HELD_NOTIFICATIONS ? 1 : 0);
    }
    const held = Array.from({ length: MAX_HELD_NOTIFICATIONS }, (_, i) => `${i + 1};`).join('');
    await until(() => a.chunks.join('') === held, 'the held frames');
    // The backlog goes on: the next notification holds again.
    batch.begin(true);
    batch.hold(a.sender);
    expect(a.sender.writableCorked).toBe(1);
    batch.end(false);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(0);
  });

  it(`writes once a notification ends ${MAX_HOLD_MS} ms or more after the holding began`, async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    batch.begin(true);
    batch.hold(a.sender);
    a.sender.write('slow;');
    await new Promise((resolve) => setTimeout(resolve, MAX_HOLD_MS + 5));
    batch.end(true);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(0);
    await until(() => a.chunks.join('') === 'slow;', 'the held frame');
  });

  it('keeps holding for a notification begun before the write', async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    batch.begin(true);
    batch.hold(a.sender);
    a.sender.write('1;');
    batch.end(false);
    // The next one starts before the write happens (its statement is under way).
    batch.begin(false);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(0);
    expect(batch.holding).toBe(true);
    batch.hold(a.sender);
    a.sender.write('2;');
    expect(a.sender.writableCorked).toBe(1);
    batch.end(false);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(0);
    await until(() => a.chunks.join('') === '1;2;', 'both frames');
  });

  it('writes what is held when the backlog ends with a notification that has no subscriber here', async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    // A notification with a subscriber here is handled while another waits behind it …
    batch.begin(true);
    batch.hold(a.sender);
    a.sender.write('mine;');
    batch.end(true);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(1);
    // … and that other one is an app with no subscriber on this instance, the last for now.
    batch.end(false);
    await nextTurn();
    expect(a.sender.writableCorked).toBe(0);
    await until(() => a.chunks.join('') === 'mine;', 'the held frame');
    expect(batch.holding).toBe(false);
  });

  it(`writes what is held after ${MAX_HOLD_MS} ms though no notification ends`, async () => {
    const batch = new DeliveryBatch();
    const a = await pair();
    batch.begin(true);
    batch.hold(a.sender);
    a.sender.write('1;');
    batch.end(true);
    // The next notification starts and takes its time (a slow statement): the frame goes out anyway.
    batch.begin(false);
    await until(() => a.chunks.join('') === '1;', 'the held frame');
    expect(a.sender.writableCorked).toBe(0);
    // Frames of the notification under way are held again, and go out when it ends.
    expect(batch.holding).toBe(true);
    batch.hold(a.sender);
    a.sender.write('2;');
    expect(a.sender.writableCorked).toBe(1);
    batch.end(false);
    await until(() => a.chunks.join('') === '1;2;', 'the second frame');
  });
});
