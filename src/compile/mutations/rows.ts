// Row writes of the create, update and delete mutations inside one transaction: value fields
// converted and checked, passwords hashed, singular relations set from either side (the id
// wins over a nested create), list relations filled by nested creates.

import { TesseraError, badInput, notFound } from '../../errors/index.js';
import { builtinTraits, fieldTraits, idColumn } from '../../model/index.js';
import type { ModelType, RelationField, ValueField } from '../../model/index.js';
import { ident, join, sql } from '../../sql/index.js';
import type { SqlFragment } from '../../sql/index.js';
import { blobTraits, claimBlob, forgetBlob } from './blobs.js';
import { enrolCreator, requireExisting, requireLinkable, requireWrite } from './checks.js';
import { rowJson } from './events.js';
import type { Writer } from './writer.js';
import { decodeId } from '../ids.js';
import { castOf, fieldIn } from '../values.js';

type Input = Record<string, unknown>;

function isGiven(v: unknown): boolean {
  return v !== undefined;
}

/** A value field's input as the SQL value written (checked, converted; a password hashed). */
export async function columnValue(w: Pick<Writer, 'app' | 'accounts'>, type: ModelType, field: ValueField, v: unknown): Promise<SqlFragment> {
  return sql`${await columnInput(w, type, field, v)}::${castOf(field)}`;
}

/**
 * A value field's input as the value bound for it (checked, converted): a promise only for a
 * password, which is hashed. Throws a coded error for a value the field does not take.
 */
export function columnInput(w: Pick<Writer, 'app' | 'accounts'>, type: ModelType, field: ValueField, v: unknown): unknown {
  const what = `${type.name}.${field.name}`;
  if (v === null && field.required) throw badInput(`${what} cannot be null`, { field: field.name });
  const traits = fieldTraits(type, field);
  if (traits.email && typeof v === 'string') {
    const problem = emailProblem(v);
    if (problem) throw badInput(`${what}: ${problem}`, { field: field.name });
  }
  if (traits.name && typeof v === 'string') {
    // One spelling per name: "é" typed precomposed or as e + accent is the same username.
    const name = v.normalize('NFC');
    if (name.trim().length === 0) throw badInput(`${what} cannot be empty`, { field: field.name });
    return fieldIn(w.app, field, name, what);
  }
  if (field.writeOnly && typeof v === 'string') {
    if (v.length === 0) throw badInput(`${what} cannot be empty`, { field: field.name });
    fieldIn(w.app, field, v, what);
    return w.accounts.hashPassword(v);
  }
  return fieldIn(w.app, field, v, what);
}

/** Why `v` is not an email address as accounts take it, or undefined when it is one. */
function emailProblem(v: string): string | undefined {
  if (v.length > 254) return 'an email address has at most 254 characters';
  // One @, something on each side, a dot in the domain, no spaces or angle brackets: the form
  // mail servers accept; whether it is really the user's is what verifyEmail proves.
  if (!/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(v)) return `"${v.length > 60 ? `${v.slice(0, 57)}...` : v}" is not an email address`;
  return undefined;
}

/** The uuid of the object a `<relation>Id` input names; "" and null mean none. */
export function relationTarget(type: ModelType, field: RelationField, v: unknown): string | null {
  if (v === null || v === '') return null;
  return decodeId(String(v), field.target, `${type.name}.${idColumn(field.name)}`);
}

/**
 * Clears `column` on the rows of `holder` that point at `target` (except `keep`): a link moved
 * away from another object changes that object, so the caller needs update on it.
 */
