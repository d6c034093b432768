// The loaded apps of one instance, least recently used first, held within a memory budget
// (TESSERA_APP_CACHE_MB), and the GraphQL schemas and validated documents they use, shared by
// apps whose models are the same (the tenants of one SaaS product): memory follows the apps in
// use, not the apps that exist.
// Sizes are estimates from what an entry holds (schema fields, cached documents and plans),
// calibrated by the `apps` benchmark, so that eviction does not depend on the garbage collector.

import { createHash } from 'node:crypto';
import { isEnumType, isInputObjectType, isInterfaceType, isObjectType } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { AppContext, cachedPlans } from '../compile/index.js';
import type { FileUrlKeys } from '../compile/index.js';
import { buildAppSchema } from '../graphql/index.js';
import type { AppModel } from '../model/index.js';
import { DocumentCache } from './operation/prepare.js';

/**
 * Heap bytes per field (and enum value) of a built schema, its model included: 500 to 560 on
 * the schemas measured (a one-type app: 842 fields, 443 KiB; the benchmark's five types: 1,390
 * fields, 708 KiB; twenty types: 3,905 fields, 1.9 MiB).
 */
export const SCHEMA_BYTES_PER_FIELD = 560;
/**
 * An app's own state once loaded, besides its schema and caches: context, keys, settings,
 * limits. With PLAN_BYTES, fitted to the `apps` benchmark: 1,000 loaded apps of one schema grew
 * the heap by 16.7 KiB an app with about two plans each, and by 20.0 KiB with about 2.7.
 */
export const APP_BYTES = 8 * 1024;
/** A validated document, per character of its text (the parsed tree with locations). */
export const DOCUMENT_BYTES_PER_CHAR = 40;
/** A compiled statement plan (SQL text, parameter slots, the root field it answers). */
export const PLAN_BYTES = 4 * 1024;

/** What the cache asks of an entry: who it is, which shared schema it uses, and what it holds besides. */
export interface Cacheable {
  id: string;
  name: string;
  schema: SharedSchema;
  /** Estimated bytes of the entry's own state; it may grow while cached (compiled plans). */
  ownBytes(): number;
}

/** A schema as the pool lends it: the model it was built from is shared too. */
export interface SharedSchema {
  readonly key: string;
  readonly model: AppModel;
  readonly schema: GraphQLSchema;
  /** The documents validated against it under the rules `rulesKey` names (documentRulesKey). */
  documents(rulesKey: string): DocumentCache;
  /** The context its apps' queries are compiled and cached in (AppContext.shared), made once. */
  context(files: FileUrlKeys | undefined): AppContext;
}

class Pooled implements SharedSchema {
  readonly #documents = new Map<string, DocumentCache>();
  #context: AppContext | undefined;
  /** Estimated bytes of the schema itself. */
  readonly schemaBytes: number;
  /** Cached apps and loads in progress holding it. */
  users = 0;
  /** Estimated bytes as last counted (the documents grow). */
  counted: number;

  constructor(
    readonly key: string,
    readonly model: AppModel,
    readonly schema: GraphQLSchema,
  ) {
    this.schemaBytes = schemaBytes(schema);
    this.counted = this.schemaBytes;
  }

  documents(rulesKey: string): DocumentCache {
    let documents = this.#documents.get(rulesKey);
    if (!documents) {
      documents = new DocumentCache();
      this.#documents.set(rulesKey, documents);
    }
    return documents;
  }

  context(files: FileUrlKeys | undefined): AppContext {
    this.#context ??= AppContext.shared(this.model, this.schema, files);
    return this.#context;
  }

  bytes(): number {
    let chars = 0;
    for (const documents of this.#documents.values()) chars += documents.chars;
    const plans = this.#context ? cachedPlans(this.#context) : 0;
    return this.schemaBytes + chars * DOCUMENT_BYTES_PER_CHAR + plans * PLAN_BYTES;
  }
}

/** Estimated heap bytes of a built schema. */
export function schemaBytes(schema: GraphQLSchema): number {
  let fields = 0;
  for (const type of Object.values(schema.getTypeMap())) {
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) fields += Object.keys(type.getFields()).length;
    else if (isEnumType(type)) fields += type.getValues().length;
  }
  return fields * SCHEMA_BYTES_PER_FIELD;
}

