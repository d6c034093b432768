// The accounts' own mutations: `loginUser` (a token and a session for a username and
// password), `refreshUserToken` (a new token for a session), `logoutUser` (ending one session
// or all) and `changeUserPassword` (the old password required); and the OpenID Connect ones
// (oidcMutations.ts).

import { GraphQLBoolean, GraphQLID, GraphQLInputObjectType, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import { accountType } from '../model/index.js';
import { modelObjectType } from './modelObjects.js';
import { oidcMutations } from './oidcMutations.js';
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
      refreshToken: withRole({ type: GraphQLString, description: 'The session: give it to refreshUserToken for a new token before this one expires. Keep it secret.' }, { kind: 'refreshToken' }),
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
  const refreshInput = new GraphQLInputObjectType({
    name: 'RefreshUserTokenInput',
    fields: { refreshToken: requiredString, clientMutationId: { type: GraphQLString } },
  });
  const refreshPayload = new GraphQLObjectType({
    name: 'RefreshUserTokenPayload',
    fields: () => ({
      token: withRole({ type: GraphQLString, description: 'A new token; send as `Authorization: Bearer <token>`.' }, { kind: 'token' }),
      refreshToken: withRole({ type: GraphQLString, description: 'The next refresh token of the session; the one given is used up.' }, { kind: 'refreshToken' }),
      user: withRole({ type: user }, { kind: 'loggedInUser' }),
      viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
      clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
    }),
  });
  const logoutInput = new GraphQLInputObjectType({
    name: 'LogoutUserInput',
    fields: {
      refreshToken: { type: GraphQLString, description: 'The session to end.' },
      allSessions: { type: GraphQLBoolean, description: "End every session of the user, and every token issued before." },
      userId: { type: GraphQLID, description: "With an admin token: the user whose sessions to end (with allSessions)." },
      clientMutationId: { type: GraphQLString },
    },
  });
  const logoutPayload = new GraphQLObjectType({
    name: 'LogoutUserPayload',
    fields: () => ({
      endedSessions: withRole({ type: new GraphQLNonNull(GraphQLInt), description: 'How many sessions were ended (0 when the session had already ended).' }, { kind: 'endedSessions' }),
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
    refreshUserToken: withRole(
      {
        type: refreshPayload,
        args: { input: { type: new GraphQLNonNull(refreshInput) } },
        description: 'A new token and refresh token for a session; the refresh token given is used up. A used one given again ends the session.',
      },
      { kind: 'refresh' },
    ),
    logoutUser: withRole(
      {
        type: logoutPayload,
        args: { input: { type: new GraphQLNonNull(logoutInput) } },
        description: "Ends the session of a refresh token, or with allSessions every session of the logged-in user and the tokens issued before.",
      },
      { kind: 'logout' },
    ),
    ...oidcMutations(reg, user),
  };
}