async function unlink(w: Writer, holder: ModelType, column: string, target: string, keep?: string): Promise<void> {
  const table = w.app.table(holder.table);
  const others = keep === undefined ? sql`` : sql` AND id <> ${keep}::uuid`;
  const { rows } = await w.tx.query<{ id: string }>(sql`SELECT id FROM ${table} WHERE ${ident(column)} = ${target}::uuid${others} FOR UPDATE`);
  for (const row of rows) await requireWrite(w.s, w.tx, holder, row.id, 'update', {});
  if (rows.length > 0) await w.tx.query(sql`UPDATE ${table} SET ${ident(column)} = NULL WHERE ${ident(column)} = ${target}::uuid${others}`);
  for (const row of rows) w.events.record({ type: holder.name, kind: 'update', id: row.id });
}

/**
 * Links `id` (a `type` row) to `target` through `field`, moving the link away from whoever
 * held it (a one-to-one is one-to-one from both sides). `target` null clears it.
 */
async function setSingular(w: Writer, type: ModelType, field: RelationField, id: string, target: string | null): Promise<void> {
  const link = w.app.link(type, field);
  const what = `${type.name}.${idColumn(field.name)}`;
  if (link.kind === 'holds') {
    if (target !== null) await requireLinkable(w.s, w.tx, w.app.type(field.target), target, what, idColumn(field.name));
    const relation = w.app.relation(field.relation);
    if (target !== null && relation.kind === 'oneToOne') {
      await unlink(w, type, link.column, target, id);
    }
    await w.tx.query(sql`UPDATE ${w.app.table(type.table)} SET ${ident(link.column)} = ${target}::uuid WHERE id = ${id}::uuid`);
    w.events.record({ type: type.name, kind: 'update', id });
    return;
  }
  if (link.kind === 'heldBy') {
    const table = w.app.table(w.app.type(field.target).table);
    if (target !== null) await requireLinkable(w.s, w.tx, w.app.type(field.target), target, what, idColumn(field.name));
    await unlink(w, w.app.type(field.target), link.column, id);
    if (target === null) return;
    const moved = await w.tx.query(sql`UPDATE ${table} SET ${ident(link.column)} = ${id}::uuid WHERE id = ${target}::uuid`);
    if (moved.rowCount === 0) throw badInput(`${what}: no ${field.target} has that id`, { field: idColumn(field.name) });
    // The link is stored on the other object, which changes: it needs update there too.
    await requireWrite(w.s, w.tx, w.app.type(field.target), target, 'update', {});
    w.events.record({ type: field.target, kind: 'update', id: target });
    return;
  }
  throw new Error(`${what} is not a singular relation`);
}

/**
 * Inserts a `type` row from a CreateXInput (nested creates included) and returns its uuid.
 * `fixed` sets relation ids the parent of a nested create decides.
 */
