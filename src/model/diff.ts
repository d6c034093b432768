// Diffs the live model against a new one into a migration plan of typed steps, each marked
// destructive or not. Pure: it reads two models and touches no database.

import { fieldTypeName, formatDefault, relationLabel, valueFieldLabel } from './describe.js';
import type {
  AppModel,
  CustomField,
  EmbeddedType,
  EnumType,
  Field,
  MigrationPlan,
  MigrationStep,
  ModelType,
  PlannedStep,
  Relation,
  ValueField,
} from './types.js';

/** Step kinds in the order they are applied: renames, then drops, then creates and changes. */
const PHASES: MigrationStep['kind'][][] = [
  ['renameType'],
  ['renameRelation'],
  ['renameField'],
  ['dropRelation', 'dropJoinField'],
  ['dropUnique', 'dropIndex', 'dropField'],
  ['dropType'],
  ['createEnum', 'alterEnum', 'createEmbedded', 'alterEmbedded'],
  ['createType'],
  ['addField', 'alterFieldType', 'dropRequired', 'setDefault', 'dropDefault', 'setRequired'],
  ['addIndex', 'addUnique'],
  ['addRelation', 'addJoinField'],
  ['dropEnum', 'dropEmbedded'],
  ['updatePermissions', 'setPlural'],
  ['dropCustomField', 'addCustomField', 'alterCustomField'],
];

const PHASE_OF = new Map<string, number>(PHASES.flatMap((kinds, i) => kinds.map((k) => [k, i] as const)));

/** Plans the migration from `from` (null for a new app) to `to`. */
export function planMigration(from: AppModel | null, to: AppModel): MigrationPlan {
  const steps: PlannedStep[] = [];
  const add = (step: MigrationStep, description: string, destructive = false) => steps.push({ step, description, destructive });
  const prev: AppModel = from ?? { types: [], embedded: [], enums: [], relations: [] };

  diffEnums(prev.enums, to.enums, add);
  diffEmbedded(prev.embedded, to.embedded, add);
  const typeMatches = diffTypes(prev.types, to.types, add);
  diffRelations(prev, to, typeMatches, add);
  diffCustomFields(prev.customFields ?? [], to.customFields ?? [], add);

  // Stable sort: phase first, the discovery order (by type, then field) within a phase.
  const ordered = steps
    .map((s, i) => ({ s, i }))
    .sort((a, b) => (PHASE_OF.get(a.s.step.kind) ?? 0) - (PHASE_OF.get(b.s.step.kind) ?? 0) || a.i - b.i)
    .map(({ s }) => s);
  return { steps: ordered, from, to };
}

export function isDestructive(plan: MigrationPlan): boolean {
  return plan.steps.some((s) => s.destructive);
}

/** JSON text with object keys sorted, so stored models compare equal whatever key order they come back in. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

type Add = (step: MigrationStep, description: string, destructive?: boolean) => void;

function byName<T extends { name: string }>(items: readonly T[]): Map<string, T> {
  return new Map(items.map((i) => [i.name, i]));
}

/**
 * Pairs old and new items by name, or by `renamedFrom` when the new name is absent from the old
 * side and the old name is absent from the new side.
 */
function matchRenamed<T extends { name: string; renamedFrom?: string }>(prev: readonly T[], next: readonly T[]) {
  const prevByName = byName(prev);
  const nextByName = byName(next);
  const pairs: { before: T; after: T }[] = [];
  const added: T[] = [];
  const usedPrev = new Set<string>();
  for (const after of next) {
    const same = prevByName.get(after.name);
    const renamed = after.renamedFrom !== undefined && !nextByName.has(after.renamedFrom) ? prevByName.get(after.renamedFrom) : undefined;
    const before = same ?? renamed;
    if (before && !usedPrev.has(before.name)) {
      usedPrev.add(before.name);
      pairs.push({ before, after });
    } else added.push(after);
  }
  const removed = prev.filter((p) => !usedPrev.has(p.name));
  return { pairs, added, removed };
}

/** Custom fields hold no data: adding, changing or dropping one is never destructive. */
function diffCustomFields(prev: readonly CustomField[], next: readonly CustomField[], add: Add) {
  const key = (f: CustomField) => `${f.root}.${f.name}`;
  const before = new Map(prev.map((f) => [key(f), f]));
  const after = new Set(next.map(key));
  for (const f of next) {
    const old = before.get(key(f));
    if (!old) add({ kind: 'addCustomField', root: f.root, field: f.name }, `Add field ${key(f)} (function ${f.function})`);
    else if (canonicalJson(old) !== canonicalJson(f)) add({ kind: 'alterCustomField', root: f.root, field: f.name }, `Change field ${key(f)} (function ${f.function})`);
  }
  for (const f of prev) if (!after.has(key(f))) add({ kind: 'dropCustomField', root: f.root, field: f.name }, `Remove field ${key(f)}`);
}

