// Applies a migration plan to an app's schema inside the caller's transaction: each typed step
// becomes DDL, in the plan's order. A new app also gets its schema and the built-in admin role.

import { isTesseraError } from '../../errors/index.js';
import { builtinTraits } from '../../model/index.js';
import type { MigrationPlan, MigrationStep } from '../../model/index.js';
import { ident, join, sql } from '../../sql/index.js';
import { appSchemaName } from '../catalog/appIds.js';
import type { Transaction } from '../types.js';
import { alterFieldType } from './alterFieldType.js';
import { addIndex, addUnique, dropDefault, dropIndex, dropRequired, dropUnique, setDefault, setRequired } from './constraintSteps.js';
import { createContext, tableRef } from './context.js';
import type { DdlContext } from './context.js';
import { alterEnum } from './enumSteps.js';
import { addField, dropField, renameField } from './fieldSteps.js';
import { syncLinkTimes } from './linkTimes.js';
import { addJoinField, addRelation, dropJoinField, dropRelation, renameRelation } from './relationSteps.js';
import { createType, dropType, renameType } from './typeSteps.js';

async function applyStep(ctx: DdlContext, step: MigrationStep): Promise<void> {
  switch (step.kind) {
    case 'createType':
      return createType(ctx, step.type);
    case 'dropType':
      return dropType(ctx, step.type);
    case 'renameType':
      return renameType(ctx, step.from, step.to);
    case 'addField':
      return addField(ctx, step.type, step.field);
    case 'dropField':
      return dropField(ctx, step.type, step.field);
    case 'renameField':
      return renameField(ctx, step.type, step.from, step.to);
    case 'alterFieldType':
      return alterFieldType(ctx, step.type, step.field, step.from, step.to);
    case 'setRequired':
      return setRequired(ctx, step.type, step.field);
    case 'dropRequired':
      return dropRequired(ctx, step.type, step.field);
    case 'setDefault':
      return setDefault(ctx, step.type, step.field);
    case 'dropDefault':
      return dropDefault(ctx, step.type, step.field);
    case 'addIndex':
      return addIndex(ctx, step.type, step.field);
    case 'dropIndex':
      return dropIndex(ctx, step.type, step.field);
    case 'addUnique':
      return addUnique(ctx, step.type, step.field);
    case 'dropUnique':
      return dropUnique(ctx, step.type, step.field);
    case 'alterEnum':
      return alterEnum(ctx, step.enum, step.removed);
    case 'addRelation':
      return addRelation(ctx, step.relation);
    case 'dropRelation':
      return dropRelation(ctx, step.relation);
    case 'renameRelation':
      return renameRelation(ctx, step.from, step.to);
    case 'addJoinField':
      return addJoinField(ctx, step.relation, step.field);
    case 'dropJoinField':
      return dropJoinField(ctx, step.relation, step.field);
    // Enums and embedded types live in the model only (enum checks belong to their columns);
    // permissions, plurals and custom fields change the generated API, not the tables.
    case 'createEnum':
    case 'dropEnum':
    case 'createEmbedded':
    case 'alterEmbedded':
    case 'dropEmbedded':
    case 'updatePermissions':
    case 'setPlural':
    case 'addCustomField':
    case 'alterCustomField':
    case 'dropCustomField':
      return;
    default: {
      const never: never = step;
      throw new Error(`unknown migration step ${JSON.stringify(never)}`);
    }
  }
}

/**
 * Runs every step of `plan` in the app's schema. Failures the stored data causes are coded
 * errors naming the type and field; anything else is internal. Either way the caller's
 * transaction is left to roll back, so a failed migration leaves no trace.
 */
export async function applyPlan(tx: Transaction, appId: string, plan: MigrationPlan): Promise<void> {
  const schema = appSchemaName(appId);
  const ctx = createContext(tx, schema, plan);
  if (plan.from === null) await tx.query(sql`CREATE SCHEMA ${ident(schema)}`);
  for (const { step, description } of plan.steps) {
    try {
      await applyStep(ctx, step);
    } catch (err) {
      if (isTesseraError(err)) throw err;
      const message = err instanceof Error ? err.message : String(err);
      throw new Error(`Migration step "${description}" failed: ${message}`, { cause: err });
    }
  }
  // Every table holding a relation column keeps its rows' link time, over the columns it holds now.
  if (ctx.linksChanged) await syncLinkTimes(tx, schema);
  // A new app starts with the rows its built-in types seed (the `admin` role).
  if (plan.from !== null) return;
  for (const type of plan.to.types) {
    for (const row of builtinTraits(type)?.seed ?? []) {
      const columns = Object.keys(row);
      await tx.query(sql`INSERT INTO ${tableRef(ctx, type.table)} (${join(columns.map((c) => ident(c)))}) VALUES (${join(columns.map((c) => sql`${row[c]}`))})`);
    }
  }
}
