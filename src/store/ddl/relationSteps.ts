// DDL of relations: a foreign-key column (one-to-one, one-to-many) or a join table with one row
// per edge (many-to-many), its extra join fields, and renames that keep the rows.

import type { Relation } from '../../model/index.js';
import { ident, join, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { columnDefinition, fieldIndexes, systemColumns } from './columns.js';
import { currentTable, joinField, previousRelation, sourceRelation, tableRef, targetRelation } from './context.js';
import type { DdlContext } from './context.js';
import { addColumnWithIndexes } from './fieldSteps.js';
import { dropLinkTrigger } from './linkTimes.js';
import { edgeIndexName, foreignKeyName, indexName, uniqueIndexName } from './names.js';
import { renameDerivedNames } from './rename.js';

async function addForeignKey(ctx: DdlContext, storage: Extract<Relation['storage'], { kind: 'foreignKey' }>): Promise<void> {
  const { table, column, target, unique } = storage;
  const ref = tableRef(ctx, table);
  // Deleting the target leaves the reference empty rather than the referring row gone.
  await ctx.tx.query(sql`ALTER TABLE ${ref} ADD COLUMN ${ident(column)} uuid
    CONSTRAINT ${ident(foreignKeyName(table, column))} REFERENCES ${tableRef(ctx, target)} (id) ON DELETE SET NULL`);
  // A one-to-many column is indexed with the row id after it: the rows of one target in id
  // order (a nested connection, or a page under a RELATION rule such as `ownerId = viewer`)
  // are then one index range, read no further than the page, instead of every row of the
  // table walked in id order and filtered.
  const index = unique
    ? sql`UNIQUE INDEX ${ident(uniqueIndexName(table, column))} ON ${ref} (${ident(column)})`
    : sql`INDEX ${ident(indexName(table, column))} ON ${ref} (${ident(column)}, id)`;
  await ctx.tx.query(sql`CREATE ${index}`);
  ctx.linksChanged = true;
}

async function createJoinTable(ctx: DdlContext, relation: Relation, storage: Extract<Relation['storage'], { kind: 'joinTable' }>) {
  const { table, columns, targets } = storage;
  const ref = tableRef(ctx, table);
  // An edge goes with either of its ends.
  const end = (column: string, target: string) =>
    sql`${ident(column)} uuid NOT NULL CONSTRAINT ${ident(foreignKeyName(table, column))} REFERENCES ${tableRef(ctx, target)} (id) ON DELETE CASCADE`;
  const ends = [end(columns[0], targets[0]), end(columns[1], targets[1])];
  const fields = relation.joinFields.map((f) => columnDefinition(ctx.to, table, f));
  await ctx.tx.query(sql`CREATE TABLE ${ref} (${join([...systemColumns(table), ...ends, ...fields])})`);

  const [a, b] = [ident(columns[0]), ident(columns[1])];
  // A self relation's edge is the same edge whichever way round it was added.
  const edge: SqlFragment = relation.kind === 'selfManyToMany' ? sql`LEAST(${a}, ${b}), GREATEST(${a}, ${b})` : sql`${a}, ${b}`;
  await ctx.tx.query(sql`CREATE UNIQUE INDEX ${ident(edgeIndexName(table, columns))} ON ${ref} (${edge})`);
  await ctx.tx.query(sql`CREATE INDEX ${ident(indexName(table, columns[1]))} ON ${ref} (${b})`);
  for (const f of relation.joinFields) for (const statement of fieldIndexes(ctx, table, f)) await ctx.tx.query(statement);
}

export async function addRelation(ctx: DdlContext, name: string): Promise<void> {
  const relation = targetRelation(ctx, name);
  const storage = relation.storage;
  if (storage.kind === 'foreignKey') await addForeignKey(ctx, storage);
  else await createJoinTable(ctx, relation, storage);
}

export async function dropRelation(ctx: DdlContext, name: string): Promise<void> {
  const storage = sourceRelation(ctx, name).storage;
  if (storage.kind === 'foreignKey') {
    // The column's index and foreign key go with it; the link trigger, which names every
    // relation column of the table, is made again without it once the plan has run.
    const table = currentTable(ctx, storage.table);
    await dropLinkTrigger(ctx.tx, ctx.schema, table);
    await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, table)} DROP COLUMN ${ident(storage.column)}`);
    ctx.linksChanged = true;
  } else {
    await ctx.tx.query(sql`DROP TABLE ${tableRef(ctx, storage.table)}`);
  }
}

export async function renameRelation(ctx: DdlContext, from: string, to: string): Promise<void> {
  const before = sourceRelation(ctx, from).storage;
  const after = targetRelation(ctx, to).storage;
  if (before.kind !== 'joinTable' || after.kind !== 'joinTable' || before.table === after.table) return;
  await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, before.table)} RENAME TO ${ident(after.table)}`);
  await renameDerivedNames(ctx, { fromTable: before.table, toTable: after.table });
}

export async function addJoinField(ctx: DdlContext, relationName: string, fieldName: string): Promise<void> {
  const relation = targetRelation(ctx, relationName);
  if (relation.storage.kind !== 'joinTable') throw new Error(`Migration plan does not match its models: ${relationName} has no join table`);
  const field = joinField(relation, fieldName);
  await addColumnWithIndexes(ctx, relation.storage.table, field, `${relation.name}.${field.name}`, relation.name);
}

export async function dropJoinField(ctx: DdlContext, relationName: string, fieldName: string): Promise<void> {
  const relation = targetRelation(ctx, relationName);
  if (relation.storage.kind !== 'joinTable') throw new Error(`Migration plan does not match its models: ${relationName} has no join table`);
  const old = previousRelation(ctx, relationName)?.joinFields.find((f) => f.name === fieldName);
  await ctx.tx.query(sql`ALTER TABLE ${tableRef(ctx, relation.storage.table)} DROP COLUMN ${ident(old?.column ?? fieldName)}`);
}
