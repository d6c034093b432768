// The realtime bench's subscribers: many graphql-ws clients (one WebSocket connection and one
// subscription each) in the bench's own thread, recording when each event reaches each client.

import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';

/** Milliseconds since the epoch with a fraction: comparable across this process's clocks. */
export const now = (): number => performance.timeOrigin + performance.now();

export interface Receipt {
  /** Which event: the `seq` of the created row. */
  seq: number;
  /** When the mutator sent it, from the row itself. */
  sentAt: number;
  /**
   * When its transaction started, from the row's `createdAt` (PostgreSQL's `now()`, stored
   * rounded to the millisecond), less half a millisecond so that it is never later than the
   * start: the commit came after it.
   */
  startedAt: number;
  /** When this client's handler ran. */
  at: number;
}

interface Payload {
  data?: Record<string, { value?: { seq?: number; sentAt?: number; createdAt?: string } | null } | null> | null;
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

/** An Error's message, a close event's code and reason, or a list of GraphQL errors. */
function describe(err: unknown): string {
  if (err instanceof Error) return err.message;
  const close = err as { code?: unknown; reason?: unknown };
  if (typeof close.code === 'number') return `connection closed (${close.code}${close.reason ? ` ${String(close.reason)}` : ''})`;
  return JSON.stringify(err);
}

export class Subscribers {
  readonly #clients: Client[] = [];
  readonly #seen: Set<number>[] = [];
  readonly #receipts: Receipt[] = [];
  #duplicates = 0;
  #failures: string[] = [];

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

  #openOne(options: OpenOptions, i: number): Promise<void> {
    const seen = new Set<number>();
    this.#seen.push(seen);
    return new Promise((resolve, reject) => {
      const client = createClient({
        url: options.endpoint.replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${options.tokens[i % options.tokens.length] as string}` },
        retryAttempts: 0,
        lazy: true,
        on: {
          connected: () => resolve(),
          closed: (event) => {
            const code = (event as { code?: number }).code;
            reject(new Error(`subscriber ${i}: connection closed (${code}) before it was acknowledged`));
          },
        },
      });
      this.#clients.push(client);
      client.subscribe<Payload['data']>(
        { query: options.query },
        {
          next: (result) => {
            const at = now();
            const value = Object.values((result as Payload).data ?? {})[0]?.value;
            const startedAt = Date.parse(value?.createdAt ?? '') - 0.5;
            if (typeof value?.seq !== 'number' || typeof value.sentAt !== 'number' || !Number.isFinite(startedAt)) {
              this.#failures.push(`subscriber ${i}: unexpected event ${JSON.stringify(result).slice(0, 300)}`);
              return;
            }
            if (seen.has(value.seq)) this.#duplicates++;
            else seen.add(value.seq);
            this.#receipts.push({ seq: value.seq, sentAt: value.sentAt, startedAt, at });
          },
          error: (err) => void this.#failures.push(`subscriber ${i}: ${describe(err)}`.slice(0, 300)),
          complete: () => undefined,
        },
      );
    });
  }

  get receipts(): readonly Receipt[] {
    return this.#receipts;
  }

  get duplicates(): number {
    return this.#duplicates;
  }

  /** Subscription errors and malformed events, in the order they happened. */
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

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((c) => c.dispose()));
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
