// EventStream: events wait until the protocol pipes the stream to its connection, then go
// straight to it, in order, none lost, queued only while the connection is backed up; a
// subscriber too slow is ended.

import type { FormattedExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { EventStream } from '../../src/realtime/stream.js';
import type { EventSink } from '../../src/realtime/stream.js';

const event = (n: number): FormattedExecutionResult => ({ data: { n } });

/** A connection that takes events while `open`, and tells those waiting when it opens again. */
class Connection implements EventSink {
  written: number[] = [];
  open = true;
  #waiting: (() => void)[] = [];
  ready(): boolean {
    return this.open;
  }
  write(result: FormattedExecutionResult): void {
    this.written.push((result.data as { n: number }).n);
  }
  whenReady(then: () => void): void {
    this.#waiting.push(then);
  }
  get waiting(): number {
    return this.#waiting.length;
  }
  drain(): void {
    this.open = true;
    const told = this.#waiting;
    this.#waiting = [];
    for (const then of told) then();
  }
}

function stream(limit = 4) {
  const calls = { ended: 0, overflowed: 0 };
  const s = new EventStream(
    () => void calls.ended++,
    () => void calls.overflowed++,
    limit,
  );
  return { s, calls };
}

describe('EventStream', () => {
  it('piped: writes each event to the connection at once, the ones queued before first', async () => {
    const { s } = stream();
    s.push(event(1));
    s.push(event(2));
    const connection = new Connection();
    s.pipe(connection);
    expect(connection.written).toEqual([1, 2]);
    s.push(event(3));
    expect(connection.written).toEqual([1, 2, 3]);
  });

  it('piped: queues while the connection is backed up, and writes the queue in order once it drains', async () => {
    const { s, calls } = stream();
    const connection = new Connection();
    s.pipe(connection);
    s.push(event(1));
    connection.open = false;
    s.push(event(2));
    s.push(event(3));
    expect(connection.written).toEqual([1]);
    // One wait, however many events are queued.
    expect(connection.waiting).toBe(1);
    connection.drain();
    expect(connection.written).toEqual([1, 2, 3]);
    // Once open, a new event does not overtake queued ones: there are none left.
    s.push(event(4));
    expect(connection.written).toEqual([1, 2, 3, 4]);
    expect(calls.overflowed).toBe(0);
  });

  it('piped: a drain that leaves the connection backed up writes what it can and waits again', () => {
    const { s } = stream();
    const connection = new Connection();
    s.pipe(connection);
    connection.open = false;
    s.push(event(1));
    s.push(event(2));
    // Room for one event only.
    connection.write = function (result) {
      Connection.prototype.write.call(this, result);
      this.open = false;
    };
    connection.drain();
    expect(connection.written).toEqual([1]);
    expect(connection.waiting).toBe(1);
    // A new event goes behind the queued one.
    s.push(event(3));
    connection.write = Connection.prototype.write;
    connection.drain();
    expect(connection.written).toEqual([1, 2, 3]);
  });

  it('piped: ends a subscriber whose queue fills up, and drops what it held', () => {
    const { s, calls } = stream(2);
    const connection = new Connection();
    s.pipe(connection);
    connection.open = false;
    s.push(event(1));
    s.push(event(2));
    expect(calls.overflowed).toBe(0);
    s.push(event(3));
    expect(calls).toEqual({ ended: 1, overflowed: 1 });
    expect(s.ended).toBe(true);
    connection.drain();
    s.push(event(4));
    expect(connection.written).toEqual([]);
  });

  it('ends a subscriber whose queue fills up before the stream is piped', () => {
    const { s, calls } = stream(2);
    s.push(event(1));
    s.push(event(2));
    s.push(event(3));
    expect(calls).toEqual({ ended: 1, overflowed: 1 });
    const connection = new Connection();
    s.pipe(connection);
    expect(connection.written).toEqual([]);
  });

  it('settles `finished` when it ends, and writes nothing after', async () => {
    const { s, calls } = stream();
    const connection = new Connection();
    s.pipe(connection);
    let settled = false;
    void s.finished.then(() => (settled = true));
    s.push(event(1));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(connection.written).toEqual([1]);
    s.end();
    await s.finished;
    expect(settled).toBe(true);
    expect(calls).toEqual({ ended: 1, overflowed: 0 });
    s.push(event(2));
    expect(connection.written).toEqual([1]);
  });
});
