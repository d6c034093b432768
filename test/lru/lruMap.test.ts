// The bounded map every count-bounded cache is built on: it holds at most its limit, lets the
// least recently used go first (a read counts as a use), and says which entries left.

import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/lru/index.js';
import { DocumentCache } from '../../src/server/operation/prepare.js';
import { parse } from 'graphql';

describe('LruMap', () => {
  it('lets the least recently used entry go past its limit, a read counting as a use', () => {
    const gone: [string, number][] = [];
    const map = new LruMap<string, number>(3, (key, value) => gone.push([key, value]));
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).toBe(1);
    map.set('d', 4);
    expect(gone).toEqual([['b', 2]]);
    expect([...map.values()]).toEqual([3, 1, 4]);
    expect(map.has('b')).toBe(false);
    expect(map.size).toBe(3);
  });

  it('reports a replaced or deleted entry, and not a cleared one', () => {
    const gone: string[] = [];
    const map = new LruMap<string, string>(2, (key, value) => gone.push(`${key}=${value}`));
    map.set('a', 'old');
    map.set('a', 'new');
    expect(gone).toEqual(['a=old']);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(gone).toEqual(['a=old', 'a=new']);
    map.set('b', 'x');
    map.clear();
    expect(map.size).toBe(0);
    expect(gone).toHaveLength(2);
  });

  it('keeps the order of use when the newest entry is used again, set again or deleted', () => {
    const gone: string[] = [];
    const map = new LruMap<string, number>(3, (key) => gone.push(key));
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    // c is the newest: using it again moves nothing; a then b are still the oldest.
    map.get('c');
    map.get('c');
    map.set('d', 4);
    expect(gone).toEqual(['a']);
    // b used: newest; then d (older than b now) used twice and c never again.
    map.get('b');
    map.get('d');
    map.get('d');
    map.set('e', 5);
    expect(gone).toEqual(['a', 'c']);
    expect([...map.values()]).toEqual([2, 4, 5]);
    // The newest deleted: the entry before it becomes the newest only once used.
    map.delete('e');
    map.get('b');
    map.set('f', 6);
    map.set('g', 7);
    expect(gone).toEqual(['a', 'c', 'e', 'd']);
    expect([...map.values()]).toEqual([2, 6, 7]);
    // Cleared, then filled again: nothing of before counts as the newest.
    map.clear();
    map.set('x', 1);
    map.set('y', 2);
    map.get('x');
    map.set('z', 3);
    map.set('w', 4);
    expect([...map.values()]).toEqual([1, 3, 4]);
  });

  it('refuses a limit below one', () => {
    expect(() => new LruMap(0)).toThrow(RangeError);
    expect(() => new LruMap(1.5)).toThrow(RangeError);
  });
});

describe('DocumentCache', () => {
  it('counts the text of the documents it holds as they come and go', () => {
    const cache = new DocumentCache(2);
    const queries = ['{ a }', '{ bb }', '{ ccc }'];
    for (const q of queries) cache.set(q, parse(q));
    expect(cache.get('{ a }')).toBeUndefined();
    expect(cache.chars).toBe('{ bb }'.length + '{ ccc }'.length);
    // A document used lately stays when another comes.
    expect(cache.get('{ bb }')).toBeDefined();
    cache.set('{ dddd }', parse('{ dddd }'));
    expect(cache.get('{ ccc }')).toBeUndefined();
    expect(cache.chars).toBe('{ bb }'.length + '{ dddd }'.length);
    cache.set('{ bb }', parse('{ bb }'));
    expect(cache.chars).toBe('{ bb }'.length + '{ dddd }'.length);
  });
});
