// The Store contract, run against both drivers: bound parameters, the JavaScript values each
// column type comes back as, transactions, locks, LISTEN/NOTIFY, errors, closing and reopening.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTesseraError } from '../../src/errors/index.js';
import { ident, sql } from '../../src/sql/index.js';
import { openStore, sqlState } from '../../src/store/index.js';
import type { Store } from '../../src/store/index.js';
import { STORES, openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';
import { sleep, waitUntil } from '../helpers/wait.js';

for (const kind of STORES) {
  describe(`store driver (${kind})`, () => {
    let t: TestStore;
    let store: Store;

    beforeAll(async () => {
      t = await openTestStore(kind, { catalog: false });
      store = t.store;
      await store.query(sql`CREATE TABLE items (id serial PRIMARY KEY, label text NOT NULL UNIQUE)`);
    });
    afterAll(() => t?.close());

    it('binds values as parameters, never as SQL text', async () => {
      const hostile = `x'); DROP TABLE items; --`;
      const { rows } = await store.query<{ sum: number; echo: string }>(sql`SELECT ${2}::int + ${3}::int AS sum, ${hostile}::text AS echo`);
      expect(rows).toEqual([{ sum: 5, echo: hostile }]);
      const table = await store.query(sql`SELECT 1 FROM ${ident('items')}`);
      expect(table.rowCount).toBe(0);
    });

    it('returns the same JavaScript values for every column type', async () => {
      const { rows } = await store.query(sql`
        SELECT '2016-12-08T12:33:56.123Z'::timestamptz(3) AS ts,
               '{"a": [1, 2.5, "x", null, true]}'::jsonb AS jb,
               '[1, 2]'::json AS js,
               'a81bc81b-dead-4e5d-abff-90865d1e13b1'::uuid AS id,
               'text'::text AS t,
               42::int4 AS i4,
               7::int2 AS i2,
               1.5::float8 AS f8,
               (SELECT count(*) FROM generate_series(1, 3)) AS c,
               9007199254740993::int8 AS huge,
               true AS b,
               1.10::numeric AS n,
               NULL::int AS nothing,
               ARRAY['a', 'b']::text[] AS ta,
               ARRAY[1, 2]::int8[] AS ia,
               '2020-02-29'::date AS d,
               ${new Date('2020-01-01T00:00:00.456Z')}::timestamptz AS param_ts,
               ${JSON.stringify({ k: [1] })}::jsonb AS param_json`);
      expect(rows).toEqual([
        {
          ts: new Date('2016-12-08T12:33:56.123Z'),
          jb: { a: [1, 2.5, 'x', null, true] },
          js: [1, 2],
          id: 'a81bc81b-dead-4e5d-abff-90865d1e13b1',
          t: 'text',
          i4: 42,
          i2: 7,
          f8: 1.5,
          c: 3,
          huge: '9007199254740993',
          b: true,
          n: '1.10',
          nothing: null,
          ta: ['a', 'b'],
          ia: [1, 2],
          d: new Date('2020-02-29T00:00:00.000Z'),
          param_ts: new Date('2020-01-01T00:00:00.456Z'),
          param_json: { k: [1] },
        },
      ]);
    });

    it('runs sessions in UTC', async () => {
      const { rows } = await store.query<{ tz: string; day: Date }>(
        sql`SELECT current_setting('TimeZone') AS tz, date_trunc('day', '2020-01-01T23:30:00Z'::timestamptz) AS day`,
      );
      expect(rows[0]).toEqual({ tz: 'UTC', day: new Date('2020-01-01T00:00:00Z') });
    });

    it('reports affected rows', async () => {
      const inserted = await store.query(sql`INSERT INTO items (label) VALUES ('r1'), ('r2')`);
      expect(inserted.rowCount).toBe(2);
      const updated = await store.query(sql`UPDATE items SET label = label || '!' WHERE label = 'r1'`);
      expect(updated.rowCount).toBe(1);
      const deleted = await store.query(sql`DELETE FROM items WHERE label IN ('r1!', 'r2')`);
      expect(deleted.rowCount).toBe(2);
    });

    it('commits a transaction that resolves', async () => {
      const result = await store.transaction(async (tx) => {
        await tx.query(sql`INSERT INTO items (label) VALUES ('committed')`);
        return 'done';
      });
      expect(result).toBe('done');
      expect((await store.query(sql`SELECT 1 FROM items WHERE label = 'committed'`)).rowCount).toBe(1);
    });

    it('rolls back a transaction that throws, and rethrows the same error', async () => {
      const failure = new Error('changed my mind');
      await expect(
        store.transaction(async (tx) => {
          await tx.query(sql`INSERT INTO items (label) VALUES ('rolled back')`);
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect((await store.query(sql`SELECT 1 FROM items WHERE label = 'rolled back'`)).rowCount).toBe(0);
    });

    it('refuses a transaction object used after its end', async () => {
      let kept: Parameters<Parameters<Store['transaction']>[0]>[0] | undefined;
      await store.transaction(async (tx) => {
        kept = tx;
      });
      await expect(kept!.query(sql`SELECT 1`)).rejects.toThrow(/ended/);
    });

    it('surfaces database errors as internal errors carrying the driver error', async () => {
      await store.query(sql`INSERT INTO items (label) VALUES ('dup')`);
      const err = await store.query(sql`INSERT INTO items (label) VALUES ('dup')`).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(Error);
      expect(isTesseraError(err)).toBe(false);
      expect((err as Error).cause).toBeDefined();
      expect(sqlState(err)).toBe('23505');

      const inTx = await store
        .transaction(async (tx) => {
          await tx.query(sql`SELECT * FROM no_such_table`);
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isTesseraError(inTx)).toBe(false);
      expect(sqlState(inTx)).toBe('42P01');
    });

    it('does not let a statement outside a transaction run inside it', async () => {
      let entered!: () => void;
      const inside = new Promise<void>((resolve) => (entered = resolve));
      const tx = store.transaction(async (t) => {
        await t.query(sql`INSERT INTO items (label) VALUES ('inside')`);
        entered();
        await sleep(150);
        throw new Error('roll back');
      });
      await inside;
      const outside = store.query(sql`INSERT INTO items (label) VALUES ('outside')`);
      await expect(tx).rejects.toThrow('roll back');
      await outside;
      const { rows } = await store.query<{ label: string }>(sql`SELECT label FROM items WHERE label IN ('inside', 'outside')`);
      expect(rows.map((r) => r.label)).toEqual(['outside']);
    });

    it('serialises transactions that take the same advisory lock', async () => {
      const events: string[] = [];
      let locked!: () => void;
      const firstHasLock = new Promise<void>((resolve) => (locked = resolve));
      const first = store.transaction(async (tx) => {
        await tx.advisoryLock('tessera:test:lock');
        locked();
        await sleep(200);
        events.push('first done');
      });
      await firstHasLock;
      const second = store.transaction(async (tx) => {
        await tx.advisoryLock('tessera:test:lock');
        events.push('second has lock');
      });
      await Promise.all([first, second]);
      expect(events).toEqual(['first done', 'second has lock']);
    });

    it('delivers notifications to listeners until they unsubscribe', async () => {
      const got: string[] = [];
      const channel = 'Tessera:app.Events';
      const unlisten = await store.listen(channel, (payload) => got.push(payload));
      const other: string[] = [];
      const unlistenOther = await store.listen('other', (payload) => other.push(payload));
      await store.notify(channel, 'hello');
      await waitUntil(() => got.length === 1, 5_000, 'notification');
      expect(got).toEqual(['hello']);
      expect(other).toEqual([]);
      await unlisten();
      await unlisten(); // idempotent
      await store.notify(channel, 'after unlisten');
      await store.notify('other', 'for other');
      await waitUntil(() => other.length === 1, 5_000, 'notification on the other channel');
      expect(got).toEqual(['hello']);
      await unlistenOther();
    });

    it('delivers a notification sent in a transaction only when it commits', async () => {
      const got: string[] = [];
      const unlisten = await store.listen('tx_events', (payload) => got.push(payload));
      await expect(
        store.transaction(async (tx) => {
          await tx.notify('tx_events', 'rolled back');
          throw new Error('abort');
        }),
      ).rejects.toThrow('abort');
      let committed!: () => void;
      const done = new Promise<void>((resolve) => (committed = resolve));
      const tx = store.transaction(async (t) => {
        await t.notify('tx_events', 'committed');
        await sleep(100);
        expect(got).toEqual([]);
        committed();
      });
      await done;
      await tx;
      await waitUntil(() => got.length > 0, 5_000, 'committed notification');
      await sleep(50);
      expect(got).toEqual(['committed']);
      await unlisten();
    });

    it('answers ping', async () => {
      expect(await store.ping()).toBe(true);
    });

    // Embedded-only behaviour is defined for the embedded run only, not counted as skipped elsewhere.
    const itEmbedded = kind === 'embedded' ? it : () => undefined;

    itEmbedded('refuses a statement on the store from inside its own transaction instead of hanging', async () => {
      await expect(
        store.transaction(async () => {
          await store.query(sql`SELECT 1`);
        }),
      ).rejects.toThrow(/Use the transaction/);
      // Work started inside a transaction but run after it is fine.
      let later: Promise<unknown> | undefined;
      await store.transaction(async () => {
        later = sleep(20).then(() => store.query(sql`SELECT 1`));
      });
      await expect(later).resolves.toBeDefined();
    });

    // Last: the store is closed from here on (afterAll closes it once more).
    it('closes idempotently and refuses work afterwards', async () => {
      await store.listen('closing', () => undefined);
      await Promise.all([store.close(), store.close()]);
      await store.close();
      expect(await store.ping()).toBe(false);
      await expect(store.query(sql`SELECT 1`)).rejects.toThrow(/closed/);
      await expect(store.transaction(async () => undefined)).rejects.toThrow(/closed/);
    });

    itEmbedded('keeps its data across closing and reopening the data directory', async () => {
      const reopened = await openStore({ dataDir: t.dataDir! });
      try {
        const { rows } = await reopened.query(sql`SELECT label FROM items WHERE label IN ('committed', 'outside') ORDER BY label`);
        expect(rows).toEqual([{ label: 'committed' }, { label: 'outside' }]);
      } finally {
        await reopened.close();
      }
    });
  });
}

