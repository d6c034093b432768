// Subscribers for the realtime tests: real graphql-ws clients (and the older protocol's
// client) against a real server, with helpers to wait for events and for the server to have
// registered a subscription before a test mutates.

import { createClient } from 'graphql-ws';
import type { Client } from 'graphql-ws';
import WebSocket from 'ws';
import type { Json } from '../api/harness.js';

export interface Subscription {
  events: Json[];
  /** Errors the subscription ended with, if it did. */
  errors: unknown[];
  /** Resolves with the first `n` events, or rejects after `timeoutMs`. */
  take(n: number, timeoutMs?: number): Promise<Json[]>;
  /** Waits `ms` and returns every event received, for tests that expect nothing more. */
  settle(ms?: number): Promise<Json[]>;
  close(): Promise<void>;
}

export function wsUrl(endpoint: string): string {
  return endpoint.replace(/^http/, 'ws');
}

export function client(endpoint: string, token?: string, options: { retryAttempts?: number } = {}): Client {
  return createClient({
    url: wsUrl(endpoint),
    webSocketImpl: WebSocket,
    connectionParams: token === undefined ? {} : { Authorization: `Bearer ${token}` },
    retryAttempts: options.retryAttempts ?? 0,
    lazy: true,
  });
}

export async function until<T>(read: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Subscribes with `c`; events collect in `events`. */
export function subscribe(c: Client, query: string, variables: Record<string, unknown> = {}): Subscription {
  const events: Json[] = [];
  const errors: unknown[] = [];
  let done = false;
  const dispose = c.subscribe(
    { query, variables },
    {
      next: (value) => void events.push(value as Json),
      error: (err) => {
        errors.push(err);
        done = true;
      },
      complete: () => {
        done = true;
      },
    },
  );
  return {
    events,
    errors,
    take: (n, timeoutMs = 5_000) => until(() => (events.length >= n ? events.slice(0, n) : errors.length > 0 || done ? (() => { throw new Error(`subscription ended: ${JSON.stringify(errors)}`); })() : undefined), timeoutMs, `${n} events (have ${events.length})`),
    settle: async (ms = 300) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return events;
    },
    close: async () => {
      dispose();
    },
  };
}

/** The number of subscriptions the server at `base` has open, from its metrics. */
export async function openSubscriptions(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const match = /^tessera_subscriptions (\d+)$/m.exec(text);
  return match ? Number(match[1]) : 0;
}

/** Waits until the server at `base` has `n` subscriptions open. */
export async function waitForSubscriptions(base: string, n: number, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await openSubscriptions(base);
    if (open === n) return;
    if (Date.now() > deadline) throw new Error(`expected ${n} subscriptions, the server has ${open}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
