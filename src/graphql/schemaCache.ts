// The schemas of recently used app versions, so a request does not rebuild its app's schema.
// An app version never changes, so an entry never goes stale; the least recently used go first.

import type { GraphQLSchema } from 'graphql';
import { LruMap } from '../lru/index.js';
import type { AppModel } from '../model/index.js';
import { buildAppSchema } from './buildAppSchema.js';

/**
 * How many app versions' schemas are kept: for the management API (an app's printed schema, its
 * mutations' names), which looks at a few apps at a time. The server's loaded apps keep their
 * schemas in its app cache, within its memory budget; each schema is hundreds of KiB.
 */
export const SCHEMA_CACHE_SIZE = 16;

const cache = new LruMap<string, GraphQLSchema>(SCHEMA_CACHE_SIZE);

/** The schema of app `appId` at `version` (whose model is `model`), built on first use. */
export function appSchema(appId: string, version: number, model: AppModel): GraphQLSchema {
  const key = `${appId}@${version}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const schema = buildAppSchema(model);
  cache.set(key, schema);
  return schema;
}
