// What an operator does to a user through the app's built-in account mutations, with the
// platform key (an admin credential): mail them a verification code, end every session, turn off
// their two-factor login. Each is offered only when the app's API has the mutation with the input
// it needs, read from its schema.

import { getNamedType, isInputObjectType } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { requestGraphQL } from '../api/graphql';

/** A built-in account mutation as the app's API declares it: its name and its input type. */
export interface AccountMutation {
  mutation: string;
  input: string;
}

export interface AccountMutations {
  /** `requestEmailVerification(input: { userId })`. */
  sendVerification?: AccountMutation;
  /** `logoutUser(input: { userId, allSessions: true }) { endedSessions }`. */
  endSessions?: AccountMutation;
  /** `disableTotp(input: { userId }) { disabled }`. */
  disableTwoFactor?: AccountMutation;
}

function mutationTaking(schema: GraphQLSchema, name: string, inputs: readonly string[]): AccountMutation | undefined {
  const field = schema.getMutationType()?.getFields()[name];
  const arg = field?.args.find((a) => a.name === 'input');
  const input = arg ? getNamedType(arg.type) : undefined;
  if (!input || !isInputObjectType(input) || !inputs.every((i) => i in input.getFields())) return undefined;
  return { mutation: name, input: input.name };
}

export function accountMutationsOf(schema: GraphQLSchema): AccountMutations {
  const sendVerification = mutationTaking(schema, 'requestEmailVerification', ['userId']);
  const endSessions = mutationTaking(schema, 'logoutUser', ['userId', 'allSessions']);
  const disableTwoFactor = mutationTaking(schema, 'disableTotp', ['userId']);
  return {
    ...(sendVerification ? { sendVerification } : {}),
    ...(endSessions ? { endSessions } : {}),
    ...(disableTwoFactor ? { disableTwoFactor } : {}),
  };
}

/** Mails the user a code that verifies their current address. */
export async function sendVerificationMail(endpoint: string, token: string | null, m: AccountMutation, userId: string): Promise<void> {
  const query = `mutation SendVerificationMail($i: ${m.input}!) { ${m.mutation}(input: $i) { clientMutationId } }`;
  await requestGraphQL(endpoint, query, { i: { userId } }, token);
}

/** Ends every session of the user, and the tokens issued to them before; answers how many sessions ended. */
export async function endAllSessions(endpoint: string, token: string | null, m: AccountMutation, userId: string): Promise<number> {
  const query = `mutation EndAllSessions($i: ${m.input}!) { result: ${m.mutation}(input: $i) { endedSessions } }`;
  const data = await requestGraphQL<{ result: { endedSessions: number } | null }>(endpoint, query, { i: { userId, allSessions: true } }, token);
  return data.result?.endedSessions ?? 0;
}

/** Turns off the user's two-factor login (a lost phone); answers whether it was on. */
export async function disableTwoFactor(endpoint: string, token: string | null, m: AccountMutation, userId: string): Promise<boolean> {
  const query = `mutation DisableTwoFactor($i: ${m.input}!) { result: ${m.mutation}(input: $i) { disabled } }`;
  const data = await requestGraphQL<{ result: { disabled: boolean } | null }>(endpoint, query, { i: { userId } }, token);
  return data.result?.disabled ?? false;
}
