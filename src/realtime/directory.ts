// Which apps have subscribers, on any instance: so that a mutation of an app nobody listens to
// skips reading its rows' state and notifying (two round trips a mutation otherwise pays).
// Each instance records the apps it holds subscriptions of in `tessera.realtime_apps` (kept
// fresh by a heartbeat, removed when its last subscriber leaves) and announces a new one on a
// channel; an instance asking about an app caches the answer for a moment.

import { randomUUID } from 'node:crypto';
import { sql } from '../sql/index.js';
import type { Store } from '../store/index.js';

export const REALTIME_APPS_CHANNEL = 'tessera_realtime_apps';
/** How long an instance's record lasts without a heartbeat (an instance that died). */
const RECORD_TTL = sql`interval '5 minutes'`;
const HEARTBEAT_MS = 60_000;
/** How long an answer about another instance's subscribers is trusted. */
const CACHE_MS = 2_000;

export class SubscriberDirectory {
  readonly #store: Store;
  readonly #instance = randomUUID();
  readonly #local = new Map<string, number>();
  readonly #cache = new Map<string, { has: boolean; at: number }>();
  #unlisten: (() => Promise<void>) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;

  constructor(store: Store) {
    this.#store = store;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#store.listen(REALTIME_APPS_CHANNEL, (appId) => this.#cache.delete(appId), { resumed: () => this.#cache.clear() });
    this.#heartbeat = setInterval(() => void this.#refresh().catch(() => undefined), HEARTBEAT_MS);
    this.#heartbeat.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#heartbeat);
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.().catch(() => undefined);
    if (this.#local.size > 0) {
      this.#local.clear();
      await this.#store.query(sql`DELETE FROM tessera.realtime_apps WHERE instance = ${this.#instance}::uuid`).catch(() => undefined);
    }
  }

  /** Whether anyone may be subscribed to the app's events, when this instance knows without asking the catalog. */
  known(appId: string): boolean | undefined {
    if ((this.#local.get(appId) ?? 0) > 0) return true;
    const cached = this.#cache.get(appId);
    return cached && Date.now() - cached.at < CACHE_MS ? cached.has : undefined;
  }

  /** Whether anyone, on any instance, may be subscribed to the app's events. */
  async has(appId: string): Promise<boolean> {
    if ((this.#local.get(appId) ?? 0) > 0) return true;
    const cached = this.#cache.get(appId);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.has;
    const { rows } = await this.#store.query<{ has: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM tessera.realtime_apps WHERE app_id = ${appId} AND expires_at > now()) AS has`);
    const has = rows[0]?.has === true;
    this.#cache.set(appId, { has, at: Date.now() });
    return has;
  }

  /** A subscription of the app opens here; resolves once every instance can know of it. */
  async register(appId: string): Promise<void> {
    const count = this.#local.get(appId) ?? 0;
    this.#local.set(appId, count + 1);
    if (count > 0) return;
    await this.#store.transaction(async (tx) => {
      await tx.query(sql`INSERT INTO tessera.realtime_apps (app_id, instance, expires_at) VALUES (${appId}, ${this.#instance}::uuid, now() + ${RECORD_TTL})
        ON CONFLICT (app_id, instance) DO UPDATE SET expires_at = EXCLUDED.expires_at`);
      await tx.notify(REALTIME_APPS_CHANNEL, appId);
    });
  }

  /** A subscription of the app ended here. */
  unregister(appId: string): void {
    const count = (this.#local.get(appId) ?? 1) - 1;
    if (count > 0) {
      this.#local.set(appId, count);
      return;
    }
    this.#local.delete(appId);
    // Other instances keep publishing until their answer expires: harmless, and brief.
    void this.#store.query(sql`DELETE FROM tessera.realtime_apps WHERE app_id = ${appId} AND instance = ${this.#instance}::uuid`).catch(() => undefined);
  }

  async #refresh(): Promise<void> {
    const apps = [...this.#local.keys()];
    if (apps.length > 0) {
      await this.#store.query(sql`UPDATE tessera.realtime_apps SET expires_at = now() + ${RECORD_TTL} WHERE instance = ${this.#instance}::uuid AND app_id = ANY(${apps}::text[])`);
    }
    await this.#store.query(sql`DELETE FROM tessera.realtime_apps WHERE expires_at < now()`);
  }
}
