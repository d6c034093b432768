// The PostgreSQL servers an instance serves apps from: `main` (the one DATABASE_URL names,
// which holds the catalog) and the clusters the operator added. Each cluster is a whole store
// (its own `tessera` catalog schema and app schemas); an app lives wholly on one, so its data
// and its catalog rows change in one transaction there. The catalog on `main` records the
// clusters (URLs sealed) and where every app lives (docs/scaling.md).

import { TesseraError, badInput } from '../errors/index.js';
import { ensureCatalog } from './catalog/ensure.js';
import {
  MAIN_CLUSTER,
  PLACEMENTS_CHANNEL,
  findPlacement,
  insertCluster,
  isClusterName,
  listClusterRows,
  placementCounts,
} from './catalog/clusters.js';
import { openStore } from './open.js';
import type { Store } from './types.js';

/** Seals what is stored of a cluster's URL (it holds a password), and opens it again. */
export interface UrlSealer {
  seal(plain: string, context: string): string;
  open(sealed: string, context: string): string;
}

export interface ClustersOptions {
  /** Seals cluster URLs; without it no cluster can be added or opened. */
  sealer?: UrlSealer | undefined;
  /** Connections of each added cluster's pool (default: the store's). */
  poolSize?: number | undefined;
  /** Statements a pooled connection of an added cluster serves before it is replaced (default: the store's; 0: never). */
  connectionUses?: number | undefined;
  /** Whether added clusters' connections keep recurring statements prepared (default: true). */
  preparedStatements?: boolean | undefined;
  /** Connections of each added cluster's pool kept as read lanes (default: the store's). */
  readLanes?: number | undefined;
  /** A cluster recorded in the catalog could not be opened (its URL no longer unseals). */
  onOpenError?: ((cluster: string, err: unknown) => void) | undefined;
}

export interface ClusterView {
  name: string;
  /** Apps placed on it. */
  apps: number;
  /** Whether it answered just now. */
  reachable: boolean;
}

/** Where an app lives. */
export interface AppHome {
  cluster: string;
  store: Store;
  /** The app is being copied to another cluster: its writes are held off (moveApp). */
  moving?: boolean;
}

type ChannelHandler = (payload: string, home: AppHome) => void;
/** A cluster listens again after a gap (its notifications meanwhile were missed). */
type ResumedHandler = (home: AppHome) => void;
interface Listener {
  channel: string;
  handler: ChannelHandler;
  resumed: ResumedHandler | undefined;
  unlisten: (() => Promise<void>)[];
}
const MIN_LISTEN_RETRY_MS = 500;
const MAX_LISTEN_RETRY_MS = 10_000;
/** Work run beside each cluster (a worker); gives back how to stop it. */
type PerCluster = (home: AppHome) => (() => Promise<void>) | undefined;

const urlContext = (name: string): string => `cluster:${name}`;

/** One `make(store)` per store (a cluster's), made on first use: services and signals kept per cluster. */
export function perStore<T extends object>(make: (store: Store) => T): (store: Store) => T {
  const made = new WeakMap<Store, T>();
  return (store) => {
    let value = made.get(store);
    if (!value) made.set(store, (value = make(store)));
    return value;
  };
}

export class Clusters {
  readonly #main: AppHome;
  readonly #options: ClustersOptions;
  /** Added clusters this instance has opened (their stores are closed here). */
  readonly #opened = new Map<string, AppHome>();
  readonly #listeners: Listener[] = [];
  readonly #perCluster: { start: PerCluster; stops: (() => Promise<void>)[] }[] = [];
  #unlisten: (() => Promise<void>) | undefined;
  #closed = false;

  constructor(main: Store, options: ClustersOptions = {}) {
    this.#main = { cluster: MAIN_CLUSTER, store: main };
    this.#options = options;
  }

  get main(): Store {
    return this.#main.store;
  }

  /** Whether clusters can be added at all: only beside a PostgreSQL catalog. */
  get supported(): boolean {
    return this.#main.store.kind === 'postgres';
  }

