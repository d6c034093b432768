// A page's statement is one PostgreSQL plans once for all its executions (a generic plan),
// not once per execution: with the page's row count a parameter, PostgreSQL estimated a tenth
// of the table for it and kept planning every page again. The count is written into the text:
// the size the document or a variable gives, or the app's default (compile/connection.ts
// `pageLimit`).
// PostgreSQL only: the embedded store keeps no statement prepared across calls.

import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { planQuery } from '../../src/compile/index.js';
import { AppRegistry } from '../../src/server/appRegistry.js';
import type { LiveApp } from '../../src/server/appRegistry.js';
import { ident, precompiled, sql } from '../../src/sql/index.js';
import { appSchemaName } from '../../src/store/index.js';
import { openTestStore } from '../helpers/stores.js';
import type { TestStore } from '../helpers/stores.js';

const SCHEMA = 'type Note @model { text: String! @index  rank: Int @index  replies: [Reply] @relation(name: "NoteReplies") }\ntype Reply @model { text: String!  note: Note @relation(name: "NoteReplies") }';
const ROWS = 20_000;
/** Executions before the plans are looked at: PostgreSQL makes five custom plans before it weighs a generic one. */
const RUNS = 12;

interface Plans {
  generic: number;
  custom: number;
}

describe('page statements planned once (postgres)', () => {
  let t: TestStore;
  let registry: AppRegistry;
  let live: LiveApp;

  beforeAll(async () => {
    t = await openTestStore('postgres');
    registry = new AppRegistry(t.store);
    await registry.start();
    const { id } = await createAdminService(t.store).createApp({ name: 'pages', schema: SCHEMA });
    live = (await registry.get(id)) as LiveApp;
    // Enough rows that a tenth of the table costs far more than a page: the estimate that kept
    // PostgreSQL from planning a parameterised page once.
    const notes = ident(appSchemaName(id), 'Note');
    await t.store.query(sql`INSERT INTO ${notes} (id, text, rank) SELECT gen_random_uuid(), 'note ' || lpad(g::text, 6, '0'), g % 100 FROM generate_series(1, ${ROWS}::int) g`);
    await t.store.query(sql`INSERT INTO ${ident(appSchemaName(id), 'Reply')} (id, text, "noteId") SELECT gen_random_uuid(), 'reply ' || g, n.id FROM ${notes} n, generate_series(1, 2) g`);
    await t.store.query(sql`ANALYZE ${notes}`);
    await t.store.query(sql`ANALYZE ${ident(appSchemaName(id), 'Reply')}`);
  });
  afterAll(async () => {
    await registry?.stop();
    await t?.close();
  });

  /**
   * Runs the statement a query compiles to RUNS times on one connection, as the server runs
   * recurring statements (named, prepared once), and reads how PostgreSQL planned them.
   */
  async function plansOf(query: string, variables: Record<string, unknown> = {}): Promise<{ plans: Plans; answer: any }> {
    const [planned] = planQuery({ app: live.context, document: parse(query), query, variables, admin: true });
    if (!planned?.text || !planned.values) throw new Error(`no statement: ${String(planned?.error)}`);
    const { text, values } = planned;
    return t.store.transaction(async (tx) => {
      let v = '';
      for (let i = 0; i < RUNS; i++) v = (await tx.query<{ v: string }>(precompiled(text, values), { recurring: true })).rows[0]?.v ?? '';
      const { rows } = await tx.query<{ generic: string; custom: string }>(
        sql`SELECT generic_plans AS generic, custom_plans AS custom FROM pg_prepared_statements WHERE statement = ${text}`,
      );
      expect(rows).toHaveLength(1);
      // any: parsed JSON of the shape the query asks for.
      return { plans: { generic: Number(rows[0]!.generic), custom: Number(rows[0]!.custom) }, answer: JSON.parse(v) as any };
    });
  }

  const texts = (connection: { edges: { node: { text: string } }[] }) => connection.edges.map((e) => e.node.text);

  it('plans a first page of a literal size once', async () => {
    const { plans, answer } = await plansOf('{ viewer { allNotes(first: 20) { edges { cursor node { text } } pageInfo { hasNextPage endCursor } } } }');
    expect(texts(answer.allNotes)).toHaveLength(20);
    expect(answer.allNotes.pageInfo.hasNextPage).toBe(true);
    expect(plans.generic).toBeGreaterThan(0);
  });

  it("plans a page of the app's default size once", async () => {
    const { plans, answer } = await plansOf('{ viewer { allNotes { edges { node { text } } pageInfo { hasNextPage } } } }');
    expect(texts(answer.allNotes)).toHaveLength(live.context.app.settings.defaultPageSize);
    expect(answer.allNotes.pageInfo.hasNextPage).toBe(true);
    expect(plans.generic).toBeGreaterThan(0);
  });

  it('plans a page sized by a variable once, and each size as its own statement', async () => {
    const query = 'query($n: Int) { viewer { allNotes(first: $n, orderBy: { field: text, direction: DESC }) { edges { node { text } } } } }';
    const five = await plansOf(query, { n: 5 });
    const seven = await plansOf(query, { n: 7 });
    expect(texts(five.answer.allNotes)).toEqual(['note 020000', 'note 019999', 'note 019998', 'note 019997', 'note 019996']);
    expect(texts(seven.answer.allNotes)).toHaveLength(7);
    expect(five.plans.generic).toBeGreaterThan(0);
    expect(seven.plans.generic).toBeGreaterThan(0);
  });

  it('plans a filtered page with a nested page once', async () => {
    const query = 'query($min: Int) { viewer { allNotes(first: 10, where: { rank: { gte: $min } }, orderBy: { field: rank, direction: DESC }) { edges { node { rank replies(first: 1) { edges { node { text } } } } } } } }';
    const { plans, answer } = await plansOf(query, { min: 90 });
    const ranks = answer.allNotes.edges.map((e: { node: { rank: number } }) => e.node.rank);
    expect(ranks).toHaveLength(10);
    expect(ranks.every((r: number) => r === 99)).toBe(true);
    expect(answer.allNotes.edges.every((e: { node: { replies: { edges: unknown[] } } }) => e.node.replies.edges.length === 1)).toBe(true);
    expect(plans.generic).toBeGreaterThan(0);
  });

  it('plans a page backward from a cursor once', async () => {
    const order = 'orderBy: { field: text, direction: ASC }';
    const first = await plansOf(`{ viewer { allNotes(first: 3, ${order}) { pageInfo { endCursor } } } }`);
    const cursor = first.answer.allNotes.pageInfo.endCursor as string;
    const { plans, answer } = await plansOf(`query($c: String) { viewer { allNotes(last: 2, before: $c, ${order}) { edges { node { text } } } } }`, { c: cursor });
    expect(texts(answer.allNotes)).toEqual(['note 000001', 'note 000002']);
    expect(plans.generic).toBeGreaterThan(0);
  });
});
