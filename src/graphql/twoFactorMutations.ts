// Two-factor login's mutations: `enrollTotp` (a new secret for the logged-in user's
// authenticator app), `confirmTotp` (a code of it turns two-factor login on and answers the
// recovery codes) and `disableTotp` (turns it off: the user with a code, an admin for anyone).

import { GraphQLBoolean, GraphQLID, GraphQLInputObjectType, GraphQLList, GraphQLNonNull, GraphQLObjectType, GraphQLString } from 'graphql';
import type { GraphQLFieldConfigMap } from 'graphql';
import { withRole } from './roles.js';

type Fields = GraphQLFieldConfigMap<unknown, unknown>;

const clientMutationId = { type: GraphQLString };
const clientMutationIdOut = withRole({ type: GraphQLString }, { kind: 'clientMutationId' });

export function twoFactorMutations(): Fields {
  const enrollInput = new GraphQLInputObjectType({
    name: 'EnrollTotpInput',
    fields: { clientMutationId },
  });
  const enrollPayload = new GraphQLObjectType({
    name: 'EnrollTotpPayload',
    fields: () => ({
      secret: withRole({ type: new GraphQLNonNull(GraphQLString), description: 'The secret (base32), for typing into an authenticator app. Keep it secret.' }, { kind: 'totpSecret' }),
      otpauthUri: withRole({ type: new GraphQLNonNull(GraphQLString), description: 'The secret as an otpauth://totp/ URI, to show as a QR code.' }, { kind: 'otpauthUri' }),
      clientMutationId: clientMutationIdOut,
    }),
  });
  const confirmInput = new GraphQLInputObjectType({
    name: 'ConfirmTotpInput',
    fields: { code: { type: new GraphQLNonNull(GraphQLString), description: 'A current code of the enrolled secret.' }, clientMutationId },
  });
  const confirmPayload = new GraphQLObjectType({
    name: 'ConfirmTotpPayload',
    fields: () => ({
      recoveryCodes: withRole(
        { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(GraphQLString))), description: 'Ten single-use codes that stand in for a code when the authenticator is lost. Shown this once: only their hashes are kept.' },
        { kind: 'recoveryCodes' },
      ),
      clientMutationId: clientMutationIdOut,
    }),
  });
  const disableInput = new GraphQLInputObjectType({
    name: 'DisableTotpInput',
    fields: {
      code: { type: GraphQLString, description: 'The logged-in user turning off their own: a current code, or one of their recovery codes.' },
      userId: { type: GraphQLID, description: "With an admin token: the user whose two-factor login to turn off (no code needed)." },
      clientMutationId,
    },
  });
  const disablePayload = new GraphQLObjectType({
    name: 'DisableTotpPayload',
    fields: () => ({
      disabled: withRole({ type: new GraphQLNonNull(GraphQLBoolean), description: 'Whether two-factor login was on (false when it was not: turning it off twice is no error).' }, { kind: 'totpDisabled' }),
      clientMutationId: clientMutationIdOut,
    }),
  });
  return {
    enrollTotp: withRole(
      {
        type: enrollPayload,
        args: { input: { type: new GraphQLNonNull(enrollInput) } },
        description: "Starts two-factor login for the logged-in user: a new secret for their authenticator app, pending until confirmTotp (enrolling again replaces it). FORBIDDEN once two-factor login is on.",
      },
      { kind: 'enrollTotp' },
    ),
    confirmTotp: withRole(
      {
        type: confirmPayload,
        args: { input: { type: new GraphQLNonNull(confirmInput) } },
        description: 'Turns two-factor login on with a code of the enrolled secret: from then on loginUser needs totpCode. Answers the recovery codes, once.',
      },
      { kind: 'confirmTotp' },
    ),
    disableTotp: withRole(
      {
        type: disablePayload,
        args: { input: { type: new GraphQLNonNull(disableInput) } },
        description: "Turns two-factor login off: the logged-in user's own with a code (or a recovery code), or with an admin token any user's (userId).",
      },
      { kind: 'disableTotp' },
    ),
  };
}
