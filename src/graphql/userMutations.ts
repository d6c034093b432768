// The built-in User's own mutations: `loginUser` (a token for a username and password) and
// `changeUserPassword` (the old password required).

import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import { accountType } from '../model/index.js';
import { modelObjectType } from './modelObjects.js';
import type { TypeRegistry } from './registry.js';
import { withRole } from './roles.js';
import { viewerType } from './viewer.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

const requiredString = { type: new GraphQLNonNull(GraphQLString) };

export function userMutations(reg: TypeRegistry): Fields {
  const account = accountType(reg.model).name;
  const user = modelObjectType(reg, account);
  const loginInput = new GraphQLInputObjectType({
    name: 'LoginUserInput',
    fields: { username: requiredString, password: requiredString, clientMutationId: { type: GraphQLString } },
  });
  const loginPayload = new GraphQLObjectType({
    name: 'LoginUserPayload',
    fields: () => ({
      token: withRole({ type: GraphQLString, description: 'Send as `Authorization: Bearer <token>`.' }, { kind: 'token' }),
      user: withRole({ type: user }, { kind: 'loggedInUser' }),
      viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
      clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
    }),
  });
  const changeInput = new GraphQLInputObjectType({
    name: 'ChangeUserPasswordInput',
    fields: { id: { type: new GraphQLNonNull(GraphQLID) }, oldPassword: requiredString, newPassword: requiredString, clientMutationId: { type: GraphQLString } },
  });
  const changePayload = new GraphQLObjectType({
    name: 'ChangeUserPasswordPayload',
    fields: () => ({
      changedUser: withRole({ type: user }, { kind: 'changedRow', type: account }),
      viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
      clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
    }),
  });
  return {
    loginUser: withRole(
      {
        type: loginPayload,
        args: { input: { type: new GraphQLNonNull(loginInput) } },
        description: 'Logs a user in: a token for the username and password, or UNAUTHENTICATED.',
      },
      { kind: 'login' },
    ),
    changeUserPassword: withRole(
      {
        type: changePayload,
        args: { input: { type: new GraphQLNonNull(changeInput) } },
        description: "Changes a user's password; the old one is required. Tokens issued before stop working.",
      },
      { kind: 'changePassword' },
    ),
  };
}
