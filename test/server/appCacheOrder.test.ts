// The app cache lets the least recently used app go first: using the app used last again (most
// requests in a row) moves nothing, and using any other makes it the newest.

import { describe, expect, it } from 'vitest';
import { parseSchema } from '../../src/model/index.js';
import { AppCache, schemaBytes } from '../../src/server/appCache.js';
import type { SharedSchema } from '../../src/server/appCache.js';

const MODEL = parseSchema('type Note @model { text: String }');

interface TestApp {
  id: string;
  name: string;
  schema: SharedSchema;
  ownBytes(): number;
}

describe('the app cache order', () => {
  it('evicts the least recently used app, however often the newest is used again', () => {
    // Room for the shared schema and three apps of 1,000 bytes.
    const probe = new AppCache<TestApp>(Number.MAX_SAFE_INTEGER);
    const schema = probe.acquire(MODEL);
    const budget = schemaBytes(schema.schema) + 3_000;
    const cache = new AppCache<TestApp>(budget);
    const add = (id: string) => cache.add({ id, name: id, schema: cache.acquire(MODEL), ownBytes: () => 1_000 });
    add('a');
    add('b');
    add('c');
    // c is the newest: using it again and again changes nothing; then a is used, then c again.
    for (let i = 0; i < 5; i += 1) expect(cache.get('c')?.id).toBe('c');
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.get('c')?.id).toBe('c');
    expect(cache.get('c')?.id).toBe('c');
    // Oldest first: b, then a.
    add('d');
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    // a was just used: c is the oldest now.
    add('e');
    expect(cache.get('c')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.get('d')?.id).toBe('d');
    expect(cache.get('e')?.id).toBe('e');
    // The newest deleted: the next use of another app still moves it.
    cache.delete('e');
    expect(cache.get('a')?.id).toBe('a');
    add('f');
    add('g');
    expect(cache.get('d')).toBeUndefined();
    expect(cache.get('a')?.id).toBe('a');
    expect(cache.stats.apps).toBe(3);
  });
});