export async function createRow(w: Writer, type: ModelType, given: Input, fixed: ReadonlyMap<string, string> = new Map()): Promise<string> {
  const columns: SqlFragment[] = [];
  const values: SqlFragment[] = [];
  const after: (() => Promise<void>)[] = [];
  let newId = '';
  let input = given;
  const blob = blobTraits(type);
  if (blob) {
    // A file's row takes its upload's id, size and digest, and its uploader as owner.
    const row = await claimBlob(w, type, blob, given);
    input = row.input;
    columns.push(ident('id'));
    values.push(sql`${row.id}::uuid`);
    const owner = type.fields.find((f): f is RelationField => f.kind === 'relation' && f.name === blob.owner);
    const link = owner && w.app.link(type, owner);
    if (link?.kind === 'holds' && !fixed.has(blob.owner) && row.ownerId !== null) {
      columns.push(ident(link.column));
      values.push(sql`${row.ownerId}::uuid`);
    }
  }
  for (const field of type.fields) {
    if (field.kind === 'value') {
      const v = input[field.name];
      if (!isGiven(v)) continue;
      columns.push(ident(field.column));
      values.push(await columnValue(w, type, field, v));
      continue;
    }
    const link = w.app.link(type, field);
    const parentId = fixed.get(field.name);
    const idInput = parentId ?? input[idColumn(field.name)];
    if (!field.list && isGiven(idInput) && idInput !== null && idInput !== '') {
      const targetId = parentId ?? relationTarget(type, field, idInput);
      if (link.kind === 'holds') {
        // The id goes into the INSERT itself, once it names an object the caller may read (a
        // parent's id, fixed by a nested create, needs no check). A one-to-one link is first
        // taken from its holder.
        // For an admin token the foreign key alone checks that it names an object (its
        // violation is BAD_USER_INPUT): no extra statement on the common create path.
        if (parentId === undefined && targetId !== null && w.s.access !== 'admin') {
          await requireLinkable(w.s, w.tx, w.app.type(field.target), targetId, `${type.name}.${idColumn(field.name)}`, idColumn(field.name));
        }
        if (w.app.relation(field.relation).kind === 'oneToOne' && targetId !== null) {
          await unlink(w, type, link.column, targetId);
        }
        columns.push(ident(link.column));
        values.push(sql`${targetId}::uuid`);
      } else {
        after.push(() => setSingular(w, type, field, newId, targetId));
      }
      continue;
    }
    if (parentId !== undefined) continue;
    const target = w.app.type(field.target);
    if (!field.list) {
      const nested = input[field.name];
      if (nested !== undefined && nested !== null) {
        // The id wins over a nested object; without one, the nested object is created.
        after.push(async () => {
          const back = reverseField(w, type, field);
          const childId = link.kind === 'heldBy' && back ? await createRow(w, target, without(nested as Input, back), new Map([[back.name, newId]])) : await createRow(w, target, nested as Input);
          if (link.kind === 'holds' || !back) await setSingular(w, type, field, newId, childId);
        });
      }
      continue;
    }
    const items = input[field.name];
    if (!Array.isArray(items) || items.length === 0) continue;
    after.push(async () => {
      // A null item, which the list type allows, creates nothing.
      for (const item of (items as (Input | null)[]).filter((i): i is Input => i !== null)) {
        if (link.kind === 'heldBy') {
          const back = reverseField(w, type, field);
          if (!back) throw new Error(`${type.name}.${field.name} has no reverse field`);
          await createRow(w, target, without(item, back), new Map([[back.name, newId]]));
        } else if (link.kind === 'join') {
          const childId = await createRow(w, target, item);
          await w.tx.query(sql`INSERT INTO ${w.app.table(link.table)} (${ident(link.self)}, ${ident(link.other)}) VALUES (${newId}::uuid, ${childId}::uuid)`);
        }
      }
    });
  }
  const statement = columns.length
    ? sql`INSERT INTO ${w.app.table(type.table)} (${join(columns)}) VALUES (${join(values)}) RETURNING id`
    : sql`INSERT INTO ${w.app.table(type.table)} DEFAULT VALUES RETURNING id`;
  const inserted = await w.tx.query<{ id: string }>(statement);
  newId = (inserted.rows[0] as { id: string }).id;
  w.events.record({ type: type.name, kind: 'create', id: newId });
  // A nested create is an event of its type's create mutation, as a hook of that type would see it.
  w.outbox.row(w.app.names.mutation('create', type.name), type.name, newId, null);
  await enrolCreator(w.s, w.tx, type, newId);
  for (const step of after) await step();
  // Checked on the row as written, its relations set; a refusal rolls everything back.
  await requireWrite(w.s, w.tx, type, newId, 'create', input);
  return newId;
}

/** The field on the other side of a relation (e.g. Post.author for User.posts). */
function reverseField(w: Writer, type: ModelType, field: RelationField): RelationField | undefined {
  const relation = w.app.relation(field.relation);
  const other = relation.ends.find((end) => !(end.type === type.name && end.field === field.name)) ?? relation.ends[0];
  const found = w.app.type(other.type).fields.find((f) => f.name === other.field);
  return found?.kind === 'relation' ? found : undefined;
}

