// Apps made before a built-in field existed (`User.email`, `User.emailVerified`) get it when
// they are next loaded: their live schema text is read again with today's built-in types, and
// the difference — only additions — is applied as a new schema version with the same text.

import { lacksBuiltins, parseSchema, planMigration } from '../../model/index.js';
import { applyPlan } from '../ddl/applyPlan.js';
import type { Store } from '../types.js';
import { CATALOG_CHANNEL } from './appIds.js';
import { lockApp } from './apps.js';
import { insertSchemaVersion, liveSchema } from './schemaVersions.js';

/**
 * Adds today's built-in fields to an app that lacks them; whether it changed anything. Refuses
 * (throws) rather than apply a step that would lose data, leaving the app as it was.
 */
export async function upgradeBuiltins(store: Store, appId: string): Promise<boolean> {
  return store.transaction(async (tx) => {
    await lockApp(tx, appId);
    const live = await liveSchema(tx, appId);
    if (!live || !lacksBuiltins(live.model)) return false;
    const model = parseSchema(live.sdl);
    const plan = planMigration(live.model, model);
    const destructive = plan.steps.filter((s) => s.destructive);
    if (destructive.length > 0) throw new Error(`adding the built-in fields would ${destructive.map((s) => s.description).join('; ')}`);
    await applyPlan(tx, appId, plan);
    await insertSchemaVersion(tx, { appId, version: live.version + 1, sdl: live.sdl, model, steps: plan.steps });
    await tx.notify(CATALOG_CHANNEL, appId);
    return true;
  });
}
