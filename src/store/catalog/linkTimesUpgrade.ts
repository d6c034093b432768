// Apps made before their tables kept the time each row was last linked (catalog version 14)
// get it when they are next loaded: every table holding a relation column gains the column and
// its trigger (src/store/ddl/linkTimes.ts), and the app row says so.

import { sql } from '../../sql/index.js';
import { syncLinkTimes } from '../ddl/linkTimes.js';
import type { Store } from '../types.js';
import { appSchemaName } from './appIds.js';
import { lockApp } from './apps.js';

/** Gives the app's tables their link times, once (another instance may have done it since the app row was read). */
export async function upgradeLinkTimes(store: Store, appId: string): Promise<void> {
  await store.transaction(async (tx) => {
    await lockApp(tx, appId);
    const { rows } = await tx.query<{ done: boolean }>(sql`SELECT link_times AS done FROM tessera.apps WHERE id = ${appId}`);
    if (rows[0]?.done !== false) return;
    await syncLinkTimes(tx, appSchemaName(appId));
    await tx.query(sql`UPDATE tessera.apps SET link_times = true WHERE id = ${appId}`);
  });
}
