// Global ids and cursors are built in SQL and decoded in JavaScript: the SQL must write exactly
// Node's base64url (no padding, no line breaks) for every length and every byte, on both stores.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base64urlSql } from '../../src/compile/base64url.js';
import { idSql } from '../../src/compile/ids.js';
import { encodeId } from '../../src/model/index.js';
import { sql } from '../../src/sql/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';

/**
 * Texts whose base64 holds every case: each padding (lengths mod 3), line breaks (past 57
 * bytes, PostgreSQL breaks every 76 characters), `+` and `/` (the bytes 0xfb, 0xff; '>' and
 * '?' after other bytes), multi-byte characters, the empty text.
 */
const TEXTS = [
  '',
  'a',
  'ab',
  'abc',
  '>>>???',
  '√ø€ûûûÿÿÿ',
  'Ü'.repeat(40),
  ['[', '"app/Post/id"', ',', '"6f1c1e2a-3b4d-4e5f-8a9b-0c1d2e3f4a5b"', ']'].join(''),
  ...Array.from({ length: 12 }, (_, i) => `${'?>~'.repeat(i * 7)}${'x'.repeat(i)}`),
];

for (const kind of STORES) {
  describe(`base64url built in SQL (${kind})`, () => {
    let t: TestStore;
    beforeAll(async () => {
      t = await openTestStore(kind, { catalog: false });
    });
    afterAll(() => t.close());

    it("writes Node's base64url of any text", async () => {
      for (const text of TEXTS) {
        const { rows } = await t.store.query<{ v: string }>(sql`SELECT ${base64urlSql(sql`${text}::text`)} AS v`);
        expect(rows[0]?.v, JSON.stringify(text)).toBe(Buffer.from(text, 'utf8').toString('base64url'));
      }
      // A case above breaks lines and one pads twice: the replacements are exercised, not assumed.
      expect(TEXTS.some((text) => Buffer.byteLength(text) > 57)).toBe(true);
      expect(TEXTS.some((text) => Buffer.from(text).toString('base64').endsWith('=='))).toBe(true);
      expect(TEXTS.some((text) => /[+/]/.test(Buffer.from(text).toString('base64')))).toBe(true);
    });

    it('writes the ids the model decodes, for short and long type names', async () => {
      const uuid = '0f9e8d7c-6b5a-4c3d-9e2f-1a0b9c8d7e6f';
      for (const type of ['Post', 'A', 'Ab', 'VeryLongTypeNameThatBreaksTheLine']) {
        const { rows } = await t.store.query<{ v: string }>(sql`SELECT ${idSql(type, sql`${uuid}::uuid`)} AS v`);
        expect(rows[0]?.v).toBe(encodeId(type, uuid));
      }
    });
  });
}
