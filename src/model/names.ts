// Naming rules of the schema language: what a valid type, field or relation name is, and the
// names derived from them (plurals, lower-camel end names, capitalised field names).

import pluralize from 'pluralize';

/** PostgreSQL silently truncates identifiers longer than this many bytes. */
export const MAX_IDENTIFIER_BYTES = 63;

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

export function isGraphQLName(name: string): boolean {
  return GRAPHQL_NAME.test(name);
}

/**
 * Why `name` cannot be used as a type, field or relation name, or undefined when it can.
 * `what` starts the message: `Type name`, `Field name`, `Relation name`…; `shown` is the name
 * as the message shows it (`Post.title` for a field).
 */
export function nameProblem(what: string, name: string, shown: string = name): string | undefined {
  if (!isGraphQLName(name)) return `${what} "${shown}" is not a valid GraphQL name (letters, digits and _, not starting with a digit)`;
  if (name.startsWith('__')) return `${what} ${shown} must not start with "__" (reserved for GraphQL introspection)`;
  if (Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) {
    return `${what} ${shown} is longer than ${MAX_IDENTIFIER_BYTES} bytes (the PostgreSQL identifier limit)`;
  }
  return undefined;
}

/**
 * The English plural of a type name, as used in `allCountries`: Country → Countries,
 * Person → People, Status → Statuses. A name ending in a capital (an acronym such as `URL`)
 * takes a plain `s`: URL → URLs.
 */
export function pluralOf(name: string): string {
  if (/[A-Z]$/.test(name)) return `${name}s`;
  return pluralize.plural(name);
}

/**
 * `User` → `user`, `BlogPost` → `blogPost`; a leading acronym is lowered as a whole:
 * `URLLink` → `urlLink`, `URL` → `url`.
 */
export function lowerCamel(name: string): string {
  const lead = /^[A-Z]+/.exec(name)?.[0] ?? '';
  if (lead.length <= 1 || lead.length === name.length) return lead.toLowerCase() + name.slice(lead.length);
  // `URLLink`: the last capital of the run starts the next word.
  return lead.slice(0, -1).toLowerCase() + name.slice(lead.length - 1);
}

/** `title` → `Title`, as in `PostTitleWhereArgs`. */
export function capitalize(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** The relation column (and create/update input) of a singular relation field: `author` → `authorId`. */
export function idColumn(field: string): string {
  return `${field}Id`;
}

/** Plain code-unit comparison, the order every sorted list of the model uses. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
