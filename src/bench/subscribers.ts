// The realtime bench's subscribers: many graphql-transport-ws clients (one WebSocket connection
// and one subscription each) in the bench's own thread, recording when each event reaches each
// client. Each speaks the protocol itself over `ws` rather than through graphql-ws's client: on
// the bench's two cores that client spent about a third of the bench process's CPU per event
// (its message emitter, validation and subscription sinks), CPU the server under test then
// lacked. Every message is still parsed whole and checked: its type, its subscription id, and
// the event's fields.

import WebSocket from 'ws';

/** Milliseconds since the epoch with a fraction: comparable across this process's clocks. */
export const now = (): number => performance.timeOrigin + performance.now();

/** The subprotocol the clients speak (graphql-ws's, as the console's client does). */
const PROTOCOL = 'graphql-transport-ws';

/** The one subscription each connection opens. */
const SUBSCRIPTION_ID = '1';

/**
 * Every receipt: four numbers each, side by side in one growing typed array (not an object per
 * receipt: 1.5 million objects kept to the end cost the bench process collections that the
 * server would pay for on the shared cores).
 */
export class Receipts {
  static readonly #STRIDE = 4;
  #size = 0;
  #figures = new Float64Array(Receipts.#STRIDE << 16);

  get length(): number {
    return this.#size;
  }

