// The live apps this instance serves: each app's compiler context for its current schema
// version and settings, and its admin tokens, cached so a data request costs one statement.
// Apps are loaded on first use and let go least recently used within the app cache's budget
// (appCache.ts). Catalog changes invalidate entries at once on this instance and, through
// LISTEN/NOTIFY on CATALOG_CHANNEL, within moments on every other instance; when the LISTEN
// connection was lost (notifications missed) every entry is let go. As a last backstop (a
// change made by hand in the catalog), an app in use is read again in the background every few
// minutes; when nothing changed it keeps its compiled statements.

import { AppContext, cachedPlans } from '../compile/index.js';
import type { AccountApp } from '../accounts/index.js';
import type { FileUrlKeys } from '../compile/index.js';
import { lacksBuiltins, withDefaults } from '../model/index.js';
import { CATALOG_CHANNEL, adminTokenHash, findAdminToken, findApp, isAppId, listFunctions, listSigningKeys, liveSchema, trustedDocuments, upgradeBuiltins, upgradeLinkTimes } from '../store/index.js';
import { AppFunctions } from '../functions/index.js';
import type { AppHome, ListenOptions, SigningKeyRow, Store, TrustedDocumentSet } from '../store/index.js';
import type { DocumentCache } from './operation/prepare.js';
import { documentRulesKey } from './limits/index.js';
import { APP_BYTES, AppCache, PLAN_BYTES } from './appCache.js';
import { DEFAULT_APP_CACHE_MB } from './config.js';
import type { AppCacheStats, SharedSchema } from './appCache.js';
import { TokenVerdicts } from './tokenVerdicts.js';

export interface LiveApp {
  id: string;
  name: string;
  /** The cluster the app lives on, and its store: every statement of the app runs there. */
  cluster: string;
  store: Store;
  context: AppContext;
  /** Its model's shared context, where its queries are compiled and cached with other apps of the model. */
  shared: AppContext;
  /** The app's signing keys, newest first (retired ones still verify). */
  keys: SigningKeyRow[];
  /** Validated documents of this schema version and the app's limits (shared with apps of both alike). */
  documents: DocumentCache;
  /** The app's trusted documents, null when it has none. */
  trusted: TrustedDocumentSet | null;
  /** The app's functions (secrets sealed). */
  functions: AppFunctions;
  /** When the app was read from the catalog (a refresh that failed moves it on a little). */
  loadedAt: number;
  /** The app's GraphQL schema as the app cache shares it between apps of the same model. */
  schema: SharedSchema;
  /** Estimated bytes the app holds besides its shared schema (app cache budget). */
  ownBytes(): number;
}

/** A loaded app as the accounts stage sees it. */
export function accountApp(app: LiveApp): AccountApp {
  return { id: app.id, name: app.name, keys: app.keys, model: app.context.app.model, settings: app.context.app.settings };
}

/** An app in use is read again in the background after this long: the backstop for a change no one notified. */
export const APP_REFRESH_MS = 5 * 60_000;
/** A refresh that failed is tried again after this long, by the next request. */
const REFRESH_RETRY_MS = 5_000;

/** Bytes of an app's trusted documents' text, which stays loaded with it. */
function trustedBytes(trusted: TrustedDocumentSet | null): number {
  let chars = 0;
  for (const text of trusted?.documents.values() ?? []) chars += text.length;
  return chars * 2;
}

/** Where apps live: the cluster of each, and notifications from every cluster. */
export interface AppHomes {
  home(appId: string): Promise<AppHome>;
  /** `resumed`: listening again after a gap (notifications were missed). */
  listen(channel: string, handler: (payload: string) => void, options?: ListenOptions): Promise<() => Promise<void>>;
}

/** A single store holding every app. */
export function oneHome(store: Store): AppHomes {
  const home: AppHome = { cluster: 'main', store };
  return { home: async () => home, listen: (channel, handler, options) => store.listen(channel, handler, options) };
}

