// What an app version keeps of the documents it has compiled: per document text and operation,
// the queries' root-field plans and the mutations' one-statement writes. Apps of one model
// share one cache (AppContext.shared); a plan's text is kept per shape of what it depends on,
// the request's variables and its app's settings (plans.ts), so one document serves every app
// whose requests give it that shape.

import type { FieldNode } from 'graphql';
import { LruMap } from '../lru/index.js';
import type { AppContext } from './context.js';
import type { WritePlan } from './mutations/oneStatement.js';
import type { PreparedStatement } from './params.js';
import { ShapedPlans } from './plans.js';
import type { CustomPlan } from './resolvers/customField.js';

/** One root field of a compiled query: SQL, an error found while compiling, or plain JSON. */
export type RootPlan =
  | { key: string; kind: 'sql'; statement: PreparedStatement; node: FieldNode }
  | { key: string; kind: 'error'; error: unknown; node: FieldNode }
  | { key: string; kind: 'custom'; plan: CustomPlan; node: FieldNode }
  | { key: string; kind: 'json'; text: string }
  | { key: string; kind: 'introspection'; nodes: FieldNode[] };

const MAX_PLANS_PER_DOCUMENT = 64;
const MAX_DOCUMENTS = 500;

/**
 * A document's plans, by what else they are kept for (the operation, and for queries the kind
 * of caller).
 */
type DocumentEntry<P> = Map<string, ShapedPlans<P>>;

/**
 * An app version's statement cache, keyed by the document's text (the string a request brings,
 * hashed once for the document cache as well), then operation; `plans` counts the plans held,
 * so that whoever keeps the app loaded can tell what it costs.
 */
interface StatementCache {
  queries: LruMap<string, DocumentEntry<RootPlan[]>>;
  writes: LruMap<string, DocumentEntry<WritePlan>>;
  plans: number;
}

const caches = new WeakMap<AppContext, StatementCache>();

function cacheOf(app: AppContext): StatementCache {
  let cache = caches.get(app);
  if (!cache) {
    cache = { queries: new LruMap(MAX_DOCUMENTS, releasePlans), writes: new LruMap(MAX_DOCUMENTS, releasePlans), plans: 0 };
    caches.set(app, cache);
  }
  return cache;
}

/** A document let go takes its plans with it. */
function releasePlans<P>(_query: string, entry: DocumentEntry<P>): void {
  for (const plans of entry.values()) plans.clear();
}

/** The plans of document `query` kept under `key` in `documents` (the cache's queries or writes), made empty when it has none. */
function documentPlans<P>(cache: StatementCache, documents: LruMap<string, DocumentEntry<P>>, query: string, key: string): ShapedPlans<P> {
  let entry = documents.get(query);
  if (!entry) {
    entry = new Map();
    documents.set(query, entry);
  }
  let plans = entry.get(key);
  if (!plans) {
    plans = new ShapedPlans<P>(MAX_PLANS_PER_DOCUMENT, (delta) => {
      cache.plans += delta;
    });
    entry.set(key, plans);
  }
  return plans;
}

/** The root-field plans of query `query` kept in `app`'s cache under `operationKey`. */
export function queryPlansOf(app: AppContext, query: string, operationKey: string): ShapedPlans<RootPlan[]> {
  const cache = cacheOf(app);
  return documentPlans(cache, cache.queries, query, operationKey);
}

/** The one-statement write plans of mutation document `query` kept in `app`'s cache under `operationKey`. */
export function writePlansOf(app: AppContext, query: string, operationKey: string): ShapedPlans<WritePlan> {
  const cache = cacheOf(app);
  return documentPlans(cache, cache.writes, query, operationKey);
}

/** How many compiled plans the app version's statement cache holds (0 before its first query). */
export function cachedPlans(app: AppContext): number {
  return caches.get(app)?.plans ?? 0;
}