function diffEnums(prev: EnumType[], next: EnumType[], add: Add) {
  const prevByName = byName(prev);
  const nextByName = byName(next);
  for (const e of next) {
    const before = prevByName.get(e.name);
    if (!before) {
      add({ kind: 'createEnum', enum: e.name }, `Create enum ${e.name} (${e.values.join(', ')})`);
      continue;
    }
    const added = e.values.filter((v) => !before.values.includes(v));
    const removed = before.values.filter((v) => !e.values.includes(v));
    if (added.length || removed.length) {
      const parts = [added.length ? `add ${added.join(', ')}` : '', removed.length ? `remove ${removed.join(', ')}` : ''].filter(Boolean);
      add({ kind: 'alterEnum', enum: e.name, added, removed }, `Change enum ${e.name}: ${parts.join('; ')}`, removed.length > 0);
    }
  }
  for (const e of prev) if (!nextByName.has(e.name)) add({ kind: 'dropEnum', enum: e.name }, `Drop enum ${e.name}`);
}

function diffEmbedded(prev: EmbeddedType[], next: EmbeddedType[], add: Add) {
  const prevByName = byName(prev);
  const nextByName = byName(next);
  for (const e of next) {
    const before = prevByName.get(e.name);
    if (!before) {
      add({ kind: 'createEmbedded', embedded: e.name }, `Create embedded type ${e.name}`);
      continue;
    }
    if (canonicalJson(before.fields) === canonicalJson(e.fields)) continue;
    // Values live inline as JSON: only dropping or re-typing a field, or a new required field,
    // can make stored values unreadable.
    const beforeFields = byName(before.fields);
    const nextFields = byName(e.fields);
    const lossy =
      before.fields.some((f) => {
        const n = nextFields.get(f.name);
        return !n || valueFieldLabel(n).replace(/!$/, '') !== valueFieldLabel(f).replace(/!$/, '') || (n.required && !f.required);
      }) || e.fields.some((f) => !beforeFields.has(f.name) && f.required && f.default === undefined);
    add({ kind: 'alterEmbedded', embedded: e.name }, `Change embedded type ${e.name}`, lossy);
  }
  for (const e of prev) if (!nextByName.has(e.name)) add({ kind: 'dropEmbedded', embedded: e.name }, `Drop embedded type ${e.name}`);
}

/** Old type name → new type name, for every type that survives the migration. */
type TypeMatches = Map<string, string>;

function diffTypes(prev: ModelType[], next: ModelType[], add: Add): TypeMatches {
  const { pairs, added, removed } = matchRenamed(prev, next);
  const matches: TypeMatches = new Map();
  for (const { before, after } of pairs) {
    matches.set(before.name, after.name);
    if (before.name !== after.name) add({ kind: 'renameType', from: before.name, to: after.name }, `Rename type ${before.name} to ${after.name}`);
    diffFields(before, after, add);
    if (before.plural !== after.plural) {
      add({ kind: 'setPlural', type: after.name, from: before.plural, to: after.plural }, `Change plural of ${after.name} from ${before.plural} to ${after.plural}`);
    }
    if (permissionsOf(before) !== permissionsOf(after)) {
      add({ kind: 'updatePermissions', type: after.name }, `Update permission rules of ${after.name}`);
    }
  }
  for (const t of added) add({ kind: 'createType', type: t.name }, `Create type ${t.name}`);
  for (const t of removed) add({ kind: 'dropType', type: t.name }, `Drop type ${t.name} and all its rows`, true);
  return matches;
}

function permissionsOf(type: ModelType): string {
  return canonicalJson([type.permissions, type.fields.filter((f) => f.permissions.length > 0).map((f) => [f.name, f.permissions])]);
}

function valueFields(fields: Field[]): ValueField[] {
  return fields.filter((f): f is ValueField => f.kind === 'value');
}

/** A plain (non-unique) index is only kept when the field is not also unique. */
const plainIndex = (f: ValueField) => f.index && !f.unique;

