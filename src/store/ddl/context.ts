// What every DDL step needs: the transaction, the app's schema, and lookups into the models on
// both sides of the plan (the target for what is added, the source for what is dropped).

import type { AppModel, MigrationPlan, ModelType, Relation, ValueField } from '../../model/index.js';
import { ident, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import type { Transaction } from '../types.js';

const EMPTY_MODEL: AppModel = { types: [], embedded: [], enums: [], relations: [] };

export interface DdlContext {
  tx: Transaction;
  /** `app_<id>`. */
  schema: string;
  from: AppModel;
  to: AppModel;
  /** New type name → old, from the plan's renameType steps. */
  typeRenamedFrom: Map<string, string>;
  /** Old type name → new. */
  typeRenamedTo: Map<string, string>;
  /** New relation name → old, from the plan's renameRelation steps. */
  relationRenamedFrom: Map<string, string>;
  /** Set by a step that adds or drops a foreign-key column: the tables' link times are made again after the plan. */
  linksChanged: boolean;
}

export function createContext(tx: Transaction, schema: string, plan: MigrationPlan): DdlContext {
  const typeRenamedFrom = new Map<string, string>();
  const typeRenamedTo = new Map<string, string>();
  const relationRenamedFrom = new Map<string, string>();
  for (const { step } of plan.steps) {
    if (step.kind === 'renameType') {
      typeRenamedFrom.set(step.to, step.from);
      typeRenamedTo.set(step.from, step.to);
    } else if (step.kind === 'renameRelation') {
      relationRenamedFrom.set(step.to, step.from);
    }
  }
  return { tx, schema, from: plan.from ?? EMPTY_MODEL, to: plan.to, typeRenamedFrom, typeRenamedTo, relationRenamedFrom, linksChanged: false };
}

/** A table of the app's schema, schema-qualified. */
export function tableRef(ctx: DdlContext, table: string): SqlFragment {
  return ident(ctx.schema, table);
}

/** The name a table of the source model has once this plan's type renames have run. */
export function currentTable(ctx: DdlContext, table: string): string {
  return ctx.typeRenamedTo.get(table) ?? table;
}

function planError(message: string): Error {
  return new Error(`Migration plan does not match its models: ${message}`);
}

export function targetType(ctx: DdlContext, name: string): ModelType {
  const type = ctx.to.types.find((t) => t.name === name);
  if (!type) throw planError(`no type ${name} in the target model`);
  return type;
}

/** A type of the source model, by its old name or by the new name it is renamed to. */
export function sourceType(ctx: DdlContext, name: string): ModelType | undefined {
  return ctx.from.types.find((t) => t.name === name) ?? ctx.from.types.find((t) => t.name === ctx.typeRenamedFrom.get(name));
}

export function targetValueField(ctx: DdlContext, type: ModelType, field: string): ValueField {
  const f = type.fields.find((x) => x.name === field);
  if (!f || f.kind !== 'value') throw planError(`no value field ${type.name}.${field} in the target model`);
  return f;
}

/** The source-model version of a target field: same name, or the name it was renamed from. */
export function sourceValueField(ctx: DdlContext, typeName: string, field: ValueField): ValueField | undefined {
  const type = sourceType(ctx, typeName);
  const values = (type?.fields ?? []).filter((f): f is ValueField => f.kind === 'value');
  return values.find((f) => f.name === field.name) ?? values.find((f) => f.name === field.renamedFrom);
}

export function targetRelation(ctx: DdlContext, name: string): Relation {
  const relation = ctx.to.relations.find((r) => r.name === name);
  if (!relation) throw planError(`no relation ${name} in the target model`);
  return relation;
}

/** A relation of the source model, by its old name or by the new name it is renamed to. */
export function previousRelation(ctx: DdlContext, name: string): Relation | undefined {
  const old = ctx.relationRenamedFrom.get(name);
  return ctx.from.relations.find((r) => r.name === name) ?? ctx.from.relations.find((r) => r.name === old);
}

export function sourceRelation(ctx: DdlContext, name: string): Relation {
  const relation = ctx.from.relations.find((r) => r.name === name);
  if (!relation) throw planError(`no relation ${name} in the source model`);
  return relation;
}

export function enumValues(model: AppModel, name: string): string[] {
  const e = model.enums.find((x) => x.name === name);
  if (!e) throw planError(`no enum ${name}`);
  return e.values;
}

export function joinField(relation: Relation, field: string): ValueField {
  const f = relation.joinFields.find((x) => x.name === field);
  if (!f) throw planError(`no join field ${relation.name}.${field}`);
  return f;
}

/** Whether the table has any row (for checks that only matter when data exists). */
export async function hasRows(ctx: DdlContext, table: string): Promise<boolean> {
  const { rows } = await ctx.tx.query<{ found: boolean }>(sql`SELECT EXISTS (SELECT 1 FROM ${tableRef(ctx, table)}) AS found`);
  return rows[0]?.found === true;
}
