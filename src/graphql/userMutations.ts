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
    fields: {
      username: requiredString,
      password: requiredString,
      totpCode: { type: GraphQLString, description: 'For a user with two-factor login: a current code of their authenticator app, or one of their recovery codes (each works once).' },
      clientMutationId: { type: GraphQLString },
    },
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
  const plainPayload = (name: string) =>
    new GraphQLObjectType({ name, fields: () => ({ clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }) }) });
  const userPayload = (name: string) =>
    new GraphQLObjectType({
      name,
      fields: () => ({
        user: withRole({ type: user, description: 'The user, as they see themselves.' }, { kind: 'loggedInUser' }),
        clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
      }),
    });
  const requestVerificationInput = new GraphQLInputObjectType({
    name: 'RequestEmailVerificationInput',
    fields: { userId: { type: GraphQLID, description: 'With an admin token: the user to send it to (else the logged-in user).' }, clientMutationId: { type: GraphQLString } },
  });
  const verifyInput = new GraphQLInputObjectType({ name: 'VerifyEmailInput', fields: { token: requiredString, clientMutationId: { type: GraphQLString } } });
  const requestResetInput = new GraphQLInputObjectType({ name: 'RequestPasswordResetInput', fields: { email: requiredString, clientMutationId: { type: GraphQLString } } });
  const resetInput = new GraphQLInputObjectType({ name: 'ResetPasswordInput', fields: { token: requiredString, newPassword: requiredString, clientMutationId: { type: GraphQLString } } });
  const input = (type: GraphQLInputObjectType) => ({ input: { type: new GraphQLNonNull(type) } });
  return {
    requestEmailVerification: withRole(
      { type: plainPayload('RequestEmailVerificationPayload'), args: input(requestVerificationInput), description: "Mails the logged-in user a code that verifies their address (User.email)." },
      { kind: 'requestEmailVerification' },
    ),
    verifyEmail: withRole(
      { type: userPayload('VerifyEmailPayload'), args: input(verifyInput), description: 'Marks the address a mailed code went to as verified (User.emailVerified).' },
      { kind: 'verifyEmail' },
    ),
    requestPasswordReset: withRole(
      { type: plainPayload('RequestPasswordResetPayload'), args: input(requestResetInput), description: 'Mails a password reset code to the user with this address, if there is one; the answer is the same either way.' },
      { kind: 'requestPasswordReset' },
    ),
    resetPassword: withRole(
      { type: userPayload('ResetPasswordPayload'), args: input(resetInput), description: "Sets a new password with a mailed reset code; every session of the user ends." },
      { kind: 'resetPassword' },
    ),
    loginUser: withRole(
      {
        type: loginPayload,
        args: { input: { type: new GraphQLNonNull(loginInput) } },
        description: 'Logs a user in: a token for the username and password (and totpCode, for a user with two-factor login), or UNAUTHENTICATED; MFA_REQUIRED when the password is right and the two-factor code missing or wrong.',
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