function diffFields(before: ModelType, after: ModelType, add: Add) {
  const t = after.name;
  const { pairs, added, removed } = matchRenamed(valueFields(before.fields), valueFields(after.fields));
  for (const { before: b, after: a } of pairs) {
    const f = a.name;
    const at = `${t}.${f}`;
    if (b.name !== a.name) add({ kind: 'renameField', type: t, from: b.name, to: a.name }, `Rename field ${t}.${b.name} to ${at}`);
    const bType = valueFieldLabel({ ...b, required: false });
    const aType = valueFieldLabel({ ...a, required: false });
    if (bType !== aType) {
      add({ kind: 'alterFieldType', type: t, field: f, from: bType, to: aType }, `Change type of ${at} from ${bType} to ${aType}`, !isWidening(b, a));
    }
    if (plainIndex(b) && !plainIndex(a)) add({ kind: 'dropIndex', type: t, field: f }, `Drop index on ${at}`);
    if (b.unique && !a.unique) add({ kind: 'dropUnique', type: t, field: f }, `Drop unique constraint on ${at}`);
    if (b.required && !a.required) add({ kind: 'dropRequired', type: t, field: f }, `Make ${at} optional`);
    const bDefault = b.default === undefined ? undefined : canonicalJson(b.default);
    const aDefault = a.default === undefined ? undefined : canonicalJson(a.default);
    if (aDefault !== undefined && aDefault !== bDefault) {
      add({ kind: 'setDefault', type: t, field: f }, `Set default of ${at} to ${formatDefault(a.default)}`);
    } else if (aDefault === undefined && bDefault !== undefined) {
      add({ kind: 'dropDefault', type: t, field: f }, `Remove default of ${at}`);
    }
    if (!b.required && a.required) {
      const withDefault = a.default !== undefined;
      add(
        { kind: 'setRequired', type: t, field: f },
        withDefault ? `Make ${at} required (empty values become ${formatDefault(a.default)})` : `Make ${at} required (rows without a value stop the migration)`,
        !withDefault,
      );
    }
    if (!plainIndex(b) && plainIndex(a)) add({ kind: 'addIndex', type: t, field: f }, `Add index on ${at}`);
    if (!b.unique && a.unique) add({ kind: 'addUnique', type: t, field: f }, `Add unique constraint on ${at}`);
  }
  for (const a of added) {
    const def = a.default === undefined ? '' : `, default ${formatDefault(a.default)}`;
    add({ kind: 'addField', type: t, field: a.name }, `Add field ${t}.${a.name} (${valueFieldLabel(a)}${def})`);
    if (plainIndex(a)) add({ kind: 'addIndex', type: t, field: a.name }, `Add index on ${t}.${a.name}`);
    if (a.unique) add({ kind: 'addUnique', type: t, field: a.name }, `Add unique constraint on ${t}.${a.name}`);
  }
  for (const b of removed) {
    add({ kind: 'dropField', type: t, field: b.name }, `Drop field ${t}.${b.name} and its values`, true);
  }
}

/** Type changes that keep every stored value as it is (as text, or a wider number). */
const WIDENINGS = new Set([
  'Int>Float',
  'Int>String',
  'Int>Text',
  'Float>String',
  'Float>Text',
  'Boolean>String',
  'Boolean>Text',
  'String>Text',
  'ID>String',
  'ID>Text',
  'String>ID',
]);

function isWidening(before: ValueField, after: ValueField): boolean {
  if (before.list !== after.list) return false;
  if (before.list) return false; // inline lists are jsonb: element changes are not checked
  const b = before.type.kind === 'enum' ? 'enum' : fieldTypeName(before.type);
  const a = fieldTypeName(after.type);
  if (b === 'enum') return after.type.kind === 'scalar' && (a === 'String' || a === 'Text');
  return WIDENINGS.has(`${b}>${a}`);
}

/** A relation's identity across renames: its kind and its ends under their new names. */
function relationKey(relation: Relation, typeMatches: TypeMatches | null): string {
  const ends = relation.ends.map((e) => `${typeMatches ? (typeMatches.get(e.type) ?? `?${e.type}`) : e.type}.${e.field}`);
  return `${relation.kind}:${[...ends].sort().join('|')}`;
}

