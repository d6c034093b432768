// A readable outline of an app schema, read from its SDL: model types with their fields,
// relations paired by name (and their kind), embedded types and enums.

import { Kind, parse } from 'graphql';
import type { ConstDirectiveNode, FieldDefinitionNode, ObjectTypeDefinitionNode, TypeNode } from 'graphql';

export type RelationKind = 'one-to-one' | 'one-to-many' | 'many-to-one' | 'many-to-many';

export interface FieldOutline {
  name: string;
  type: string;
  /** Directives other than @relation, as written (`@unique`, `@default(value: 0)`). */
  notes: string[];
  relation?: { name: string; target: string; kind: RelationKind; reverse?: string };
}

export interface TypeOutline {
  name: string;
  fields: FieldOutline[];
  rules: number;
}

export interface SchemaOutline {
  models: TypeOutline[];
  embedded: TypeOutline[];
  enums: { name: string; values: string[] }[];
  joins: { name: string; relation: string; fields: FieldOutline[] }[];
}

function typeText(type: TypeNode): string {
  switch (type.kind) {
    case Kind.NON_NULL_TYPE:
      return `${typeText(type.type)}!`;
    case Kind.LIST_TYPE:
      return `[${typeText(type.type)}]`;
    case Kind.NAMED_TYPE:
      return type.name.value;
    default: {
      const never: never = type;
      return never;
    }
  }
}

function namedType(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedType(type.type);
}

function isList(type: TypeNode): boolean {
  return type.kind === Kind.LIST_TYPE || (type.kind === Kind.NON_NULL_TYPE && isList(type.type));
}

function directiveText(d: ConstDirectiveNode): string {
  const args = d.arguments ?? [];
  if (args.length === 0) return `@${d.name.value}`;
  const text = args.map((a) => `${a.name.value}: ${a.value.loc ? a.value.loc.source.body.slice(a.value.loc.start, a.value.loc.end) : '…'}`).join(', ');
  return `@${d.name.value}(${text})`;
}

function relationName(field: FieldDefinitionNode): string | undefined {
  const directive = field.directives?.find((d) => d.name.value === 'relation');
  const arg = directive?.arguments?.find((a) => a.name.value === 'name');
  return arg?.value.kind === Kind.STRING ? arg.value.value : undefined;
}

const hasDirective = (node: ObjectTypeDefinitionNode, name: string) => node.directives?.some((d) => d.name.value === name) ?? false;

/** The outline of `sdl`; throws graphql's syntax error when it does not parse. */
export function describeSchema(sdl: string): SchemaOutline {
  // A schema of comments only is valid (an app with just the built-in types); graphql's parser
  // wants at least one definition.
  if (sdl.replace(/#[^\n]*/g, '').trim() === '') return { models: [], embedded: [], enums: [], joins: [] };
  const document = parse(sdl, { noLocation: false });
  const objects = document.definitions.filter((d): d is ObjectTypeDefinitionNode => d.kind === Kind.OBJECT_TYPE_DEFINITION);
  // Every end of each relation name: which type and field declare it, and whether it is a list.
  const ends = new Map<string, { type: string; field: string; list: boolean; target: string }[]>();
  for (const object of objects) {
    for (const field of object.fields ?? []) {
      const name = relationName(field);
      if (!name) continue;
      const list = ends.get(name) ?? [];
      list.push({ type: object.name.value, field: field.name.value, list: isList(field.type), target: namedType(field.type) });
      ends.set(name, list);
    }
  }
  const field = (object: ObjectTypeDefinitionNode, f: FieldDefinitionNode): FieldOutline => {
    const name = relationName(f);
    const notes = (f.directives ?? []).filter((d) => d.name.value !== 'relation').map(directiveText);
    const outline: FieldOutline = { name: f.name.value, type: typeText(f.type), notes };
    if (name) {
      const mine = { list: isList(f.type) };
      const other = (ends.get(name) ?? []).find((e) => !(e.type === object.name.value && e.field === f.name.value));
      const otherList = other ? other.list : mine.list; // a self relation whose field is its own reverse
      const kind: RelationKind = mine.list ? (otherList ? 'many-to-many' : 'one-to-many') : otherList ? 'many-to-one' : 'one-to-one';
      outline.relation = { name, target: namedType(f.type), kind, ...(other ? { reverse: `${other.type}.${other.field}` } : {}) };
    }
    return outline;
  };
  const outline = (object: ObjectTypeDefinitionNode): TypeOutline => ({
    name: object.name.value,
    fields: (object.fields ?? []).map((f) => field(object, f)),
    rules: object.directives?.filter((d) => d.name.value === 'permission').length ?? 0,
  });
  return {
    models: objects.filter((o) => hasDirective(o, 'model')).map(outline),
    embedded: objects.filter((o) => !hasDirective(o, 'model') && !hasDirective(o, 'join')).map(outline),
    joins: objects
      .filter((o) => hasDirective(o, 'join'))
      .map((o) => {
        const arg = o.directives?.find((d) => d.name.value === 'join')?.arguments?.find((a) => a.name.value === 'relation');
        return { name: o.name.value, relation: arg?.value.kind === Kind.STRING ? arg.value.value : '', fields: (o.fields ?? []).map((f) => field(o, f)) };
      }),
    enums: document.definitions.flatMap((d) => (d.kind === Kind.ENUM_TYPE_DEFINITION ? [{ name: d.name.value, values: (d.values ?? []).map((v) => v.name.value) }] : [])),
  };
}
