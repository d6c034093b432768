// The handlers listening on each notification channel, shared by both drivers: the first
// handler of a channel starts its LISTEN, the last one to leave stops it.

import { compile, ident, sql } from '../sql/index.js';
import type { SqlFragment } from '../sql/index.js';
import { databaseError } from './errors.js';
import { notifyStatement } from './statements.js';
import type { ListenOptions, NotificationHandler } from './types.js';

export const listenStatement = (channel: string) => compile(sql`LISTEN ${ident(channel)}`).text;
export const unlistenStatement = (channel: string) => compile(sql`UNLISTEN ${ident(channel)}`).text;

/** Users whose tokens must be checked again (a new password, every session ended, deleted): "<appId> <userId>";
 * "<appId> *" when the app's roles or their members changed (who is an app admin must be read again). */
export const USERS_CHANNEL = 'tessera_users';

/** The notification, sent in the transaction that changes the user, that every instance hears once it commits. */
export function userChangedNotice(appId: string, userId: string): SqlFragment {
  return notifyStatement(USERS_CHANNEL, `${appId} ${userId}`);
}

/** Stands for every user of an app in a notification on USERS_CHANNEL. */
export const ALL_USERS = '*';

/** The notification, sent in a transaction that changes an app's roles or their members, that every instance hears once it commits. */
export function rolesChangedNotice(appId: string): SqlFragment {
  return notifyStatement(USERS_CHANNEL, `${appId} ${ALL_USERS}`);
}

export class ChannelHandlers {
  readonly #handlers = new Map<string, Set<NotificationHandler>>();
  readonly #resumed = new Set<() => void>();

  get channels(): IterableIterator<string> {
    return this.#handlers.keys();
  }

  get size(): number {
    return this.#handlers.size;
  }

  /**
   * Adds `handler` to `channel`, running `start` (the LISTEN) first when the channel is new.
   * Resolves to an idempotent unsubscribe that runs `stop` (the UNLISTEN) for the last handler.
   */
  async add(
    channel: string,
    handler: NotificationHandler,
    start: () => Promise<unknown>,
    stop: () => Promise<unknown>,
    options: ListenOptions = {},
  ): Promise<() => Promise<void>> {
    let handlers = this.#handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(channel, handlers);
      try {
        await start();
      } catch (err) {
        this.#handlers.delete(channel);
        throw databaseError(err);
      }
    }
    handlers.add(handler);
    // Each subscription's own callback, even when two pass the same function.
    const resumed = options.resumed ? () => options.resumed?.() : undefined;
    if (resumed) this.#resumed.add(resumed);
    let subscribed = true;
    return async () => {
      if (!subscribed) return;
      subscribed = false;
      if (resumed) this.#resumed.delete(resumed);
      const set = this.#handlers.get(channel);
      set?.delete(handler);
      if (!set || set.size > 0) return;
      this.#handlers.delete(channel);
      // A failed UNLISTEN only means a notification nobody handles; nothing to report.
      await stop().catch(() => undefined);
    };
  }

  dispatch(channel: string, payload: string): void {
    for (const handler of this.#handlers.get(channel) ?? []) {
      try {
        handler(payload);
      } catch {
        // A failing subscriber must not keep the others from hearing the notification.
      }
    }
  }

  /** Tells every listener that notifications may have been missed (the connection was lost). */
  resumed(): void {
    for (const resumed of this.#resumed) {
      try {
        resumed();
      } catch {
        // As for notifications: one failing listener must not keep the others from hearing.
      }
    }
  }

  clear(): void {
    this.#handlers.clear();
    this.#resumed.clear();
  }
}
