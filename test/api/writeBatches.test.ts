// One-statement writes of many callers and apps sent to PostgreSQL in batches committed as one
// (src/store/lanes.ts), seen as clients see them: each caller gets its own row back, never
// another's or another app's; a write that fails (a unique value taken) fails alone, the writes
// batched with it are written; and nothing is half-written. The batching itself is checked in
// the database: rows made several to a transaction.

import { describe, expect, it } from 'vitest';
import pg from 'pg';
import { appSchemaName } from '../../src/store/index.js';
import { STORES } from '../helpers/stores.js';
import { startTestServer } from '../server/harness.js';
import { createTestApp } from './harness.js';
import type { TestApp } from './harness.js';

const SCHEMA = 'type Note @model @permission(scope: EVERYONE, read: true) { text: String! slug: String @unique }';
const CREATE = 'mutation($input: CreateNoteInput!) { createNote(input: $input) { changedNote { id text slug } } }';

interface Outcome {
  text: string;
  slug: string | null;
  code: string | undefined;
}

async function create(app: TestApp, text: string, slug: string | null): Promise<Outcome> {
  const reply = await app.gql(CREATE, { input: { text, slug } });
  const note = reply.body.data?.createNote?.changedNote as { text: string; slug: string | null } | undefined;
  return { text: note?.text ?? '', slug: note?.slug ?? null, code: reply.body.errors?.[0]?.extensions?.code as string | undefined };
}

describe.runIf(STORES.includes('postgres'))('one-statement writes batched on the postgres store', () => {
  it('answers each caller with its own row, fails only the write whose value is taken, and writes the ones batched with it', async () => {
    const server = await startTestServer('postgres');
    const db = new pg.Client({ connectionString: server.databaseUrl });
    await db.connect();
    try {
      const a = await createTestApp(server, SCHEMA);
      const b = await createTestApp(server, SCHEMA);
      await a.data('mutation { createNote(input: { text: "first", slug: "taken" }) { changedNote { id } } }');
      // Enough at once that the pool is busy and the lanes get the statement prepared.
      for (let round = 0; round < 3; round++) {
        await Promise.all(Array.from({ length: 40 }, (_, i) => Promise.all([create(a, `warm a${round}.${i}`, null), create(b, `warm b${round}.${i}`, null)])));
      }
      // Then writes of both apps at once: a third of app a's take a slug already taken.
      const writesA = Array.from({ length: 30 }, (_, i) => ({ text: `a ${i}`, slug: i % 3 === 0 ? 'taken' : `a-${i}` }));
      const writesB = Array.from({ length: 30 }, (_, i) => ({ text: `b ${i}`, slug: `b-${i}` }));
      const [outA, outB] = await Promise.all([Promise.all(writesA.map((w) => create(a, w.text, w.slug))), Promise.all(writesB.map((w) => create(b, w.text, w.slug)))]);
      expect(outA).toEqual(writesA.map((w) => (w.slug === 'taken' ? { text: '', slug: null, code: 'CONFLICT' } : { ...w, code: undefined })));
      expect(outB).toEqual(writesB.map((w) => ({ ...w, code: undefined })));

      // Nothing of a failed write, nothing lost of the others, nothing of one app in the other.
      const rows = async (app: TestApp) =>
        (await db.query<{ text: string; slug: string | null; xmin: string }>(`SELECT text, slug, xmin::text AS xmin FROM "${appSchemaName(app.id)}"."Note" WHERE text NOT LIKE 'warm %'`)).rows;
      const rowsA = await rows(a);
      const rowsB = await rows(b);
      expect(rowsA.map((r) => r.slug).sort()).toEqual(['taken', ...writesA.filter((w) => w.slug !== 'taken').map((w) => w.slug)].sort());
      expect(rowsA.filter((r) => r.slug === 'taken').map((r) => r.text)).toEqual(['first']);
      expect(rowsB.map((r) => `${r.text}/${r.slug}`).sort()).toEqual(writesB.map((w) => `${w.text}/${w.slug}`).sort());

      // Batched: rows of each app made several to a transaction.
      for (const app of [a, b]) {
        const warm = await db.query<{ rows: number; transactions: number }>(
          `SELECT count(*)::int AS rows, count(DISTINCT xmin::text)::int AS transactions FROM "${appSchemaName(app.id)}"."Note" WHERE text LIKE 'warm %'`,
        );
        expect(warm.rows[0]!.rows).toBe(120);
        expect(warm.rows[0]!.transactions).toBeLessThan(warm.rows[0]!.rows);
      }
    } finally {
      await db.end();
      await server.close();
    }
  });
});