  #figure(i: number, which: number): number {
    return this.#figures[i * Receipts.#STRIDE + which] as number;
  }

  /** Which event: the `seq` of the created row. */
  seq(i: number): number {
    return this.#figure(i, 0);
  }

  /** When the mutator sent it, from the row itself. */
  sentAt(i: number): number {
    return this.#figure(i, 1);
  }

  /**
   * When its transaction started, from the row's `createdAt` (PostgreSQL's `now()`, stored
   * rounded to the millisecond), less half a millisecond so that it is never later than the
   * start: the commit came after it.
   */
  startedAt(i: number): number {
    return this.#figure(i, 2);
  }

  /** When the client read the event. */
  at(i: number): number {
    return this.#figure(i, 3);
  }

  add(seq: number, sentAt: number, startedAt: number, at: number): void {
    const base = this.#size * Receipts.#STRIDE;
    if (base === this.#figures.length) {
      const bigger = new Float64Array(this.#figures.length * 2);
      bigger.set(this.#figures);
      this.#figures = bigger;
    }
    const figures = this.#figures;
    figures[base] = seq;
    figures[base + 1] = sentAt;
    figures[base + 2] = startedAt;
    figures[base + 3] = at;
    this.#size++;
  }
}

interface Message {
  type?: unknown;
  id?: unknown;
  payload?: { data?: Record<string, { value?: { seq?: unknown; sentAt?: unknown; createdAt?: unknown } | null } | null> | null; errors?: unknown } | null;
}

export interface OpenOptions {
  /** The app's endpoint, `http://…/graphql/<appId>`. */
  endpoint: string;
  /** Connection i authenticates with tokens[i % tokens.length]. */
  tokens: readonly string[];
  count: number;
  /** The subscription document; its root field's `value` selects `seq`, `sentAt` and `createdAt`. */
  query: string;
  /** Connections opening at once. */
  concurrency: number;
}

export class Subscribers {
  readonly #sockets: WebSocket[] = [];
  readonly #receipts = new Receipts();
  #duplicates = 0;
  #failures: string[] = [];
  #closing = false;

  private constructor() {}

  /** Opens `count` connections, each subscribed once; resolves when every one is acknowledged. */
  static async open(options: OpenOptions): Promise<Subscribers> {
    const subscribers = new Subscribers();
    let nextIndex = 0;
    const opener = async () => {
      for (let i = nextIndex++; i < options.count; i = nextIndex++) await subscribers.#openOne(options, i);
    };
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, opener));
    return subscribers;
  }

  #fail(i: number, what: string): void {
    this.#failures.push(`subscriber ${i}: ${what}`.slice(0, 300));
  }

  /**
   * Opens connection i: `connection_init` with the token, then, once acknowledged, `subscribe`.
   * Resolves on the acknowledgement; a connection that closes first rejects.
   */
  #openOne(options: OpenOptions, i: number): Promise<void> {
    const seen = new Set<number>();
    const receipts = this.#receipts;
    const socket = new WebSocket(options.endpoint.replace(/^http/, 'ws'), PROTOCOL);
    this.#sockets.push(socket);
    return new Promise((resolve, reject) => {
      let acknowledged = false;
      socket.on('open', () => {
        const token = options.tokens[i % options.tokens.length] as string;
        socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } }));
      });
      socket.on('error', (err) => {
        if (!acknowledged) reject(new Error(`subscriber ${i}: ${err.message}`));
        else this.#fail(i, err.message);
      });
      socket.on('close', (code, reason) => {
        if (!acknowledged) reject(new Error(`subscriber ${i}: connection closed (${code}) before it was acknowledged`));
        else if (!this.#closing) this.#fail(i, `connection closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''})`);
      });
      socket.on('message', (data: Buffer, isBinary: boolean) => {
        const at = now();
        let message: Message;
        try {
          message = JSON.parse(isBinary ? '' : data.toString('utf8')) as Message;
        } catch {
          this.#fail(i, `a message that is not JSON: ${data.toString('utf8').slice(0, 200)}`);
          return;
        }
        if (message.type === 'next' && message.id === SUBSCRIPTION_ID) {
          const value = Object.values(message.payload?.data ?? {})[0]?.value;
          const seq = value?.seq;
          const sentAt = value?.sentAt;
          const startedAt = typeof value?.createdAt === 'string' ? Date.parse(value.createdAt) - 0.5 : Number.NaN;
          if (typeof seq !== 'number' || typeof sentAt !== 'number' || !Number.isFinite(startedAt) || message.payload?.errors !== undefined) {
            this.#fail(i, `unexpected event ${JSON.stringify(message)}`);
            return;
          }
          if (seen.has(seq)) this.#duplicates++;
          else seen.add(seq);
          receipts.add(seq, sentAt, startedAt, at);
        } else if (message.type === 'connection_ack' && !acknowledged) {
          acknowledged = true;
          socket.send(JSON.stringify({ id: SUBSCRIPTION_ID, type: 'subscribe', payload: { query: options.query } }));
          resolve();
        } else if (message.type === 'ping') {
          socket.send('{"type":"pong"}');
        } else if (message.type !== 'pong') {
          this.#fail(i, `unexpected message ${JSON.stringify(message)}`);
        }
      });
    });
  }

  get receipts(): Receipts {
    return this.#receipts;
  }

  get duplicates(): number {
    return this.#duplicates;
  }

  /** Subscription errors, closed connections and malformed events, in the order they happened. */
  get failures(): readonly string[] {
    return this.#failures;
  }

  /** Waits until `expected` receipts have arrived, or none has for `quietMs`; returns the count. */
  async waitFor(expected: number, quietMs: number): Promise<number> {
    let last = this.#receipts.length;
    let lastChange = performance.now();
    while (this.#receipts.length < expected && performance.now() - lastChange < quietMs) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (this.#receipts.length !== last) {
        last = this.#receipts.length;
        lastChange = performance.now();
      }
    }
    return this.#receipts.length;
  }

  /** Closes every connection (1000, as a client that is done does) and waits until each has closed. */
  async close(): Promise<void> {
    this.#closing = true;
    await Promise.all(
      this.#sockets.map(
        (socket) =>
          new Promise<void>((resolve) => {
            if (socket.readyState === WebSocket.CLOSED) return resolve();
            socket.once('close', () => resolve());
            socket.close(1000, 'Normal Closure');
          }),
      ),
    );
  }
}

/** A gauge from the server's /metrics (0 when absent). */
export async function gauge(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = new RegExp(`^${name} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

/** Waits until the server's `name` gauge reads `n`. */
export async function waitForGauge(base: string, name: string, n: number, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await gauge(base, name);
    if (value === n) return;
    if (performance.now() > deadline) throw new Error(`expected ${name} ${n}, the server has ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
