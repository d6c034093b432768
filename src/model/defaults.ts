// Checks `@default(value: …)` literals against the type of their field and turns them into
// the JSON value the model stores; a DateTime default is normalised to UTC with milliseconds.

import { Kind, print } from 'graphql';
import type { ConstValueNode } from 'graphql';
import { normalizeDateTime } from './datetime.js';
import type { Report } from './problems.js';
import type { FieldType, ValueField } from './types.js';

/** What a value must look like: the type of a field, whether it is a list, and if it is required. */
export type ValueShape = Pick<ValueField, 'type' | 'list' | 'required'>;

export interface DefaultLookups {
  enumValues(name: string): readonly string[] | undefined;
  embeddedFields(name: string): readonly ValueField[] | undefined;
}

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

const INVALID = Symbol('invalid');
type Checked = unknown;

/**
 * The JSON value of a `@default` literal for a field labelled `label` (`Post.rating`), or
 * undefined when the literal does not fit the field (every mismatch is reported).
 */
export function checkDefault(node: ConstValueNode, field: ValueShape, label: string, lookups: DefaultLookups, report: Report): { value: unknown } | undefined {
  if (node.kind === Kind.NULL) {
    report(`Invalid @default for ${label}: null is not a default; leave @default out instead`, node);
    return undefined;
  }
  const value = checkField({ lookups, report }, node, field, label);
  return value === INVALID ? undefined : { value };
}

interface Ctx {
  lookups: DefaultLookups;
  report: Report;
}

function fail(ctx: Ctx, label: string, expected: string, node: ConstValueNode): typeof INVALID {
  ctx.report(`Invalid @default for ${label}: expected ${expected}, found ${print(node)}`, node);
  return INVALID;
}

function checkField(ctx: Ctx, node: ConstValueNode, shape: ValueShape, label: string): Checked {
  if (node.kind === Kind.NULL) {
    if (shape.required) return fail(ctx, label, `a value (the field is required)`, node);
    return null;
  }
  if (!shape.list) return checkItem(ctx, node, shape.type, label);
  // As in GraphQL input coercion, a single value stands for a list of one.
  const items = node.kind === Kind.LIST ? node.values : [node];
  const values = items.map((item, i) => (item.kind === Kind.NULL ? null : checkItem(ctx, item, shape.type, `${label}[${i}]`)));
  return values.includes(INVALID) ? INVALID : values;
}

function checkItem(ctx: Ctx, node: ConstValueNode, type: FieldType, label: string): Checked {
  switch (type.kind) {
    case 'scalar':
      return checkScalar(ctx, node, type.name, label);
    case 'enum':
      return checkEnum(ctx, node, type.name, label);
    case 'embedded':
      return checkEmbedded(ctx, node, type.name, label);
    default: {
      const unreachable: never = type;
      return unreachable;
    }
  }
}

function checkScalar(ctx: Ctx, node: ConstValueNode, name: string, label: string): Checked {
  switch (name) {
    case 'ID':
      if (node.kind === Kind.STRING) return node.value;
      return node.kind === Kind.INT ? node.value : fail(ctx, label, 'an ID (a String)', node);
    case 'String':
    case 'Text':
      return node.kind === Kind.STRING ? node.value : fail(ctx, label, 'a String', node);
    case 'Int': {
      const n = node.kind === Kind.INT ? Number(node.value) : NaN;
      return Number.isInteger(n) && n >= INT_MIN && n <= INT_MAX ? n : fail(ctx, label, 'an Int (a 32-bit integer)', node);
    }
    case 'Float': {
      const n = node.kind === Kind.INT || node.kind === Kind.FLOAT ? Number(node.value) : NaN;
      return Number.isFinite(n) ? n : fail(ctx, label, 'a Float', node);
    }
    case 'Boolean':
      return node.kind === Kind.BOOLEAN ? node.value : fail(ctx, label, 'true or false', node);
    case 'DateTime': {
      const iso = node.kind === Kind.STRING ? normalizeDateTime(node.value) : undefined;
      return iso ?? fail(ctx, label, 'an ISO 8601 DateTime string such as "2016-12-08T12:33:56.000Z"', node);
    }
    case 'JSON':
      return checkJson(ctx, node, label);
    default:
      return fail(ctx, label, `a ${name}`, node);
  }
}

function checkJson(ctx: Ctx, node: ConstValueNode, label: string): Checked {
  switch (node.kind) {
    case Kind.NULL:
      return null;
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT: {
      const n = Number(node.value);
      return Number.isFinite(n) ? n : fail(ctx, label, 'a finite number', node);
    }
    case Kind.LIST: {
      const values = node.values.map((v, i) => checkJson(ctx, v, `${label}[${i}]`));
      return values.includes(INVALID) ? INVALID : values;
    }
    case Kind.OBJECT: {
      const out: Record<string, unknown> = {};
      let ok = true;
      for (const f of node.fields) {
        const v = checkJson(ctx, f.value, `${label}.${f.name.value}`);
        if (v === INVALID) ok = false;
        else out[f.name.value] = v;
      }
      return ok ? out : INVALID;
    }
    case Kind.ENUM:
      return fail(ctx, label, `a JSON value (write strings in quotes: "${node.value}")`, node);
    default: {
      const unreachable: never = node;
      return unreachable;
    }
  }
}

function checkEnum(ctx: Ctx, node: ConstValueNode, name: string, label: string): Checked {
  const values = ctx.lookups.enumValues(name) ?? [];
  if (node.kind === Kind.ENUM && values.includes(node.value)) return node.value;
  if (node.kind === Kind.STRING && values.includes(node.value)) {
    return fail(ctx, label, `a value of enum ${name} written without quotes (${node.value})`, node);
  }
  return fail(ctx, label, `one of ${name}'s values (${values.join(', ')})`, node);
}

function checkEmbedded(ctx: Ctx, node: ConstValueNode, name: string, label: string): Checked {
  const fields = ctx.lookups.embeddedFields(name) ?? [];
  if (node.kind !== Kind.OBJECT) return fail(ctx, label, `an object of type ${name}, such as { ${fields[0]?.name ?? 'field'}: … }`, node);
  const out: Record<string, unknown> = {};
  let ok = true;
  const seen = new Set<string>();
  for (const f of node.fields) {
    const fieldName = f.name.value;
    const field = fields.find((candidate) => candidate.name === fieldName);
    if (seen.has(fieldName)) {
      ctx.report(`Invalid @default for ${label}: field ${fieldName} is given more than once`, f);
      ok = false;
    } else if (!field) {
      ctx.report(`Invalid @default for ${label}: ${name} has no field ${fieldName}`, f);
      ok = false;
    } else {
      const v = checkField(ctx, f.value, field, `${label}.${fieldName}`);
      if (v === INVALID) ok = false;
      else out[fieldName] = v;
    }
    seen.add(fieldName);
  }
  for (const field of fields) {
    if (field.required && !seen.has(field.name)) {
      ctx.report(`Invalid @default for ${label}: the required field ${field.name} of ${name} is missing`, node);
      ok = false;
    }
  }
  return ok ? out : INVALID;
}