export interface AppRegistryOptions {
  /** An app made before today's built-in fields could not be given them. */
  onUpgradeError?: (appId: string, err: unknown) => void;
  /** A mutation committed events for EVENT functions in this store (wakes its delivery workers). */
  eventsQueued?: (store: Store) => void;
  /** How apps' statements sign File download URLs. */
  files?: FileUrlKeys | undefined;
  /** Budget of the loaded apps, in bytes (default DEFAULT_APP_CACHE_MB). */
  cacheBytes?: number | undefined;
}

export class AppRegistry {
  readonly #homes: AppHomes;
  readonly #cache: AppCache<LiveApp>;
  /** Loads in progress, so that concurrent requests for an app load it once. */
  readonly #loading = new Map<string, Promise<LiveApp | null>>();
  /** Admin token verdicts read lately (any change to an app forgets them all). */
  readonly #tokens = new TokenVerdicts();
  #unlisten: (() => Promise<void>) | undefined;

  readonly #onUpgradeError: (appId: string, err: unknown) => void;
  readonly #eventsQueued: (store: Store) => void;
  readonly #files: FileUrlKeys | undefined;

  constructor(homes: AppHomes | Store, options: AppRegistryOptions = {}) {
    this.#homes = 'home' in homes ? homes : oneHome(homes);
    this.#onUpgradeError = options.onUpgradeError ?? (() => {});
    this.#eventsQueued = options.eventsQueued ?? (() => {});
    this.#files = options.files;
    this.#cache = new AppCache(options.cacheBytes ?? DEFAULT_APP_CACHE_MB * 1024 * 1024);
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#homes.listen(CATALOG_CHANNEL, (appId) => this.invalidate(appId), { resumed: () => this.invalidateAll() });
  }

  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    this.#loading.clear();
    this.#cache.clear();
    this.#tokens.clear();
    // The store may already be closing with the server; its listener goes with it then.
    await unlisten?.().catch(() => undefined);
  }

  /** Forgets what is cached about an app, named by id or name (its schema, settings or tokens changed). */
  invalidate(idOrName: string): void {
    this.#cache.deleteWhere((app) => app.id === idOrName || app.name === idOrName);
    // A load under way may have read the catalog before the change: its result serves the
    // requests waiting for it, but is not kept. A name says nothing of which load it is.
    if (isAppId(idOrName)) this.#loading.delete(idOrName);
    else this.#loading.clear();
    // Tokens are few and cheap to check again: any change forgets them all.
    this.#tokens.clear();
  }

  /** Forgets every app (catalog notifications may have been missed). */
  invalidateAll(): void {
    this.#cache.clear();
    this.#loading.clear();
    this.#tokens.clear();
  }

  /** Apps held in memory (loaded or loading). */
  get size(): number {
    return this.#cache.stats.apps + this.#loading.size;
  }

  /** What the app cache holds, for metrics. */
  get cacheStats(): AppCacheStats {
    return this.#cache.stats;
  }

  /** The live app with this id, or null when there is none. */
  async get(appId: string): Promise<LiveApp | null> {
    // A path segment that cannot be an id (NUL, 2,000 characters, `..`) never reaches the store.
    if (!isAppId(appId)) return null;
    return this.loaded(appId) ?? this.#loadOnce(appId);
  }

  /**
   * The live app with this id when it is loaded here, without a promise; undefined when `get`
   * must load it (or when there is no such app).
   */
  loaded(appId: string): LiveApp | undefined {
    const cached = this.#cache.get(appId);
    if (!cached) return undefined;
    // The request goes on with what is cached; the refresh replaces it once read.
    if (Date.now() - cached.loadedAt >= APP_REFRESH_MS && !this.#loading.has(appId)) {
      this.#loadOnce(appId, cached).catch(() => {
        cached.loadedAt = Date.now() - APP_REFRESH_MS + REFRESH_RETRY_MS;
      });
    }
    return cached;
  }

  /** Loads the app (again, when `previous` is cached), or joins the load under way, and caches the result. */
  #loadOnce(appId: string, previous?: LiveApp): Promise<LiveApp | null> {
    const loading = this.#loading.get(appId);
    if (loading) return loading;
    const load: Promise<LiveApp | null> = this.#load(appId, previous).then(
      (app) => {
        // Kept unless a catalog change came while it loaded. Neither a failed load nor an
        // unknown app is remembered: ids made up by a client would otherwise fill the map.
        if (this.#loading.get(appId) === load) {
          this.#loading.delete(appId);
          if (app) this.#cache.add(app);
          else if (previous) this.#cache.delete(appId);
        } else if (app) {
          this.#cache.release(app.schema);
        }
        return app;
      },
      (err: unknown) => {
        if (this.#loading.get(appId) === load) this.#loading.delete(appId);
        throw err;
      },
    );
    this.#loading.set(appId, load);
    return load;
  }

  async #load(appId: string, previous?: LiveApp): Promise<LiveApp | null> {
    const { cluster, store } = await this.#homes.home(appId);
    const row = await findApp(store, appId);
    // Endpoints are addressed by id only (names can be reused after a delete).
    if (!row || row.id !== appId) return null;
    let [live, keys, trusted, functions] = await Promise.all([
      liveSchema(store, appId),
      listSigningKeys(store, appId),
      trustedDocuments(store, appId),
      listFunctions(store, appId),
    ]);
    if (!live) return null;
    if (lacksBuiltins(live.model)) {
      // Made before a built-in field existed: given it now, once; if that fails, the app goes
      // on as it was (without the features that need the field).
      try {
        if (await upgradeBuiltins(store, appId)) live = (await liveSchema(store, appId)) ?? live;
      } catch (err) {
        this.#onUpgradeError(appId, err);
      }
    }
    if (!row.linkTimes) {
      // Made before its tables kept the time each row was last linked: given it now, once. If
      // that fails, subscription events whose rules go through such a row fail (and are not
      // told) until it is done.
      try {
        await upgradeLinkTimes(store, appId);
      } catch (err) {
        this.#onUpgradeError(appId, err);
      }
    }
    // Nothing is awaited from here on: the schema acquired goes to the cache or back (get).
    const schema = this.#cache.acquire(live.model);
    const settings = withDefaults(row.settings);
    // Read again and unchanged: the app keeps its compiled statements.
    const unchanged =
      previous !== undefined &&
      previous.cluster === cluster &&
      previous.context.app.version === live.version &&
      previous.context.app.schema === schema.schema &&
      JSON.stringify(previous.context.app.settings) === JSON.stringify(settings);
    const context = unchanged
      ? previous.context
      : new AppContext({ id: appId, version: live.version, model: schema.model, settings, schema: schema.schema, files: this.#files });
    const fixed = APP_BYTES + trustedBytes(trusted);
    return {
      id: appId,
      name: row.name,
      cluster,
      store,
      context,
      shared: schema.context(this.#files),
      keys,
      documents: schema.documents(documentRulesKey(settings)),
      trusted,
      functions: new AppFunctions(functions, () => this.#eventsQueued(store)),
      loadedAt: Date.now(),
      schema,
      ownBytes: () => fixed + cachedPlans(context) * PLAN_BYTES,
    };
  }

  /**
   * Whether the app has left (or is leaving) the cluster it was loaded from: moveApp is under
   * way or done. It is then forgotten, so that the next request loads it from its new home.
   */
  async relocated(app: LiveApp): Promise<boolean> {
    const home = await this.#homes.home(app.id).catch(() => undefined);
    const moved = home !== undefined && (home.moving === true || home.cluster !== app.cluster);
    if (moved) this.invalidate(app.id);
    return moved;
  }

  /** Whether `token` is a live admin token of the app, when this instance knows it (undefined: ask isAdminToken). */
  knownAdminToken(app: LiveApp, token: string): boolean | undefined {
    return this.#tokens.get(app.id, token);
  }

  /** Whether `token` is a live admin token of the app. */
  async isAdminToken(app: LiveApp, token: string): Promise<boolean> {
    const known = this.knownAdminToken(app, token);
    if (known !== undefined) return known;
    // A change heard of while the catalog is read (the token revoked) forgets the verdicts; this
    // one may predate it, so it is then not kept.
    const since = this.#tokens.generation;
    const valid = (await findAdminToken(app.store, app.id, adminTokenHash(token))) !== null;
    this.#tokens.set(app.id, token, valid, since);
    return valid;
  }
}