function diffRelations(prev: AppModel, next: AppModel, typeMatches: TypeMatches, add: Add) {
  const nextByName = byName(next.relations);
  const prevByName = byName(prev.relations);
  const unmatchedPrev = prev.relations.filter((r) => !nextByName.has(r.name));
  const pairs: { before: Relation; after: Relation }[] = [];
  const added: Relation[] = [];
  const renamedTo = fieldRenames(prev, next, typeMatches);

  for (const after of next.relations) {
    let before = prevByName.get(after.name);
    if (!before) {
      // A relation whose name changed but whose ends did not is renamed, keeping its rows.
      const key = relationKey(after, null);
      before = unmatchedPrev.find((r) => relationKey(renameEnds(r, renamedTo), typeMatches) === key);
      if (before) unmatchedPrev.splice(unmatchedPrev.indexOf(before), 1);
    }
    if (before) pairs.push({ before, after });
    else added.push(after);
  }

  for (const { before, after } of pairs) {
    if (before.kind !== after.kind || !sameStorageShape(before, after, typeMatches, renamedTo)) {
      add({ kind: 'dropRelation', relation: before.name }, `Drop ${relationLabel(before)} and its links`, true);
      add({ kind: 'addRelation', relation: after.name }, `Add ${relationLabel(after)}`);
      continue;
    }
    if (before.name !== after.name) {
      add({ kind: 'renameRelation', from: before.name, to: after.name }, `Rename relation ${before.name} to ${after.name}`);
    }
    for (const [i, end] of after.ends.entries()) {
      const old = before.ends[i];
      // An end naming no field (a one-sided built-in relation) gaining or losing one renames nothing.
      if (!old || old.field === end.field || old.field === '' || end.field === '' || (i === 1 && after.kind === 'selfManyToMany')) continue;
      add({ kind: 'renameField', type: end.type, from: old.field, to: end.field }, `Rename field ${end.type}.${old.field} to ${end.type}.${end.field}`);
    }
    diffJoinFields(before, after, add);
  }
  for (const r of unmatchedPrev) add({ kind: 'dropRelation', relation: r.name }, `Drop ${relationLabel(r)} and its links`, true);
  for (const r of added) add({ kind: 'addRelation', relation: r.name }, `Add ${relationLabel(r)}`);
}

/** `Type.oldField` (old names) → new field name, for relation fields renamed with `@renamed`. */
function fieldRenames(prev: AppModel, next: AppModel, typeMatches: TypeMatches): Map<string, string> {
  const renames = new Map<string, string>();
  const prevTypes = byName(prev.types);
  for (const [oldType, newType] of typeMatches) {
    const after = next.types.find((t) => t.name === newType);
    const before = prevTypes.get(oldType);
    if (!after || !before) continue;
    for (const f of after.fields) {
      if (f.kind !== 'relation' || !f.renamedFrom) continue;
      if (before.fields.some((b) => b.name === f.renamedFrom && b.kind === 'relation')) renames.set(`${oldType}.${f.renamedFrom}`, f.name);
    }
  }
  return renames;
}

function renameEnds(relation: Relation, renamedTo: Map<string, string>): Relation {
  const ends = relation.ends.map((e) => ({ ...e, field: renamedTo.get(`${e.type}.${e.field}`) ?? e.field })) as Relation['ends'];
  return { ...relation, ends };
}

/**
 * Whether a relation can keep its rows in place: same kind, and a foreign key stays on the same
 * (possibly renamed) side. Column renames that follow a field rename are handled by renameField.
 */
function sameStorageShape(before: Relation, after: Relation, typeMatches: TypeMatches, renamedTo: Map<string, string>): boolean {
  const b = before.storage;
  const a = after.storage;
  if (b.kind === 'foreignKey' && a.kind === 'foreignKey') {
    const owner = before.ends[0];
    const movedOwner = typeMatches.get(owner.type) === after.ends[0].type;
    const field = renamedTo.get(`${owner.type}.${owner.field}`) ?? owner.field;
    return movedOwner && (field === after.ends[0].field || before.name === after.name) && b.unique === a.unique;
  }
  if (b.kind === 'joinTable' && a.kind === 'joinTable') {
    // End columns are named after the end types; a renamed end type would need its column moved.
    return b.columns[0] === a.columns[0] && b.columns[1] === a.columns[1];
  }
  return false;
}

function diffJoinFields(before: Relation, after: Relation, add: Add) {
  const prevFields = byName(before.joinFields);
  const nextFields = byName(after.joinFields);
  for (const f of after.joinFields) {
    const old = prevFields.get(f.name);
    if (old && canonicalJson(old) === canonicalJson(f)) continue;
    if (old) add({ kind: 'dropJoinField', relation: after.name, field: f.name }, `Drop join field ${after.name}.${f.name} and its values`, true);
    add({ kind: 'addJoinField', relation: after.name, field: f.name }, `Add join field ${after.name}.${f.name} (${valueFieldLabel(f)})`);
  }
  for (const f of before.joinFields) {
    if (!nextFields.has(f.name)) add({ kind: 'dropJoinField', relation: after.name, field: f.name }, `Drop join field ${after.name}.${f.name} and its values`, true);
  }
}
