// A tiny typed SQL fragment builder, the only place SQL text is assembled.
// Template text is trusted code; identifiers go through `ident`; every value becomes a `$n`.

type Part =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'ident'; readonly names: readonly string[] }
  | { readonly kind: 'value'; readonly value: unknown }
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'compiled'; readonly text: string; readonly values: readonly unknown[] };

const BRAND = Symbol('tessera.sql');

export interface SqlFragment {
  readonly [BRAND]: true;
  readonly parts: readonly Part[];
}

export interface CompiledSql {
  readonly text: string;
  readonly values: unknown[];
}

function fragment(parts: Part[]): SqlFragment {
  return Object.freeze({ [BRAND]: true as const, parts: Object.freeze(parts) });
}

export function isSql(value: unknown): value is SqlFragment {
  return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
}

/**
 * Tagged template: `sql\`SELECT * FROM ${ident('s', 't')} WHERE id = ${id}\``.
 * Interpolated fragments are spliced in; any other interpolated value is bound as a parameter.
 */
export function sql(strings: TemplateStringsArray, ...args: unknown[]): SqlFragment {
  if (!Array.isArray(strings) || !('raw' in strings)) {
    throw new TypeError('sql must be used as a tagged template; build dynamic SQL from fragments');
  }
  const parts: Part[] = [];
  strings.forEach((text, i) => {
    if (text) parts.push({ kind: 'text', text });
    if (i < args.length) {
      const arg = args[i];
      if (isSql(arg)) parts.push(...arg.parts);
      else parts.push({ kind: 'value', value: arg });
    }
  });
  return fragment(parts);
}

const MAX_IDENTIFIER_BYTES = 63;

/** A (possibly qualified) identifier, always double-quoted. */
export function ident(...names: string[]): SqlFragment {
  if (names.length === 0) throw new TypeError('ident needs at least one name');
  for (const name of names) {
    if (typeof name !== 'string' || name.length === 0) throw new TypeError('identifier must be a non-empty string');
    if (name.includes('\0')) throw new TypeError('identifier must not contain NUL');
    if (Buffer.byteLength(name, 'utf8') > MAX_IDENTIFIER_BYTES) {
      throw new TypeError(`identifier "${name}" is longer than ${MAX_IDENTIFIER_BYTES} bytes`);
    }
  }
  return fragment([{ kind: 'ident', names }]);
}

/** A bound parameter, explicit form of interpolating a plain value. */
export function value(v: unknown): SqlFragment {
  return fragment([{ kind: 'value', value: v }]);
}

/**
 * An inline literal, for the few statements PostgreSQL does not let take parameters (DDL:
 * column defaults, CHECK constraints) and for constants of the schema itself (type names in
 * generated ids), never for request values but a page's row count, a whole number checked as
 * such (compile/connection.ts). Only strings, finite numbers, booleans and null.
 */
export function literal(v: string | number | boolean | null): SqlFragment {
  if (v === null) return fragment([{ kind: 'literal', text: 'NULL' }]);
  if (typeof v === 'boolean') return fragment([{ kind: 'literal', text: v ? 'TRUE' : 'FALSE' }]);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new TypeError('literal number must be finite');
    return fragment([{ kind: 'literal', text: String(v) }]);
  }
  if (typeof v !== 'string') throw new TypeError('literal must be a string, number, boolean or null');
  if (v.includes('\0')) throw new TypeError('literal must not contain NUL');
  // standard_conforming_strings is on in every supported PostgreSQL: only quotes need doubling.
  return fragment([{ kind: 'literal', text: `'${v.replaceAll("'", "''")}'` }]);
}

/** Joins fragments with a separator fragment (default `, `). */
export function join(items: readonly SqlFragment[], separator: SqlFragment = sql`, `): SqlFragment {
  const parts: Part[] = [];
  items.forEach((item, i) => {
    if (!isSql(item)) throw new TypeError('join takes SQL fragments only');
    if (i > 0) parts.push(...separator.parts);
    parts.push(...item.parts);
  });
  return fragment(parts);
}

export const empty: SqlFragment = fragment([]);

/** How many times `frag` names the identifier `names` (whether a statement reads a table). */
export function identCount(frag: SqlFragment, ...names: string[]): number {
  return frag.parts.filter((part) => part.kind === 'ident' && part.names.length === names.length && part.names.every((n, i) => n === names[i])).length;
}

/**
 * A whole statement compiled before (its `$n` refer to `values`): a cached statement is
 * rendered once and only its values change per request. It cannot be spliced into others.
 */
export function precompiled(text: string, values: readonly unknown[]): SqlFragment {
  return fragment([{ kind: 'compiled', text, values }]);
}

/**
 * The same fragment with every bound value replaced by `fn(value)`: a statement compiled once
 * with placeholders for request values is bound again for each request.
 */
export function mapValues(frag: SqlFragment, fn: (value: unknown) => unknown): SqlFragment {
  if (!isSql(frag)) throw new TypeError('mapValues takes a SQL fragment');
  return fragment(
    frag.parts.map((part) => {
      if (part.kind === 'value') return { kind: 'value', value: fn(part.value) };
      if (part.kind === 'compiled') return { kind: 'compiled', text: part.text, values: part.values.map(fn) };
      return part;
    }),
  );
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Turns a fragment into PostgreSQL text with `$n` placeholders and its parameter values. */
export function compile(frag: SqlFragment): CompiledSql {
  if (!isSql(frag)) throw new TypeError('compile takes a SQL fragment; raw strings are not accepted');
  const only = frag.parts[0];
  if (frag.parts.length === 1 && only?.kind === 'compiled') return { text: only.text, values: [...only.values] };
  let text = '';
  const values: unknown[] = [];
  for (const part of frag.parts) {
    switch (part.kind) {
      case 'text':
      case 'literal':
        text += part.text;
        break;
      case 'ident':
        text += part.names.map(quoteIdent).join('.');
        break;
      case 'value':
        values.push(part.value);
        text += `$${values.length}`;
        break;
      case 'compiled':
        throw new TypeError('a precompiled statement cannot be part of another statement');
      default: {
        const never: never = part;
        throw new TypeError(`unknown SQL part ${JSON.stringify(never)}`);
      }
    }
  }
  return { text, values };
}
