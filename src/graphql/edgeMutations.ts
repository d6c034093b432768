// The mutations of each many-to-many relation R — `addToRConnection`, `updateRConnection`,
// `removeFromRConnection` — whose inputs name the two ends by id and whose payloads return
// the join object (`changedFriendship`) and both ends.

import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap, GraphQLInputFieldConfigMap } from 'graphql';
import { idColumn } from '../model/index.js';
import type { EdgeVerb, Relation, ValueField } from '../model/index.js';
import { joinObjectType, modelObjectType } from './modelObjects.js';
import { CLIENT_MUTATION_ID, mustBeGiven } from './mutationInputs.js';
import type { TypeRegistry } from './registry.js';
import { withRole } from './roles.js';
import { valueInputType } from './valueTypes.js';
import { viewerType } from './viewer.js';

const VERBS = ['addTo', 'update', 'removeFrom'] as const;
type Verb = EdgeVerb;

const ROLE_OF: Record<Verb, 'addEdge' | 'updateEdge' | 'removeEdge'> = { addTo: 'addEdge', update: 'updateEdge', removeFrom: 'removeEdge' };

function describe(verb: Verb, relation: string): string {
  switch (verb) {
    case 'addTo':
      return `Links two objects with a new edge of relation ${relation}.`;
    case 'update':
      return `Changes the join fields of an existing edge of relation ${relation}.`;
    case 'removeFrom':
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
  return verb === 'addTo' && mustBeGiven(field);
}

function inputType(reg: TypeRegistry, relation: Relation, verb: Verb): GraphQLInputObjectType {
  const R = relation.name;
  const name = reg.names.edgeInput(verb, R);
  return reg.named(name, `edgeInput:${R}:${verb}`, () =>
    new GraphQLInputObjectType({
      name,
      fields: () => {
        const { names, targets } = ends(relation);
        const fields: GraphQLInputFieldConfigMap = {
          [idColumn(names[0])]: { type: new GraphQLNonNull(GraphQLID), description: `The id of the ${targets[0]} at end ${names[0]}.` },
          [idColumn(names[1])]: { type: new GraphQLNonNull(GraphQLID), description: `The id of the ${targets[1]} at end ${names[1]}.` },
        };
        if (verb !== 'removeFrom') {
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
  const name = reg.names.edgePayload(verb, R);
  return reg.named(name, `edgePayload:${R}:${verb}`, () =>
    new GraphQLObjectType({
      name,
      fields: () => {
        const { names, targets } = ends(relation);
        const fields: GraphQLFieldConfigMap<unknown, unknown> = {
          [reg.names.changed(R)]: withRole({ type: joinObjectType(reg, relation), description: 'The edge, with its join fields.' }, { kind: 'changedJoin', relation: R }),
          [names[0]]: withRole({ type: modelObjectType(reg, targets[0]) }, { kind: 'edgeEnd', relation: R, end: 0 }),
          [names[1]]: withRole({ type: modelObjectType(reg, targets[1]) }, { kind: 'edgeEnd', relation: R, end: 1 }),
          viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
          clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
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
    fields[reg.names.edgeMutation(verb, relation.name)] = withRole(
      {
        type: payloadType(reg, relation, verb),
        args: { input: { type: new GraphQLNonNull(inputType(reg, relation, verb)) } },
        description: describe(verb, relation.name),
      },
      { kind: ROLE_OF[verb], relation: relation.name },
    );
  }
  return fields;
}
