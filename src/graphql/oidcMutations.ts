// The accounts' OpenID Connect mutations: `loginUserWithOidc` (a token and a session for an
// authorization code of one of the app's providers; a first sign-in creates the account),
// `linkOidcIdentity` (another way in for the logged-in user) and `unlinkOidcIdentity`.

import { GraphQLBoolean, GraphQLInputObjectType, GraphQLInt, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap, GraphQLInputFieldConfigMap, GraphQLOutputType } from 'graphql';
import { withRole } from './roles.js';
import type { TypeRegistry } from './registry.js';
import { viewerType } from './viewer.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

const requiredString = (description: string) => ({ type: new GraphQLNonNull(GraphQLString), description });

/** What the client brings back from the provider's redirect (and had sent it). */
function grantFields(): GraphQLInputFieldConfigMap {
  return {
    provider: requiredString("The provider's name, as the app's admin added it."),
    code: requiredString('The authorization code from the redirect; it can be redeemed once.'),
    codeVerifier: requiredString('The PKCE code verifier whose S256 challenge the authorization request carried.'),
    redirectUri: requiredString('The redirect_uri of the authorization request, exactly.'),
    nonce: { type: GraphQLString, description: 'The nonce of the authorization request; the ID token must carry it (and carry none when it is not given).' },
  };
}

export function oidcMutations(reg: TypeRegistry, user: GraphQLOutputType): Fields {
  const loginInput = new GraphQLInputObjectType({
    name: 'LoginUserWithOidcInput',
    fields: {
      ...grantFields(),
      totpCode: { type: GraphQLString, description: "The user's current two-factor code (or a recovery code), when the account has two-factor on." },
      clientMutationId: { type: GraphQLString },
    },
  });
  const loginPayload = new GraphQLObjectType({
    name: 'LoginUserWithOidcPayload',
    fields: () => ({
      token: withRole({ type: GraphQLString, description: 'Send as `Authorization: Bearer <token>`.' }, { kind: 'token' }),
      refreshToken: withRole({ type: GraphQLString, description: 'The session: give it to refreshUserToken for a new token before this one expires. Keep it secret.' }, { kind: 'refreshToken' }),
      user: withRole({ type: user }, { kind: 'loggedInUser' }),
      newUser: withRole({ type: GraphQLBoolean, description: 'True when this sign-in created the account.' }, { kind: 'newUser' }),
      viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
      clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
    }),
  });
  const linkInput = new GraphQLInputObjectType({
    name: 'LinkOidcIdentityInput',
    fields: { ...grantFields(), clientMutationId: { type: GraphQLString } },
  });
  const linkPayload = new GraphQLObjectType({
    name: 'LinkOidcIdentityPayload',
    fields: () => ({
      user: withRole({ type: user }, { kind: 'loggedInUser' }),
      viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
      clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
    }),
  });
  const unlinkInput = new GraphQLInputObjectType({
    name: 'UnlinkOidcIdentityInput',
    fields: { provider: requiredString("The provider's name: the user's identities of its issuer are removed."), clientMutationId: { type: GraphQLString } },
  });
  const unlinkPayload = new GraphQLObjectType({
    name: 'UnlinkOidcIdentityPayload',
    fields: () => ({
      unlinkedIdentities: withRole({ type: new GraphQLNonNull(GraphQLInt), description: 'How many identities were removed (0 when none was linked).' }, { kind: 'unlinkedIdentities' }),
      user: withRole({ type: user }, { kind: 'loggedInUser' }),
      viewer: withRole({ type: viewerType(reg) }, { kind: 'payloadViewer' }),
      clientMutationId: withRole({ type: GraphQLString }, { kind: 'clientMutationId' }),
    }),
  });
  return {
    loginUserWithOidc: withRole(
      {
        type: loginPayload,
        args: { input: { type: new GraphQLNonNull(loginInput) } },
        description: "Logs a user in with an OpenID provider's authorization code (PKCE): a token and a session, or UNAUTHENTICATED. A first sign-in creates the account.",
      },
      { kind: 'oidcLogin' },
    ),
    linkOidcIdentity: withRole(
      {
        type: linkPayload,
        args: { input: { type: new GraphQLNonNull(linkInput) } },
        description: "Adds an OpenID provider's identity to the logged-in user, so that it logs them in too. CONFLICT when it belongs to another user.",
      },
      { kind: 'linkIdentity' },
    ),
    unlinkOidcIdentity: withRole(
      {
        type: unlinkPayload,
        args: { input: { type: new GraphQLNonNull(unlinkInput) } },
        description: "Removes the logged-in user's identities of a provider; refused when they are the account's only way to log in.",
      },
      { kind: 'unlinkIdentity' },
    ),
  };
}
