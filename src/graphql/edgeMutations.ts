// The mutations of each many-to-many relation R — `addToRConnection`, `updateRConnection`,
// `removeFromRConnection` — whose inputs name the two ends by id and whose payloads return
// the join object (`changedFriendship`) and both ends.

import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap, GraphQLInputFieldConfigMap } from 'graphql';
import { idColumn } from '../model/index.js';
import type { Relation, ValueField } from '../model/index.js';
import { joinObjectType, modelObjectType } from './modelObjects.js';
import { CLIENT_MUTATION_ID, mustBeGiven } from './mutationInputs.js';
import type { TypeRegistry } from './registry.js';
import { valueInputType } from './valueTypes.js';
import { viewerType } from './viewer.js';

const VERBS = ['AddTo', 'Update', 'RemoveFrom'] as const;
type Verb = (typeof VERBS)[number];

function describe(verb: Verb, relation: string): string {
  switch (verb) {
    case 'AddTo':
      return `Links two objects with a new edge of relation ${relation}.`;
    case 'Update':
      return `Changes the join fields of an existing edge of relation ${relation}.`;
    case 'RemoveFrom':
      return `Removes an edge of relation ${relation} and returns it.`;
    default: {
      const unreachable: never = verb;
      throw new Error(`Unknown verb ${String(unreachable)}`);
    }
  }
}

function ends(relation: Relation): { names: [string, string]; targets: [string, string] } {
  if (relation.storage.kind !== 'joinTable') throw new Error(`Relation ${relation.name} has no join table`);
  return { names: relation.storage.endNames, targets: relation.storage.targets };
}

/** Whether a join field is non-null in the input of `verb`: only on add, when it must be given. */
function joinFieldRequired(verb: Verb, field: ValueField): boolean {
  return verb === 'AddTo' && mustBeGiven(field);
}

function inputType(reg: TypeRegistry, relation: Relation, verb: Verb): GraphQLInputObjectType {
  const R = relation.name;
  const name = `${verb}${R}ConnectionInput`;
  return reg.named(name, `${verb}Input:${R}`, () =>
    new GraphQLInputObjectType({
      name,
      fields: () => {
        const { names, targets } = ends(relation);
        const fields: GraphQLInputFieldConfigMap = {
          [idColumn(names[0])]: { type: new GraphQLNonNull(GraphQLID), description: `The id of the ${targets[0]} at end ${names[0]}.` },
          [idColumn(names[1])]: { type: new GraphQLNonNull(GraphQLID), description: `The id of the ${targets[1]} at end ${names[1]}.` },
        };
        if (verb !== 'RemoveFrom') {
          for (const field of relation.joinFields) fields[field.name] = { type: valueInputType(reg, field, joinFieldRequired(verb, field)) };
        }
        fields.clientMutationId = CLIENT_MUTATION_ID;
        return fields;
      },
    }),
  );
}

function payloadType(reg: TypeRegistry, relation: Relation, verb: Verb): GraphQLObjectType {
  const R = relation.name;
  const name = `${verb}${R}ConnectionPayload`;
  return reg.named(name, `${verb}Payload:${R}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => {
        const { names, targets } = ends(relation);
        const fields: GraphQLFieldConfigMap<unknown, unknown> = {
          [`changed${R}`]: { type: joinObjectType(reg, relation), description: 'The edge, with its join fields.' },
          [names[0]]: { type: modelObjectType(reg, targets[0]) },
          [names[1]]: { type: modelObjectType(reg, targets[1]) },
          viewer: { type: viewerType(reg) },
          clientMutationId: { type: GraphQLString },
        };
        return fields;
      },
    }),
  );
}

/** The three edge mutations of many-to-many relation R. */
export function edgeMutations(reg: TypeRegistry, relation: Relation): GraphQLFieldConfigMap<unknown, unknown> {
  const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const verb of VERBS) {
    const field = `${verb.charAt(0).toLowerCase()}${verb.slice(1)}${relation.name}Connection`;
    fields[field] = {
      type: payloadType(reg, relation, verb),
      args: { input: { type: new GraphQLNonNull(inputType(reg, relation, verb)) } },
      description: describe(verb, relation.name),
    };
  }
  return fields;
}
