// Moving an app to another cluster (moveApp): the copy is made under a transaction on the
// source that holds off the app's writes (its tables locked against writes, reads going on)
// and its schema changes (the app's lock); the target gets the catalog rows and the tables
// with every row in one transaction; then the catalog places the app on the target, every
// instance is told, and the source's copy is dropped as its transaction commits. A write
// that waited on the source then finds the app gone there and is answered UNAVAILABLE with a
// Retry-After, so the client sends it again, to the new home. Nothing is lost: a write either
// committed before the copy began (and was copied) or failed before it could commit.

import { badInput, notFound } from '../errors/index.js';
import { planMigration } from '../model/index.js';
import {
  CATALOG_CHANNEL,
  applyPlan,
  appTables,
  checkForeignKeys,
  clearTables,
  copyCatalogRows,
  deferForeignKeys,
  dropMovedApp,
  findApp,
  insertJsonRows,
  liveSchema,
  lockApp,
  lockAppTablesForCopy,
  markMoving,
  movePlacement,
  rowsAsJson,
  transactionCursor,
} from '../store/index.js';
import type { Clusters, Transaction } from '../store/index.js';
import type { AppTable } from '../store/index.js';

const ROWS_PER_BATCH = 1_000;

/** Rows of the app's tables copied from the source's transaction into the target's. */
async function copyRows(from: Transaction, to: Transaction, appId: string, tables: readonly AppTable[]): Promise<number> {
  let copied = 0;
  await clearTables(to, appId, tables);
  await deferForeignKeys(to, appId, tables);
  for (const table of tables) {
    const rows = await transactionCursor<{ r: string }>(from, rowsAsJson(appId, table.name, table.columns));
    for (let batch = await rows.next(ROWS_PER_BATCH); batch.length > 0; batch = await rows.next(ROWS_PER_BATCH)) {
      await to.query(insertJsonRows(appId, table.name, table.columns, `[${batch.map((row) => row.r).join(',')}]`));
      copied += batch.length;
    }
    await rows.close();
  }
  await checkForeignKeys(to, appId, tables);
  return copied;
}

export interface MoveResult {
  appId: string;
  from: string;
  to: string;
  /** Rows of the app's tables copied. */
  rows: number;
}

export async function moveApp(clusters: Clusters, input: { appId: string; cluster: string }): Promise<MoveResult> {
  if (!clusters.supported) throw badInput('Apps can be moved only between PostgreSQL clusters (DATABASE_URL)');
  const from = await clusters.home(input.appId);
  const to = await clusters.cluster(input.cluster);
  if (!to) throw notFound(`No cluster named "${input.cluster}"`);
  const app = await findApp(from.store, input.appId);
  if (!app) throw notFound(`No app with id or name "${input.appId}"`);
  if (to.cluster === from.cluster) return { appId: app.id, from: from.cluster, to: to.cluster, rows: 0 };
  if (!(await to.store.ping())) throw badInput(`The cluster "${to.cluster}" does not answer`);
  const main = clusters.main;
  if (!(await markMoving(main, app.id, to.cluster))) throw notFound(`No app with id or name "${input.appId}"`);
  let rows = 0;
  // How far it got: a failure undoes what was done (a copy without the placement is dropped;
  // a source left behind by a failed commit is dropped once the target serves the app).
  let copied = false;
  let switched = false;
  try {
    await from.store.transaction(async (source) => {
      // Schema changes and deletion wait for the move; then writes do, while reads go on.
      await lockApp(source, app.id);
      const live = await liveSchema(source, app.id);
      if (!live) throw notFound(`App "${input.appId}" has no schema`);
      const tables = appTables(live.model);
      await lockAppTablesForCopy(
        source,
        app.id,
        tables.map((t) => t.name),
      );
      await to.store.transaction(async (target) => {
        await lockApp(target, app.id);
        await copyCatalogRows(source, target, app.id);
        await applyPlan(target, app.id, planMigration(null, live.model));
        rows = await copyRows(source, target, app.id, tables);
      });
      copied = true;
      // From here the target serves the app: the catalog says so, and every instance hears it.
      await movePlacement(main, app.id, to.cluster);
      switched = true;
      await main.notify(CATALOG_CHANNEL, app.id);
      await dropMovedApp(source, app.id);
      await source.notify(CATALOG_CHANNEL, app.id);
    });
  } catch (err) {
    if (switched) {
      await from.store.transaction(async (tx) => {
        await lockApp(tx, app.id);
        await dropMovedApp(tx, app.id);
      });
      return { appId: app.id, from: from.cluster, to: to.cluster, rows };
    }
    if (copied) {
      await to.store.transaction(async (tx) => {
        await lockApp(tx, app.id);
        await dropMovedApp(tx, app.id);
      }).catch(() => undefined);
    }
    await markMoving(main, app.id, null).catch(() => undefined);
    throw err;
  }
  return { appId: app.id, from: from.cluster, to: to.cluster, rows };
}
