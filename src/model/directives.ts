// The directives of the schema language: where each may appear, which arguments it takes, and
// the check of every directive use against that table. Meaning is given by the later passes.

import { Kind, print } from 'graphql';
import type { ConstArgumentNode, ConstDirectiveNode, ConstValueNode } from 'graphql';
import { PERMISSION_SCOPES } from './types.js';
import type { Report } from './problems.js';

/** The places a directive can be written. */
export type DirectiveSite = 'model' | 'embedded' | 'join' | 'enum' | 'enumValue' | 'modelField' | 'embeddedField' | 'joinField' | 'customField' | 'customArgument';

const SITE_LABEL: Record<DirectiveSite, string> = {
  model: 'a @model type',
  embedded: 'an embedded type',
  join: 'a @join type',
  enum: 'an enum',
  enumValue: 'an enum value',
  modelField: 'a field of a @model type',
  embeddedField: 'a field of an embedded type',
  joinField: 'a field of a @join type',
  customField: 'a field of extend type Query or Mutation',
  customArgument: 'an argument',
};

type ArgSpec =
  | { kind: 'String' | 'Boolean' | '[String]' | 'value'; required?: boolean }
  | { kind: 'enum'; values: readonly string[]; required?: boolean };

interface DirectiveSpec {
  sites: readonly DirectiveSite[];
  /** Where the directive belongs, for the message when it is misplaced. */
  belongs: string;
  repeatable: boolean;
  args: Record<string, ArgSpec>;
}

export type DirectiveName = 'model' | 'join' | 'renamed' | 'unique' | 'index' | 'default' | 'relation' | 'permission' | 'function';

const DIRECTIVES: Record<DirectiveName, DirectiveSpec> = {
  model: { sites: ['model'], belongs: 'on object types', repeatable: false, args: { plural: { kind: 'String' } } },
  join: { sites: ['join'], belongs: 'on object types', repeatable: false, args: { relation: { kind: 'String', required: true } } },
  renamed: {
    sites: ['model', 'modelField'],
    belongs: 'on @model types and their fields',
    repeatable: false,
    args: { from: { kind: 'String', required: true } },
  },
  unique: { sites: ['modelField'], belongs: 'on fields of @model types', repeatable: false, args: {} },
  index: { sites: ['modelField'], belongs: 'on fields of @model types', repeatable: false, args: {} },
  default: {
    sites: ['modelField', 'embeddedField', 'joinField'],
    belongs: 'on fields',
    repeatable: false,
    args: { value: { kind: 'value', required: true } },
  },
  relation: { sites: ['modelField'], belongs: 'on fields of @model types', repeatable: false, args: { name: { kind: 'String', required: true } } },
  function: {
    sites: ['customField'],
    belongs: 'on the fields of extend type Query and extend type Mutation',
    repeatable: false,
    args: { name: { kind: 'String', required: true } },
  },
  permission: {
    sites: ['model', 'modelField', 'customField'],
    belongs: 'on @model types, their fields and the fields of extend type Query and Mutation',
    repeatable: true,
    args: {
      scope: { kind: 'enum', values: PERMISSION_SCOPES, required: true },
      read: { kind: 'Boolean' },
      create: { kind: 'Boolean' },
      update: { kind: 'Boolean' },
      delete: { kind: 'Boolean' },
      userFields: { kind: '[String]' },
      roles: { kind: '[String]' },
      fields: { kind: '[String]' },
    },
  },
};

const KNOWN = Object.keys(DIRECTIVES).map((d) => `@${d}`).join(', ');

function isDirectiveName(name: string): name is DirectiveName {
  return Object.hasOwn(DIRECTIVES, name);
}

/** The directives written at one site that are known and allowed there, by name. */
export type DirectiveUses = ReadonlyMap<DirectiveName, readonly ConstDirectiveNode[]>;

/**
 * Checks each directive at a site: known, allowed there, not repeated unless repeatable, with
 * known arguments of the right kinds. Returns the uses that are known and allowed (even when an
 * argument is wrong, so later passes do not report the directive as missing).
 */
