// The PostgreSQL driver's LISTEN connection: one long-lived client carries every channel,
// reconnects with backoff when the connection drops, and LISTENs again on each reconnect.

import pg from 'pg';
import type { ClientConfig } from 'pg';
import { ChannelHandlers, listenStatement, unlistenStatement } from './channels.js';
import { databaseError } from './errors.js';
import type { ListenOptions, NotificationHandler } from './types.js';

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

export class PgListener {
  readonly #config: ClientConfig;
  readonly #handlers = new ChannelHandlers();
  #client: pg.Client | undefined;
  #connecting: Promise<pg.Client> | undefined;
  #backoff = MIN_BACKOFF_MS;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;
  /** Whether a connection was made before: the next one resumes after a gap. */
  #connectedBefore = false;

  constructor(config: ClientConfig) {
    this.#config = config;
  }

  async listen(channel: string, handler: NotificationHandler, options?: ListenOptions): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error('The store is closed');
    listenStatement(channel); // validates the channel name before connecting
    const client = await this.#connected();
    // If the connection is down at unsubscribe time, the next one simply does not LISTEN to it.
    return this.#handlers.add(
      channel,
      handler,
      () => client.query(listenStatement(channel)),
      async () => this.#client?.query(unlistenStatement(channel)),
      options,
    );
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#handlers.clear();
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.end().catch(() => undefined);
  }

  /** The live client, connecting first when there is none. */
  #connected(): Promise<pg.Client> {
    if (this.#client) return Promise.resolve(this.#client);
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  async #connect(): Promise<pg.Client> {
    const client = new pg.Client(this.#config);
    client.on('notification', (message) => this.#handlers.dispatch(message.channel, message.payload ?? ''));
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    try {
      await client.connect();
      for (const channel of this.#handlers.channels) await client.query(listenStatement(channel));
    } catch (err) {
      client.removeAllListeners();
      await client.end().catch(() => undefined);
      throw databaseError(err);
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      throw new Error('The store is closed');
    }
    this.#client = client;
    this.#backoff = MIN_BACKOFF_MS;
    // Listening again: what was notified while the connection was down never arrives.
    if (this.#connectedBefore) this.#handlers.resumed();
    this.#connectedBefore = true;
    return client;
  }

  /** The connection dropped: forget it and, while anyone listens, reconnect with backoff. */
  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    client.removeAllListeners();
    client.on('error', () => undefined); // a dead socket may still report; nothing to do
    client.end().catch(() => undefined);
    this.#scheduleReconnect();
  }

  #scheduleReconnect(): void {
    if (this.#closed || this.#retry || this.#handlers.size === 0) return;
    const delay = this.#backoff;
    this.#backoff = Math.min(this.#backoff * 2, MAX_BACKOFF_MS);
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      if (this.#closed || this.#client || this.#handlers.size === 0) return;
      this.#connected().catch(() => this.#scheduleReconnect());
    }, delay);
    this.#retry.unref();
  }
}
