// Random choices for the fuzzer, drawn through fast-check's `gen()` so that a failing run is
// reproduced by its seed, and the value generators shared by schemas and operations.

import fc from 'fast-check';

export class Choose {
  constructor(readonly g: fc.GeneratorValue) {}

  int(min: number, max: number): number {
    return this.g(fc.integer, { min, max });
  }

  chance(p: number): boolean {
    return this.int(0, 999) < p * 1000;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** `n` distinct items in random order. */
  some<T>(items: readonly T[], n: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < n && pool.length > 0) out.push(pool.splice(this.int(0, pool.length - 1), 1)[0] as T);
    return out;
  }

  /** A name of a GraphQL-safe shape: a letter, then letters, digits and `_`. */
  name(prefix: string, maxExtra = 12): string {
    const tail = this.g(fc.string, { unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_'), maxLength: maxExtra });
    return `${prefix}${tail}`;
  }

  /** A plain string as an app would store: mostly short ASCII, sometimes any unicode. */
  text(): string {
    return this.chance(0.8) ? this.g(fc.string, { maxLength: 24 }) : this.g(fc.string, { unit: 'grapheme', maxLength: 24 });
  }

  isoDate(): string {
    const d = this.g(fc.date, { min: new Date('1970-01-01T00:00:00.000Z'), max: new Date('2100-01-01T00:00:00.000Z'), noInvalidDate: true });
    return d.toISOString();
  }

  json(): unknown {
    return this.g(fc.jsonValue, { maxDepth: 3 });
  }

  /** A string meant to trip something up: huge, odd unicode, NUL, SQL or GraphQL syntax. */
  oddString(): string {
    switch (this.int(0, 7)) {
      case 0:
        return 'x'.repeat(this.pick([10_001, 50_000, 300_000]));
      case 1:
        return this.g(fc.string, { unit: 'binary', minLength: 1, maxLength: 64 });
      case 2:
        return this.pick(['\u0000', 'a\u0000b', '\ud800', '\udfff', 'x\ud83d', '\u202e\u202dabc', 'e\u0301\u0301\u0301', '\ufeff', '\uffff', '\u{10ffff}', '😀'.repeat(3000)]);
      case 3:
        return this.pick(["'; DROP TABLE \"User\"; --", "' OR '1'='1", '$1', '::jsonb', '\\', '%', '_', '%_\\%', '"', "''", 'E\'\\x00\'', 'NULL', '{"a":1}']);
      case 4:
        return this.pick(['2017', '2017-13-45', 'not a date', '9999-12-31T23:59:59.999Z', '0000-01-01', '-infinity', 'NaN', '1e308', '']);
      case 5:
        return this.pick(['UG9zdDo=', 'VXNlcjo4YTQ2', Buffer.from('Post:00000000-0000-0000-0000-000000000000').toString('base64url'), 'a'.repeat(200)]);
      case 6:
        return this.g(fc.string, { unit: 'grapheme', minLength: 1, maxLength: 200 });
      default:
        return `{ ${'['.repeat(this.int(1, 200))}`;
    }
  }

  /** Any JSON value of another kind than `v`, to put where `v` was expected. */
  otherKind(v: unknown): unknown {
    const kinds: (() => unknown)[] = [
      () => this.g(fc.integer),
      () => this.pick([1.5, -0, 1e300, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 1]),
      () => this.text(),
      () => this.g(fc.boolean),
      () => null,
      () => [v],
      () => ({ value: v }),
      () => this.json(),
    ];
    return this.pick(kinds)();
  }
}

/**
 * Builds fast-check's lazily made tables (the full unicode unit maps a million code points, some
 * 100 MB) before the heap is measured, so that they are not taken for the server's growth.
 */
export function warmUpArbitraries(): void {
  for (const unit of ['binary', 'grapheme', 'grapheme-composite', 'binary-ascii'] as const) fc.sample(fc.string({ unit }), 3);
  fc.sample(fc.string(), 3);
  fc.sample(fc.jsonValue({ maxDepth: 3 }), 3);
  fc.sample(fc.uint8Array(), 3);
}