export function checkDirectives(directives: readonly ConstDirectiveNode[] | undefined, site: DirectiveSite, report: Report): DirectiveUses {
  const uses = new Map<DirectiveName, ConstDirectiveNode[]>();
  for (const directive of directives ?? []) {
    const name = directive.name.value;
    if (!isDirectiveName(name)) {
      report(`Unknown directive @${name} (the schema language knows ${KNOWN})`, directive);
      continue;
    }
    const spec = DIRECTIVES[name];
    if (!spec.sites.includes(site)) {
      report(`Directive @${name} is not allowed on ${SITE_LABEL[site]}; it belongs ${spec.belongs}`, directive);
      continue;
    }
    const previous = uses.get(name);
    if (previous && !spec.repeatable) {
      report(`Directive @${name} is given more than once`, directive);
      continue;
    }
    checkArguments(name, spec, directive, report);
    uses.set(name, [...(previous ?? []), directive]);
  }
  return uses;
}

function checkArguments(name: DirectiveName, spec: DirectiveSpec, directive: ConstDirectiveNode, report: Report) {
  const given = new Set<string>();
  for (const arg of directive.arguments ?? []) {
    const argName = arg.name.value;
    const argSpec = Object.hasOwn(spec.args, argName) ? spec.args[argName] : undefined;
    if (!argSpec) {
      const expected = Object.keys(spec.args);
      const hint = expected.length ? `expected ${expected.join(', ')}` : 'it takes no arguments';
      report(`Unknown argument ${argName} for @${name} (${hint})`, arg);
      continue;
    }
    if (given.has(argName)) {
      report(`Argument ${argName} of @${name} is given more than once`, arg);
      continue;
    }
    given.add(argName);
    checkArgumentValue(name, arg, argSpec, report);
  }
  for (const [argName, argSpec] of Object.entries(spec.args)) {
    if (argSpec.required && !given.has(argName)) report(`Directive @${name} needs the argument ${argName}`, directive);
  }
}

function checkArgumentValue(directive: DirectiveName, arg: ConstArgumentNode, spec: ArgSpec, report: Report) {
  const value = arg.value;
  const where = `@${directive}(${arg.name.value}:)`;
  switch (spec.kind) {
    case 'value':
      return;
    case 'String':
      if (value.kind !== Kind.STRING) report(`${where} expects a String, found ${print(value)}`, value);
      return;
    case 'Boolean':
      if (value.kind !== Kind.BOOLEAN) report(`${where} expects true or false, found ${print(value)}`, value);
      return;
    case '[String]':
      for (const item of value.kind === Kind.LIST ? value.values : [value]) {
        if (item.kind !== Kind.STRING) report(`${where} expects a list of Strings, found ${print(item)}`, item);
      }
      return;
    case 'enum': {
      const expected = spec.values.join(', ');
      if (value.kind === Kind.STRING && spec.values.includes(value.value)) {
        report(`${where} takes an enum value, written without quotes: ${value.value}`, value);
      } else if (value.kind !== Kind.ENUM || !spec.values.includes(value.value)) {
        report(`${where} expects one of ${expected}, found ${print(value)}`, value);
      }
      return;
    }
    default: {
      const unreachable: never = spec;
      return unreachable;
    }
  }
}

/** The value node of an argument, if given. */
export function argumentValue(directive: ConstDirectiveNode, name: string): ConstValueNode | undefined {
  return directive.arguments?.find((a) => a.name.value === name)?.value;
}

export function argumentNode(directive: ConstDirectiveNode, name: string): ConstArgumentNode | undefined {
  return directive.arguments?.find((a) => a.name.value === name);
}

/** A String argument, or undefined when absent or not a String (already reported). */
export function stringArgument(directive: ConstDirectiveNode, name: string): string | undefined {
  const value = argumentValue(directive, name);
  return value?.kind === Kind.STRING ? value.value : undefined;
}

export function booleanArgument(directive: ConstDirectiveNode, name: string): boolean | undefined {
  const value = argumentValue(directive, name);
  return value?.kind === Kind.BOOLEAN ? value.value : undefined;
}

export function enumArgument(directive: ConstDirectiveNode, name: string): string | undefined {
  const value = argumentValue(directive, name);
  return value?.kind === Kind.ENUM ? value.value : undefined;
}

/**
 * A `[String]` argument as its String items with their nodes; a single String counts as a
 * list of one, as GraphQL input coercion has it. Undefined when absent.
 */
export function stringListArgument(directive: ConstDirectiveNode, name: string): { value: string; node: ConstValueNode }[] | undefined {
  const value = argumentValue(directive, name);
  if (!value) return undefined;
  const items = value.kind === Kind.LIST ? value.values : [value];
  return items.flatMap((node) => (node.kind === Kind.STRING ? [{ value: node.value, node }] : []));
}

/** The one use of a non-repeatable directive, if written. */
export function single(uses: DirectiveUses, name: DirectiveName): ConstDirectiveNode | undefined {
  return uses.get(name)?.[0];
}