export interface AppCacheStats {
  /** Apps held. */
  apps: number;
  /** Distinct schemas they share. */
  schemas: number;
  /** Estimated bytes of both. */
  bytes: number;
  /** Apps let go to stay within the budget, since the start. */
  evictions: number;
  /** Apps loaded into the cache, since the start (first requests, and requests after an eviction or a change). */
  loads: number;
}

export class AppCache<T extends Cacheable> {
  readonly #budget: number;
  /** Least recently used first (a Map keeps insertion order; a use re-inserts). */
  readonly #entries = new Map<string, { app: T; bytes: number }>();
  /** The id inserted last into #entries, while it is there: using it again moves nothing. */
  #newest: string | undefined;
  readonly #schemas = new Map<string, Pooled>();
  #appBytes = 0;
  #schemaBytes = 0;
  #evictions = 0;
  #loads = 0;

  constructor(budgetBytes: number) {
    this.#budget = budgetBytes;
  }

  /**
   * The schema for `model`, built unless an app with the same model holds one. The caller
   * holds it until it `release`s it, or hands it over to the cache by `add`ing an app with it.
   */
  acquire(model: AppModel): SharedSchema {
    const key = createHash('sha256').update(JSON.stringify(model)).digest('base64url');
    let pooled = this.#schemas.get(key);
    if (!pooled) {
      pooled = new Pooled(key, model, buildAppSchema(model));
      this.#schemas.set(key, pooled);
      this.#schemaBytes += pooled.counted;
    }
    pooled.users += 1;
    return pooled;
  }

  /** Gives back a schema from `acquire` whose app is not cached after all. */
  release(schema: SharedSchema): void {
    const pooled = this.#schemas.get(schema.key);
    if (!pooled || pooled !== schema) return;
    pooled.users -= 1;
    if (pooled.users > 0) return;
    this.#schemas.delete(schema.key);
    this.#schemaBytes -= pooled.counted;
  }

  /**
   * The cached app, now the most recently used; its size and its schema's are looked at again
   * (the requests it answered since may have cached documents and plans).
   */
  get(id: string): T | undefined {
    const entry = this.#entries.get(id);
    if (!entry) return undefined;
    // Most requests in a row are for the app used last: it is the newest already.
    if (this.#newest !== id) {
      this.#entries.delete(id);
      this.#entries.set(id, entry);
      this.#newest = id;
    }
    const bytes = entry.app.ownBytes();
    // Present: a cached app holds its schema in the pool.
    const pooled = this.#schemas.get(entry.app.schema.key);
    const shared = pooled?.bytes() ?? 0;
    if (bytes !== entry.bytes || (pooled && shared !== pooled.counted)) {
      this.#appBytes += bytes - entry.bytes;
      entry.bytes = bytes;
      if (pooled) {
        this.#schemaBytes += shared - pooled.counted;
        pooled.counted = shared;
      }
      this.#shrink();
    }
    return entry.app;
  }

  /**
   * Caches an app (taking over the schema it acquired), then lets the least recently used go
   * until the budget holds. The newest app always stays, even alone over the budget. An app let
   * go is only forgotten: a request holding it goes on with it.
   */
  add(app: T): void {
    this.delete(app.id);
    const bytes = app.ownBytes();
    this.#entries.set(app.id, { app, bytes });
    this.#newest = app.id;
    this.#appBytes += bytes;
    this.#loads += 1;
    this.#shrink();
  }

  delete(id: string): boolean {
    const entry = this.#entries.get(id);
    if (!entry) return false;
    this.#entries.delete(id);
    if (this.#newest === id) this.#newest = undefined;
    this.#appBytes -= entry.bytes;
    this.release(entry.app.schema);
    return true;
  }

  /** Forgets the apps `match` picks (an app named in a catalog change). */
  deleteWhere(match: (app: T) => boolean): void {
    for (const { app } of [...this.#entries.values()]) if (match(app)) this.delete(app.id);
  }

  clear(): void {
    for (const id of [...this.#entries.keys()]) this.delete(id);
  }

  get stats(): AppCacheStats {
    return { apps: this.#entries.size, schemas: this.#schemas.size, bytes: this.#appBytes + this.#schemaBytes, evictions: this.#evictions, loads: this.#loads };
  }

  #shrink(): void {
    while (this.#appBytes + this.#schemaBytes > this.#budget && this.#entries.size > 1) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) return;
      this.delete(oldest.value);
      this.#evictions += 1;
    }
  }
}
