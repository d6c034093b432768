// `Viewer`: who is asking (`user`, null when anonymous, and whether they have two-factor login
// on) and the entry point to every type's objects (`allPosts`, `allCities`, …), as seen with
// the caller's permissions.

import { GraphQLBoolean, GraphQLID, GraphQLNonNull, GraphQLObjectType } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import { accountType } from '../model/index.js';
import { connectionArgs, connectionType } from './connections.js';
import { modelObjectType } from './modelObjects.js';
import type { TypeRegistry } from './registry.js';
import { withRole } from './roles.js';

export function viewerType(reg: TypeRegistry): GraphQLObjectType {
  return reg.named('Viewer', 'api:Viewer', () =>
    new GraphQLObjectType({
      name: 'Viewer',
      description: 'The caller\'s view of the app: their user and every object they may read.',
      fields: () => {
        const fields: GraphQLFieldConfigMap<unknown, unknown> = {
          id: withRole({ type: new GraphQLNonNull(GraphQLID) }, { kind: 'viewerId' }),
          user: withRole({ type: modelObjectType(reg, accountType(reg.model).name), description: 'The logged-in user; null when anonymous.' }, { kind: 'viewerUser' }),
          twoFactorEnabled: withRole(
            { type: GraphQLBoolean, description: 'Whether the logged-in user has two-factor login on (confirmTotp); null when no user is logged in.' },
            { kind: 'viewerTwoFactor' },
          ),
        };
        for (const type of reg.model.types) {
          fields[reg.names.list(type.name)] = withRole(
            { type: connectionType(reg, type.name), args: connectionArgs(reg, type.name), description: `The ${type.name} objects the caller may read.` },
            { kind: 'allRows', type: type.name },
          );
        }
        return fields;
      },
    }),
  );
}
