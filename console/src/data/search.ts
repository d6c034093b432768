// Searching a type's objects by text on the server: a `where` that matches the words anywhere in
// the type's text fields (`like`, which the server matches case-insensitively).

import type { ModelInfo } from './model';

/** `term` as a `like` pattern matching it anywhere: its own `%`, `_` and `\` match themselves. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** The fields of `model` a text search looks in: those with a `like` operator. */
export function searchableFields(model: ModelInfo): string[] {
  return model.filters.filter((f) => f.operators.includes('like') && f.valueType === 'String').map((f) => f.name);
}

/** A `where` matching objects whose `fields` (by default every searchable one) contain `term`; undefined for an empty term. */
export function searchWhere(model: ModelInfo, term: string, fields: readonly string[] = searchableFields(model)): Record<string, unknown> | undefined {
  const text = term.trim();
  if (text === '' || fields.length === 0) return undefined;
  const pattern = containsPattern(text);
  const each = fields.map((f) => ({ [f]: { like: pattern } }));
  return each.length === 1 ? each[0] : { OR: each };
}
