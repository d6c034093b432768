// The operator inputs of `where` filters (`PostTitleWhereArgs { eq ne … isNull }`): which
// operators a field offers follows from its type, as docs/api.md lists.

import { GraphQLBoolean, GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLString } from 'graphql';
import type { GraphQLInputFieldConfigMap, GraphQLInputType, GraphQLNamedInputType } from 'graphql';
import type { ScalarName, ValueField } from '../model/index.js';
import type { TypeRegistry } from './registry.js';
import { DateTimeScalar } from './scalars.js';
import { baseInputType } from './valueTypes.js';

const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'between', 'notBetween', 'in', 'notIn', 'like', 'notLike', 'isNull'] as const;
/** Regular-expression operators: subscription filters only (docs/api.md, "Subscriptions"). */
const PATTERN_OPERATORS = ['matches', 'notMatches'] as const;
type Operator = (typeof OPERATORS)[number] | (typeof PATTERN_OPERATORS)[number];

/** The operators of each kind of field. */
const TEXT: readonly Operator[] = OPERATORS;
const ORDERED: readonly Operator[] = OPERATORS.filter((op) => op !== 'like' && op !== 'notLike');
const EQUALITY: readonly Operator[] = ['eq', 'ne', 'isNull'];
const MEMBERSHIP: readonly Operator[] = ['eq', 'ne', 'in', 'notIn', 'isNull'];
const PRESENCE: readonly Operator[] = ['isNull'];

/** The operators a value field offers: inline lists, JSON and embedded values only `isNull`. */
function operatorsOf(field: ValueField): readonly Operator[] {
  if (field.list) return PRESENCE;
  const type = field.type;
  switch (type.kind) {
    case 'embedded':
      return PRESENCE;
    case 'enum':
      return MEMBERSHIP;
    case 'scalar':
      return scalarOperators(type.name);
    default: {
      const unreachable: never = type;
      throw new Error(`Unknown field type ${JSON.stringify(unreachable)}`);
    }
  }
}

function scalarOperators(name: ScalarName): readonly Operator[] {
  switch (name) {
    case 'ID':
    case 'String':
    case 'Text':
      return TEXT;
    case 'Int':
    case 'Float':
    case 'DateTime':
      return ORDERED;
    case 'Boolean':
      return EQUALITY;
    case 'JSON':
      return PRESENCE;
    default: {
      const unreachable: never = name;
      throw new Error(`Unknown scalar ${String(unreachable)}`);
    }
  }
}

// Operator semantics are documented once, in docs/api.md, rather than on each of the many inputs.
function operatorInput(name: string, operand: GraphQLNamedInputType, operators: readonly Operator[]): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name,
    fields: () => {
      const fields: GraphQLInputFieldConfigMap = {};
      for (const op of operators) fields[op] = { type: operandType(op, operand) };
      return fields;
    },
  });
}

function operandType(op: Operator, operand: GraphQLNamedInputType): GraphQLInputType {
  switch (op) {
    case 'between':
    case 'notBetween':
    case 'in':
    case 'notIn':
      // Items nullable, as clients of the original service declare them (`$ids: [ID]`).
      return new GraphQLList(operand);
    case 'like':
    case 'notLike':
    case 'matches':
    case 'notMatches':
      return GraphQLString;
    case 'isNull':
      return GraphQLBoolean;
    default:
      return operand;
  }
}

/** `X<F>WhereArgs` (or `R<J>WhereArgs` for a join field): the operators of a value field. */
export function valueOperatorInput(reg: TypeRegistry, name: string, label: string, field: ValueField): GraphQLInputObjectType {
  return reg.named(name, `operators:${label}`, () =>
    operatorInput(name, baseInputType(reg, field.type), operatorsOf(field)),
  );
}

/** `XIdWhereArgs` and `X<R>IdWhereArgs`: ids compare only for (in)equality. */
export function idOperatorInput(reg: TypeRegistry, name: string, label: string): GraphQLInputObjectType {
  return reg.named(name, `operators:${label}`, () => operatorInput(name, GraphQLID, MEMBERSHIP));
}

/** `XCreatedAtWhereArgs`, `XModifiedAtWhereArgs`: the system timestamps filter as DateTime fields. */
export function dateTimeOperatorInput(reg: TypeRegistry, name: string, label: string): GraphQLInputObjectType {
  return reg.named(name, `operators:${label}`, () => operatorInput(name, DateTimeScalar, ORDERED));
}

/** Whether a value field's filter offers `like`: text it is, so it also offers `matches`. */
export function isTextFilter(field: ValueField): boolean {
  return operatorsOf(field).includes('like');
}

/** `X<F>SubscriptionFilterArgs`: a text field's where operators plus `matches` / `notMatches`. */
export function patternOperatorInput(reg: TypeRegistry, name: string, label: string, field: ValueField): GraphQLInputObjectType {
  return reg.named(name, `subscriptionOperators:${label}`, () =>
    operatorInput(name, baseInputType(reg, field.type), [...operatorsOf(field), ...PATTERN_OPERATORS]),
  );
}
