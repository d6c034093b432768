// Human-readable labels for model pieces and migration steps, shared by plan descriptions,
// the CLI and error messages.

import type { Field, FieldType, Relation, ValueField } from './types.js';

export function fieldTypeName(type: FieldType): string {
  return type.name;
}

/** `Int`, `String!`, `[String]`, `[Address]!` — the field's type as written in SDL. */
export function valueFieldLabel(field: Pick<ValueField, 'type' | 'list' | 'required'>): string {
  const base = field.list ? `[${fieldTypeName(field.type)}]` : fieldTypeName(field.type);
  return field.required ? `${base}!` : base;
}

export function fieldLabel(field: Field): string {
  if (field.kind === 'relation') return field.list ? `[${field.target}]` : field.target;
  return valueFieldLabel(field);
}

const KIND_LABEL: Record<Relation['kind'], string> = {
  oneToOne: 'one-to-one',
  oneToMany: 'one-to-many',
  manyToMany: 'many-to-many',
  selfManyToMany: 'self many-to-many',
};

/** `one-to-many relation PostAuthor (Post.author ↔ User.posts)`. */
export function relationLabel(relation: Relation): string {
  const [a, b] = relation.ends;
  const ends = relation.kind === 'selfManyToMany' || b.field === '' ? `${a.type}.${a.field}` : `${a.type}.${a.field} ↔ ${b.type}.${b.field}`;
  return `${KIND_LABEL[relation.kind]} relation ${relation.name} (${ends})`;
}

export function formatDefault(value: unknown): string {
  return JSON.stringify(value);
}
