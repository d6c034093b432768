// The Subscription root: `subscribeToX(mutations, filter)` for every @model type, with
// `XMutationEvent` (which mutations to hear of), `XSubscriptionFilter` (which objects) and
// `XSubscriptionPayload { mutation value edge }`.

import { GraphQLEnumType, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { GraphQLEnumValueConfigMap, GraphQLFieldConfigMap, GraphQLInputFieldConfigMap } from 'graphql';
import { idColumn } from '../model/index.js';
import type { ModelType } from '../model/index.js';
import { edgeType } from './connections.js';
import { combinators, systemFilterFields } from './filters.js';
import { modelObjectType } from './modelObjects.js';
import { idOperatorInput, isTextFilter, patternOperatorInput, valueOperatorInput } from './operators.js';
import type { TypeRegistry } from './registry.js';
import { withRole } from './roles.js';

function mutationEventType(reg: TypeRegistry, typeName: string): GraphQLEnumType {
  const name = reg.names.typeName('MutationEvent', typeName);
  return reg.named(name, `mutationEvent:${typeName}`, () => {
    const values: GraphQLEnumValueConfigMap = {};
    for (const event of reg.names.mutationEvents(typeName)) values[event.name] = { value: event.name };
    return new GraphQLEnumType({ name, description: `A mutation of ${typeName} objects a subscription can hear of.`, values });
  });
}

/** `XSubscriptionFilter`: the where operators of X's own fields, `matches` on text, relation ids. */
function subscriptionFilterType(reg: TypeRegistry, typeName: string): GraphQLInputObjectType {
  const name = reg.names.typeName('SubscriptionFilter', typeName);
  return reg.named(name, `subscriptionFilter:${typeName}`, () => {
    const type = reg.modelType(typeName);
    const self: GraphQLInputObjectType = new GraphQLInputObjectType({
      name,
      description: `Which ${typeName} objects a subscription hears of; the conditions given must all hold.`,
      fields: () => ({ ...filterFields(reg, type), ...combinators(self) }),
    });
    return self;
  });
}

function filterFields(reg: TypeRegistry, type: ModelType): GraphQLInputFieldConfigMap {
  const X = type.name;
  const fields = systemFilterFields(reg, X);
  for (const field of type.fields) {
    if (field.kind === 'value') {
      if (field.writeOnly) continue;
      fields[field.name] = {
        type: isTextFilter(field)
          ? patternOperatorInput(reg, reg.names.fieldSubscriptionFilterArgs(X, field.name), `${X}.${field.name}`, field)
          : valueOperatorInput(reg, reg.names.fieldWhereArgs(X, field.name), `${X}.${field.name}`, field),
      };
    } else if (!field.list) {
      const id = idColumn(field.name);
      fields[id] = { type: idOperatorInput(reg, reg.names.fieldWhereArgs(X, id), `${X}.${id}`), description: `The id of the related ${field.target}.` };
    }
  }
  return fields;
}

function payloadType(reg: TypeRegistry, typeName: string): GraphQLObjectType {
  const name = reg.names.subscriptionPayload(typeName);
  return reg.named(name, `subscriptionPayload:${typeName}`, () =>
    new GraphQLObjectType({
      name,
      description: `One mutation of a ${typeName} object.`,
      fields: () => ({
        mutation: withRole({ type: new GraphQLNonNull(mutationEventType(reg, typeName)), description: 'The mutation that happened.' }, { kind: 'eventMutation' }),
        value: withRole({ type: modelObjectType(reg, typeName), description: 'The object after the mutation (before it, for a delete).' }, { kind: 'eventValue', type: typeName }),
        edge: withRole(
          { type: edgeType(reg, typeName), description: `The object as an edge of ${reg.names.list(typeName)} in its default order, with its cursor.` },
          { kind: 'eventEdge', type: typeName },
        ),
      }),
    }),
  );
}

export function subscriptionType(reg: TypeRegistry): GraphQLObjectType {
  return new GraphQLObjectType({
    name: 'Subscription',
    fields: () => {
      const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
      for (const type of reg.model.types) {
        fields[reg.names.subscribe(type.name)] = withRole(
          {
            type: payloadType(reg, type.name),
            args: {
              mutations: { type: new GraphQLNonNull(new GraphQLList(mutationEventType(reg, type.name))), description: 'The mutations to hear of.' },
              filter: { type: subscriptionFilterType(reg, type.name) },
            },
            description: `An event for each ${type.name} mutation that matches, the object as the subscriber may read it.`,
          },
          { kind: 'subscribe', type: type.name },
        );
      }
      return fields;
    },
  });
}
