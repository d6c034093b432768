// The live apps this instance serves: each app's compiler context for its current schema
// version and settings, and its admin tokens, cached so a data request costs one statement.
// Catalog changes invalidate entries at once on this instance and, through LISTEN/NOTIFY on
// CATALOG_CHANNEL, within moments on every other instance; entries also expire after a while
// as a backstop for a missed notification.

import { createHash } from 'node:crypto';
import { AppContext } from '../compile/index.js';
import type { AccountApp } from '../accounts/index.js';
import type { FileUrlKeys } from '../compile/index.js';
import { appSchema } from '../graphql/index.js';
import { lacksBuiltins, withDefaults } from '../model/index.js';
import { CATALOG_CHANNEL, findAdminToken, findApp, isAppId, listFunctions, listSigningKeys, liveSchema, trustedDocuments, upgradeBuiltins } from '../store/index.js';
import { AppFunctions } from '../functions/index.js';
import type { SigningKeyRow, Store, TrustedDocumentSet } from '../store/index.js';
import { DocumentCache } from './operation/prepare.js';

export interface LiveApp {
  id: string;
  name: string;
  context: AppContext;
  /** The app's signing keys, newest first (retired ones still verify). */
  keys: SigningKeyRow[];
  /** Validated documents of this schema version. */
  documents: DocumentCache;
  /** The app's trusted documents, null when it has none. */
  trusted: TrustedDocumentSet | null;
  /** The app's functions (secrets sealed). */
  functions: AppFunctions;
  loadedAt: number;
}

/** A loaded app as the accounts stage sees it. */
export function accountApp(app: LiveApp): AccountApp {
  return { id: app.id, name: app.name, keys: app.keys, model: app.context.app.model, settings: app.context.app.settings };
}

const MAX_AGE_MS = 30_000;

function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export class AppRegistry {
  readonly #store: Store;
  readonly #apps = new Map<string, Promise<LiveApp | null>>();
  readonly #tokens = new Map<string, { valid: boolean; at: number }>();
  #unlisten: (() => Promise<void>) | undefined;

  readonly #onUpgradeError: (appId: string, err: unknown) => void;
  readonly #eventsQueued: () => void;
  readonly #files: FileUrlKeys | undefined;

  /**
   * `onUpgradeError`: an app made before today's built-in fields could not be given them.
   * `eventsQueued`: a mutation committed events for EVENT functions (wakes the delivery workers).
   * `files`: how apps' statements sign File download URLs.
   */
  constructor(store: Store, onUpgradeError: (appId: string, err: unknown) => void = () => {}, eventsQueued: () => void = () => {}, files?: FileUrlKeys) {
    this.#store = store;
    this.#onUpgradeError = onUpgradeError;
    this.#eventsQueued = eventsQueued;
    this.#files = files;
  }

  async start(): Promise<void> {
    this.#unlisten = await this.#store.listen(CATALOG_CHANNEL, (appId) => this.invalidate(appId));
  }

  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    this.#apps.clear();
    this.#tokens.clear();
    // The store may already be closing with the server; its listener goes with it then.
    await unlisten?.().catch(() => undefined);
  }

  /** Forgets what is cached about an app, named by id or name (its schema, settings or tokens changed). */
  invalidate(idOrName: string): void {
    for (const [id, entry] of this.#apps) {
      if (id === idOrName) this.#apps.delete(id);
      else void entry.then((app) => app?.name === idOrName && this.#apps.get(id) === entry && this.#apps.delete(id), () => undefined);
    }
    // Tokens are few and cheap to check again: any change forgets them all.
    this.#tokens.clear();
  }

  /** Apps held in memory (loaded or loading). */
  get size(): number {
    return this.#apps.size;
  }

  /** The live app with this id, or null when there is none. */
  async get(appId: string): Promise<LiveApp | null> {
    // A path segment that cannot be an id (NUL, 2,000 characters, `..`) never reaches the store.
    if (!isAppId(appId)) return null;
    const cached = this.#apps.get(appId);
    if (cached) {
      const app = await cached;
      if (app === null || Date.now() - app.loadedAt < MAX_AGE_MS) return app;
      if (this.#apps.get(appId) === cached) this.#apps.delete(appId);
    }
    let loading = this.#apps.get(appId);
    if (!loading) {
      const load = this.#load(appId);
      loading = load;
      this.#apps.set(appId, load);
      // Neither a failed load nor an unknown app is remembered once settled: ids made up by a
      // client would otherwise fill the map without bound.
      const forget = () => void (this.#apps.get(appId) === load && this.#apps.delete(appId));
      load.then((app) => app === null && forget(), forget);
    }
    return loading;
  }

  async #load(appId: string): Promise<LiveApp | null> {
    const row = await findApp(this.#store, appId);
    // Endpoints are addressed by id only (names can be reused after a delete).
    if (!row || row.id !== appId) return null;
    let [live, keys, trusted, functions] = await Promise.all([
      liveSchema(this.#store, appId),
      listSigningKeys(this.#store, appId),
      trustedDocuments(this.#store, appId),
      listFunctions(this.#store, appId),
    ]);
    if (!live) return null;
    if (lacksBuiltins(live.model)) {
      // Made before a built-in field existed: given it now, once; if that fails, the app goes
      // on as it was (without the features that need the field).
      try {
        if (await upgradeBuiltins(this.#store, appId)) live = (await liveSchema(this.#store, appId)) ?? live;
      } catch (err) {
        this.#onUpgradeError(appId, err);
      }
    }
    const schema = appSchema(appId, live.version, live.model);
    const context = new AppContext({ id: appId, version: live.version, model: live.model, settings: withDefaults(row.settings), schema, files: this.#files });
    return { id: appId, name: row.name, context, keys, documents: new DocumentCache(), trusted, functions: new AppFunctions(functions, this.#eventsQueued), loadedAt: Date.now() };
  }

  /** Whether `token` is a live admin token of the app. */
  async isAdminToken(appId: string, token: string): Promise<boolean> {
    const hash = tokenHash(token);
    const key = `${appId}:${hash}`;
    const cached = this.#tokens.get(key);
    if (cached && Date.now() - cached.at < MAX_AGE_MS) return cached.valid;
    const valid = (await findAdminToken(this.#store, appId, hash)) !== null;
    if (this.#tokens.size > 10_000) this.#tokens.clear();
    this.#tokens.set(key, { valid, at: Date.now() });
    return valid;
  }
}