  /** Opens the clusters the catalog records and follows the ones added later (by any instance). */
  async start(): Promise<void> {
    if (!this.supported) return;
    this.#unlisten = await this.#main.store.listen(PLACEMENTS_CHANNEL, (payload) => {
      if (payload.startsWith('cluster:')) void this.#refresh();
    });
    await this.#refresh();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#unlisten?.().catch(() => undefined);
    for (const work of this.#perCluster.splice(0)) await Promise.all(work.stops.map((stop) => stop().catch(() => undefined)));
    for (const listener of this.#listeners.splice(0)) {
      for (const unlisten of listener.unlisten) await unlisten().catch(() => undefined);
    }
    for (const { store } of this.#opened.values()) await store.close().catch(() => undefined);
    this.#opened.clear();
  }

  /** Every cluster this instance has open, `main` first. */
  homes(): AppHome[] {
    return [this.#main, ...this.#opened.values()];
  }

  /** Every cluster the catalog records, opened (those added by another instance included), `main` first. */
  async all(): Promise<AppHome[]> {
    if (this.supported) await this.#refresh();
    return this.homes();
  }

  /** The cluster named so, opened; undefined when there is none. */
  async cluster(name: string): Promise<AppHome | undefined> {
    if (name === MAIN_CLUSTER) return this.#main;
    if (!this.#opened.has(name)) await this.#refresh();
    return this.#opened.get(name);
  }

  /**
   * Where the app with this id (or name) lives: the cluster its placement names, or `main`
   * for an app without one. A placement naming a cluster this instance cannot open answers
   * UNAVAILABLE.
   */
  async home(idOrName: string): Promise<AppHome> {
    if (!this.supported) return this.#main;
    const placement = await findPlacement(this.#main.store, idOrName);
    const moving = placement?.movingTo ? { moving: true } : {};
    if (!placement || placement.cluster === MAIN_CLUSTER) return { ...this.#main, ...moving };
    const home = await this.cluster(placement.cluster);
    if (!home) {
      throw new TesseraError('UNAVAILABLE', `The cluster "${placement.cluster}" of this app cannot be opened by this server`, { retryAfter: 1, cluster: placement.cluster });
    }
    return { ...home, ...moving };
  }

  /** Subscribes to a channel on every cluster, those added later included. */
  async listen(channel: string, handler: ChannelHandler, options: { resumed?: ResumedHandler } = {}): Promise<() => Promise<void>> {
    const entry: Listener = { channel, handler, resumed: options.resumed, unlisten: [] };
    this.#listeners.push(entry);
    await Promise.all(this.homes().map((home) => this.#listenOn(entry, home)));
    return async () => {
      const at = this.#listeners.indexOf(entry);
      if (at >= 0) this.#listeners.splice(at, 1);
      for (const unlisten of entry.unlisten.splice(0)) await unlisten().catch(() => undefined);
    };
  }

  /**
   * Runs `start` beside every cluster (now, and for clusters added later); resolves to a
   * function that stops them all (close does too).
   */
  each(start: PerCluster): () => Promise<void> {
    const work = { start, stops: [] as (() => Promise<void>)[] };
    this.#perCluster.push(work);
    for (const home of this.homes()) {
      const stop = start(home);
      if (stop) work.stops.push(stop);
    }
    return async () => {
      const at = this.#perCluster.indexOf(work);
      if (at >= 0) this.#perCluster.splice(at, 1);
      await Promise.all(work.stops.splice(0).map((stop) => stop().catch(() => undefined)));
    };
  }

  /** Every cluster with its apps and whether it answers now. */
  async list(): Promise<ClusterView[]> {
    const counts = await placementCounts(this.#main.store);
    const names = [MAIN_CLUSTER, ...(this.supported ? (await listClusterRows(this.#main.store)).map((r) => r.name) : [])];
    return Promise.all(
      names.map(async (name) => {
        const home = await this.cluster(name).catch(() => undefined);
        const reachable = home ? await home.store.ping().catch(() => false) : false;
        return { name, apps: counts.get(name) ?? 0, reachable };
      }),
    );
  }

  /** The cluster a new app goes to when none is asked for: the one holding the fewest apps (`main` on a tie). */
  async leastLoaded(): Promise<string> {
    const views = await this.list();
    let best = views[0]!;
    for (const view of views) if (view.reachable && (view.apps < best.apps || !best.reachable)) best = view;
    return best.name;
  }

  /**
   * Adds a cluster: its database must answer, and gets the catalog schema; then every instance
   * opens it. A name in use is a CONFLICT; an unreachable URL is BAD_USER_INPUT, saying why.
   */
  async add(name: string, url: string): Promise<ClusterView> {
    if (!this.supported) throw badInput('Clusters can be added only to a server whose catalog is on PostgreSQL (DATABASE_URL)');
    const sealer = this.#options.sealer;
    if (!sealer) throw new TesseraError('UNAVAILABLE', 'This server has no secret key to seal cluster URLs with');
    if (!isClusterName(name) || name === MAIN_CLUSTER) {
      throw badInput('A cluster name is a lowercase letter, then up to 30 lowercase letters, digits, "-" and "_" (and not "main")', { field: 'name' });
    }
    if (!/^postgres(ql)?:\/\//.test(url)) throw badInput('The cluster URL must be a postgres:// or postgresql:// connection URL', { field: 'url' });
    let store: Store;
    try {
      store = await openStore({ databaseUrl: url, cluster: name, ...this.#poolOptions() });
    } catch (err) {
      throw badInput(`The cluster "${name}" cannot be reached: ${err instanceof Error ? err.message : String(err)}`, { field: 'url' });
    }
    try {
      await ensureCatalog(store);
      await insertCluster(this.#main.store, { name, urlSealed: sealer.seal(url, urlContext(name)) });
    } catch (err) {
      await store.close().catch(() => undefined);
      throw err;
    }
    this.#adopt(name, store);
    await this.#main.store.notify(PLACEMENTS_CHANNEL, `cluster:${name}`);
    return { name, apps: 0, reachable: true };
  }

  /** Opens the clusters recorded in the catalog that this instance has not opened yet. */
  async #refresh(): Promise<void> {
    if (this.#closed) return;
    const sealer = this.#options.sealer;
    for (const row of await listClusterRows(this.#main.store)) {
      if (this.#opened.has(row.name)) continue;
      if (!sealer) {
        this.#options.onOpenError?.(row.name, new Error('no secret key to open the cluster URL with'));
        continue;
      }
      let url: string;
      try {
        url = sealer.open(row.urlSealed, urlContext(row.name));
      } catch (err) {
        this.#options.onOpenError?.(row.name, err);
        continue;
      }
      // Connected on first use: a cluster down at start-up affects only its own apps.
      const store = await openStore({ databaseUrl: url, cluster: row.name, probe: false, ...this.#poolOptions() });
      if (this.#opened.has(row.name) || this.#closed) {
        await store.close();
        continue;
      }
      this.#adopt(row.name, store);
      // A cluster down at start-up gets the catalog once it answers (it had it when added).
      void ensureCatalog(store).catch((err: unknown) => this.#options.onOpenError?.(row.name, err));
    }
  }

  #adopt(name: string, store: Store): void {
    const home = { cluster: name, store };
    this.#opened.set(name, home);
    for (const listener of this.#listeners) void this.#listenOn(listener, home);
    for (const work of this.#perCluster) {
      const stop = work.start(home);
      if (stop) work.stops.push(stop);
    }
  }

  /** How an added cluster's pool is sized, as the server's own is. */
  #poolOptions(): { maxConnections?: number; connectionUses?: number; preparedStatements?: boolean; readLanes?: number } {
    const { poolSize, connectionUses, preparedStatements, readLanes } = this.#options;
    return {
      ...(poolSize ? { maxConnections: poolSize } : {}),
      ...(connectionUses === undefined ? {} : { connectionUses }),
      ...(preparedStatements === undefined ? {} : { preparedStatements }),
      ...(readLanes === undefined ? {} : { readLanes }),
    };
  }

  /** LISTENs on one cluster; a cluster that cannot be reached yet is tried again, more slowly each time. */
  #listenOn(entry: Listener, home: AppHome): Promise<void> {
    const resumed = entry.resumed && (() => entry.resumed?.(home));
    const attempt = (delayMs: number, retried: boolean): Promise<void> => {
      // A retry that comes due after the clusters were closed (their stores with them) or the
      // listener was let go has nothing left to do.
      if (this.#closed || !this.#listeners.includes(entry)) return Promise.resolve();
      return home.store.listen(entry.channel, (payload) => entry.handler(payload, home), { resumed }).then(
        (unlisten) => {
          entry.unlisten.push(unlisten);
          if (retried) resumed?.();
        },
        () => {
          if (this.#closed || !this.#listeners.includes(entry)) return;
          setTimeout(() => void attempt(Math.min(delayMs * 2, MAX_LISTEN_RETRY_MS), true), delayMs).unref();
        },
      );
    };
    return attempt(MIN_LISTEN_RETRY_MS, false);
  }

}

