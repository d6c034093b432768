// A map that holds at most `limit` entries and lets the least recently used go first: what
// every in-memory cache of the server that is bounded by a count is built on (validated
// documents, compiled statements, GraphQL schemas, token and user answers, OpenID providers).
// A Map iterates in insertion order, so re-inserting an entry on each use keeps the least
// recently used first; an entry used again while it is the newest stays where it is (most uses
// of a hot cache are of the entry used last, and re-inserting costs a delete and a set).

/** No entry is known to be the newest. */
const NONE: unique symbol = Symbol('none');

export class LruMap<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #evicted: ((key: K, value: V) => void) | undefined;
  /** The key set or got last (the Map's last entry), when it is still held. */
  #newest: K | typeof NONE = NONE;

  /** `evicted` hears of each entry that leaves: let go beyond `limit`, replaced or deleted (not by `clear`). */
  constructor(
    readonly limit: number,
    evicted?: (key: K, value: V) => void,
  ) {
    if (!(Number.isInteger(limit) && limit >= 1)) throw new RangeError(`an LruMap holds at least one entry, not ${limit}`);
    this.#evicted = evicted;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The entry's value, which becomes the most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value === undefined) return undefined;
    if (this.#newest === key) return value;
    this.#entries.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    return value;
  }

  /** The entry's value, leaving the order of use as it is. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Sets the entry as the most recently used, then lets the least recently used go beyond the limit. */
  set(key: K, value: V): void {
    this.delete(key);
    this.#entries.set(key, value);
    this.#newest = key;
    while (this.#entries.size > this.limit) this.delete(this.#entries.keys().next().value as K);
  }

  /** Forgets the entry; whether there was one. */
  delete(key: K): boolean {
    if (!this.#entries.has(key)) return false;
    const value = this.#entries.get(key) as V;
    this.#entries.delete(key);
    if (this.#newest === key) this.#newest = NONE;
    this.#evicted?.(key, value);
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#newest = NONE;
  }

  values(): IterableIterator<V> {
    return this.#entries.values();
  }
}
