// Random invalid requests: a valid operation with values of the wrong type or odd strings
// (huge, NUL, lone surrogates, SQL), nesting far past the limits (documents, selections, input
// values), mangled documents, malformed envelopes (bodies, media types, methods) and garbage
// credentials. Each is a request a hostile or broken client could send.

import fc from 'fast-check';
import { getNamedType, isInputObjectType, isObjectType } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import type { Choose } from './choose.js';
import type { Operation } from './operationGen.js';

export interface FuzzRequest {
  kind: string;
  method: string;
  /** Appended to the endpoint (a query string for GET). */
  search?: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export function postRequest(kind: string, operation: Operation | Record<string, unknown>, auth: string | undefined): FuzzRequest {
  return {
    kind,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
    body: JSON.stringify(operation),
  };
}

/** Replaces string leaves of `v` with odd strings, now and then. */
function oddLeaves(c: Choose, v: unknown): unknown {
  if (typeof v === 'string') return c.chance(0.6) ? c.oddString() : v;
  if (Array.isArray(v)) return v.map((item) => oddLeaves(c, item));
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, oddLeaves(c, item)]));
  return v;
}

function nest(depth: number, leaf: unknown, wrap: (inner: unknown) => unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

/** A `where` filter nested `depth` deep, on the first connection of Viewer. */
function deepWhere(c: Choose, schema: GraphQLSchema): Operation | undefined {
  const viewer = schema.getType('Viewer');
  if (!isObjectType(viewer)) return undefined;
  const field = Object.values(viewer.getFields()).find((f) => f.args.some((a) => a.name === 'where'));
  const where = field?.args.find((a) => a.name === 'where');
  if (!field || !where || !isInputObjectType(getNamedType(where.type))) return undefined;
  const depth = c.int(10, 80);
  const value = c.chance(0.5)
    ? nest(depth, {}, (inner) => ({ NOT: inner }))
    : nest(depth, { id: { in: [] } }, (inner) => ({ AND: [inner, {}] }));
  return {
    query: `query Deep($w: ${String(where.type)}) { viewer { ${field.name}(first: 1, where: $w) { aggregations { count } } } }`,
    variables: { w: value },
  };
}

/** Percent-encodes every byte of the UTF-8 text (a lone surrogate becomes U+FFFD, as a client would send it). */
function percentEncoded(text: string): string {
  return [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
}

function mangle(c: Choose, text: string): string {
  let out = text;
  for (let i = 0; i < c.int(1, 4); i++) {
    const at = c.int(0, out.length);
    out = c.chance(0.5) ? out.slice(0, at) + out.slice(at + c.int(1, 5)) : out.slice(0, at) + c.pick(['{', '}', '(', ')', '$', '"', '...', '@', '#', '\\u', '\u0000', ':']) + out.slice(at);
  }
  return out;
}

export function invalidRequest(c: Choose, schema: GraphQLSchema, valid: Operation, token: string): FuzzRequest {
  const auth = c.chance(0.8) ? token : undefined;
  const names = Object.keys(valid.variables);
  switch (c.int(0, 11)) {
    case 0: {
      if (names.length === 0) return postRequest('odd strings', { ...valid, variables: { extra: c.oddString() } }, auth);
      const name = c.pick(names);
      return postRequest('wrong type', { ...valid, variables: { ...valid.variables, [name]: c.otherKind(valid.variables[name]) } }, auth);
    }
    case 1:
      return postRequest('odd strings', { ...valid, variables: oddLeaves(c, valid.variables) as Record<string, unknown> }, auth);
    case 2:
      return postRequest('deep document', { query: `${'{'.repeat(c.int(50, 6000))}` }, auth);
    case 3: {
      const depth = c.int(16, 60);
      const query = `{ __schema { types { fields { type ${'{ ofType '.repeat(depth)}{ name }${' }'.repeat(depth)} } } } }`;
      return postRequest('deep selection', { query }, auth);
    }
    case 4: {
      const op = deepWhere(c, schema) ?? valid;
      return postRequest('deep input', op, auth);
    }
    case 5: {
      if (names.length === 0) return postRequest('deep list', { ...valid, variables: { extra: nest(c.int(33, 300), 1, (v) => [v]) } }, auth);
      const name = c.pick(names);
      return postRequest('deep list', { ...valid, variables: { ...valid.variables, [name]: nest(c.int(33, 300), valid.variables[name], (v) => [v]) } }, auth);
    }
    case 6:
      return postRequest('mangled document', { ...valid, query: c.chance(0.7) ? mangle(c, valid.query) : c.g(fc.string, { unit: 'grapheme', maxLength: 300 }) }, auth);
    case 7: {
      const n = c.int(31, 120);
      const query = `{ ${Array.from({ length: n }, (_, i) => `a${i}: viewer { id }`).join(' ')} }`;
      return postRequest('many aliases', { query }, auth);
    }
    case 8:
      return postRequest('many tokens', { query: `{ viewer { id } ${'__typename '.repeat(c.int(5000, 20000))}}` }, auth);
    case 9: {
      const body = c.pick<() => string | Buffer>([
        () => Buffer.from(c.g(fc.uint8Array, { minLength: 1, maxLength: 300 })),
        () => JSON.stringify([valid, valid]),
        () => JSON.stringify(c.json()),
        () => JSON.stringify({ query: c.otherKind(valid.query) }),
        () => JSON.stringify({ ...valid, variables: c.text() }),
        () => JSON.stringify({ ...valid, operationName: c.otherKind('Fuzz') }),
        () => JSON.stringify({ ...valid, operationName: c.text() }),
        () => `{"query": "${'x'.repeat(1024 * 1024 + 10)}"}`,
        () => '{"query": "{ __typename }", "__proto__": { "polluted": true }, "constructor": { "prototype": { "polluted": true } } }',
        () => JSON.stringify(valid).slice(0, c.int(0, 20)),
      ])();
      return { kind: 'malformed body', method: 'POST', headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) }, body };
    }
    case 10: {
      const variant = c.int(0, 4);
      const search = `?query=${percentEncoded(valid.query)}&variables=${percentEncoded(JSON.stringify(valid.variables))}`;
      if (variant === 0) return { kind: 'GET', method: 'GET', search, headers: {} };
      if (variant === 1) return { kind: 'bad method', method: c.pick(['PUT', 'PATCH', 'DELETE']), headers: { 'content-type': 'application/json' }, body: JSON.stringify(valid) };
      if (variant === 2) return { kind: 'bad media type', method: 'POST', headers: { 'content-type': c.pick(['text/plain', 'application/x-www-form-urlencoded', 'application/graphql', 'multipart/form-data; boundary=x']) }, body: JSON.stringify(valid) };
      if (variant === 3) return { kind: 'bad accept', method: 'POST', headers: { 'content-type': 'application/json', accept: c.pick(['text/html', 'image/png', 'application/xml']) }, body: JSON.stringify(valid) };
      const odd = c.pick([() => percentEncoded(c.oddString().slice(0, 4000)), () => '%ED%A0%80', () => '%', () => '%zz%C3', () => '%00']);
      return { kind: 'GET', method: 'GET', search: `?query=${odd()}&variables=${odd()}`, headers: {} };
    }
    default: {
      const bad = c.pick([() => c.text(), () => `${token}x`, () => 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', () => c.oddString().slice(0, 2000), () => 'tat_' + 'A'.repeat(43)])();
      return { ...postRequest('bad credentials', valid, undefined), headers: { 'content-type': 'application/json', authorization: c.chance(0.8) ? `Bearer ${bad}` : bad } };
    }
  }
}