/** A nested input without the relation its parent sets. */
function without(input: Input, field: RelationField): Input {
  const { [field.name]: _nested, [idColumn(field.name)]: _id, ...rest } = input;
  return rest;
}

/** Applies an UpdateXInput to the row `id`; NOT_FOUND when there is no such row. */
export async function updateRow(w: Writer, type: ModelType, id: string, input: Input): Promise<void> {
  const operation = w.app.names.mutation('update', type.name);
  // The row as it was, when an EVENT function wants the update's events.
  const z = ident('r');
  const shown = w.outbox.wants(operation) ? sql`${rowJson(w.app, type.name, z)}` : sql`NULL`;
  const found = await w.tx.query<{ row: string | null }>(sql`SELECT ${shown} AS row FROM ${w.app.table(type.table)} ${z} WHERE ${z}.id = ${id}::uuid FOR UPDATE`);
  if (found.rowCount === 0) throw notFound(`No ${type.name} has the id given to ${w.app.names.mutation('update', type.name)}`);
  await requireExisting(w.s, w.tx, type, id, 'update', input);
  if (w.s.access !== 'admin') {
    for (const field of type.fields) {
      const only = fieldTraits(type, field).adminUpdateOnly;
      if (only && input[field.name] !== undefined) throw new TesseraError('FORBIDDEN', only, { field: field.name });
    }
  }
  const sets: SqlFragment[] = [sql`"modifiedAt" = now()`];
  for (const field of type.fields) {
    if (field.kind !== 'value' || !isGiven(input[field.name])) continue;
    const value = await columnValue(w, type, field, input[field.name]);
    sets.push(sql`${ident(field.column)} = ${value}`);
    // A new address is not verified (the right-hand sides read the row as it was).
    const verified = fieldTraits(type, field).email?.verifiedBy;
    if (verified) sets.push(sql`${ident(verified)} = (${ident(verified)} AND lower(${ident(field.column)}) IS NOT DISTINCT FROM lower(${value}))`);
  }
  await w.tx.query(sql`UPDATE ${w.app.table(type.table)} SET ${join(sets)} WHERE id = ${id}::uuid`);
  // A user's new password ends the tokens issued under the old one.
  if (builtinTraits(type)?.account && type.fields.some((f) => f.kind === 'value' && f.writeOnly && isGiven(input[f.name]))) await w.accounts.passwordChanged(w.tx, id);
  w.events.record({ type: type.name, kind: 'update', id });
  w.outbox.row(operation, type.name, id, found.rows[0]?.row ?? null);
  for (const field of type.fields) {
    if (field.kind !== 'relation' || field.list) continue;
    const idInput = input[idColumn(field.name)];
    if (!isGiven(idInput)) continue;
    await setSingular(w, type, field, id, relationTarget(type, field, idInput));
  }
  // The update must hold after the write too: a row cannot be moved out of the writer's reach.
  await requireWrite(w.s, w.tx, type, id, 'update', input);
}

/** Deletes the row `id`; false when there was none. References to it are cleared by the database. */
export async function deleteRow(w: Writer, type: ModelType, id: string): Promise<boolean> {
  if (!(await requireExisting(w.s, w.tx, type, id, 'delete', {}))) return false;
  const z = ident('deleted');
  const deleted = await w.tx.query<{ row: string }>(sql`DELETE FROM ${w.app.table(type.table)} AS ${z} WHERE id = ${id}::uuid RETURNING ${rowJson(w.app, type.name, z)} AS row`);
  const row = deleted.rows[0]?.row;
  if (row === undefined) return false;
  if (builtinTraits(type)?.account) await w.accounts.forgetUser(w.tx, id);
  await forgetBlob(w, type, id);
  // Subscribers read the deleted object from its last state, carried with the event.
  w.events.record({ type: type.name, kind: 'delete', id, row });
  w.outbox.row(w.app.names.mutation('delete', type.name), type.name, id, row, true);
  return true;
}
