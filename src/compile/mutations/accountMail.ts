// The accounts' mutations by mail, their payloads (the rules are the accounts stage's, called
// through its ports): `requestEmailVerification` and `requestPasswordReset` mail a code once
// their transaction has committed; `verifyEmail` and `resetPassword` redeem one. A reset
// request answers the same whether or not anyone holds the address, and sends in the background
// so that it takes about as long either way.

import type { FieldNode } from 'graphql';
import { MAILED_TOKEN_REFUSED } from '../../accounts/index.js';
import { TesseraError, badInput, unauthenticated } from '../../errors/index.js';
import { decodeId } from '../ids.js';
import type { CompileState } from '../state.js';
import { checkText } from '../values.js';
import type { MutationContext } from './context.js';
import { writeError } from './errors.js';
import { assemble, commonPart, payloadFields, readPhase, rowPart, unknownPayloadField } from './payload.js';
import type { PayloadPart } from './payload.js';
import { accounts, asUser } from './user.js';
import { writeTransaction } from './writer.js';
import type { Writer } from './writer.js';

type Input = Record<string, unknown>;

const NO_MAIL = 'The app cannot send mail: set its smtpUrl and mailFrom settings (or the server’s TESSERA_SMTP_URL and TESSERA_MAIL_FROM)';

/** A payload of `clientMutationId` alone. */
function plainPayload(s: CompileState, input: Input, payloadType: string, nodes: readonly FieldNode[]): string {
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const common = commonPart(s, payloadType, selection, input.clientMutationId);
    if (!common) throw unknownPayloadField(payloadType, selection);
    parts.push(common);
  }
  return assemble(parts, new Map());
}

/** A payload `{ user clientMutationId }`, the user read as they see themselves. */
async function userPayload(s: CompileState, w: Writer, userId: string, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const view = asUser(s, userId);
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(view, payloadType, nodes)) {
    const { key, group, role } = selection;
    const common = commonPart(view, payloadType, selection, input.clientMutationId);
    if (common) parts.push(common);
    else if (role?.kind === 'loggedInUser') parts.push({ key, phase: 'after', json: rowPart(view, accounts(s).name, userId, group) });
    else throw unknownPayloadField(payloadType, selection);
  }
  const read = new Map<string, string>();
  await readPhase(view, w.tx, parts, 'after', read);
  return assemble(parts, read);
}

function requireMail(m: MutationContext): void {
  if (!m.ports.accounts.mailConfigured()) throw new TesseraError('UNAVAILABLE', NO_MAIL, { retryAfter: 3600 });
}

/** Mails the logged-in user (or, for an admin token, `userId`) a code for their current address. */
export async function runRequestEmailVerification(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  let userId: string;
  if (input.userId !== undefined && input.userId !== null) {
    if (!m.admin) throw new TesseraError('FORBIDDEN', 'Only an admin token sends the verification mail to another user', { field: 'userId' });
    userId = decodeId(String(input.userId), accounts(s).name, 'input.userId');
  } else {
    if (m.userId === undefined) throw unauthenticated('Log in to verify your address');
    userId = m.userId;
  }
  requireMail(m);
  // Each request counts (a success gives nothing back): at most 10 in a row from one address.
  await m.ports.accounts.loginAttempt(`verify-email:${userId}`);
  try {
    const mail = await writeTransaction(m.store, s, m.ports, (w) => w.accounts.verificationMail(w.tx, userId));
    await m.ports.accounts.sendMail(mail).catch(() => {
      // Why is the server's to log (the port did); the client learns to try again.
      throw new TesseraError('UNAVAILABLE', 'The verification mail could not be sent; try again later', { retryAfter: 60 });
    });
    return plainPayload(s, input, payloadType, nodes);
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/**
 * Redeems a mailed code with `redeem` (in the mutation's transaction): the user's payload, or
 * the one refusal every wrong code answers. Counted under the caller's address; a success gives
 * its point back.
 */
async function redeemed(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[], redeem: (w: Writer) => Promise<string | undefined>): Promise<string> {
  await m.ports.accounts.addressAttempt();
  try {
    const answer = await writeTransaction(m.store, s, m.ports, async (w) => {
      const userId = await redeem(w);
      if (userId === undefined) return undefined;
      w.events.record({ type: accounts(s).name, kind: 'update', id: userId });
      return userPayload(s, w, userId, input, payloadType, nodes);
    });
    if (answer === undefined) throw unauthenticated(MAILED_TOKEN_REFUSED);
    await m.ports.accounts.addressSucceeded();
    return answer;
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/** Redeems a verification code. */
export async function runVerifyEmail(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const token = checkText(String(input.token ?? ''), 'input.token', undefined);
  return redeemed(s, m, input, payloadType, nodes, (w) => w.accounts.verifyEmail(w.tx, token));
}

/** Mails a reset code to whoever holds `email`; the same answer whether anyone does. */
export async function runRequestPasswordReset(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const email = checkText(String(input.email ?? ''), 'input.email', undefined).trim();
  if (email.length === 0 || email.length > 254) throw badInput('input.email: give the address the account uses', { field: 'email' });
  requireMail(m);
  // Counted under the address asked for (known or not, alike) and never given back.
  await m.ports.accounts.loginAttempt(`reset-password:${email.toLowerCase()}`);
  try {
    const mail = await writeTransaction(m.store, s, m.ports, (w) => w.accounts.resetMail(w.tx, email));
    if (mail) m.ports.accounts.sendMailLater(mail);
    return plainPayload(s, input, payloadType, nodes);
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/** Sets a new password with a reset code. */
export async function runResetPassword(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const token = checkText(String(input.token ?? ''), 'input.token', undefined);
  const newPassword = checkText(String(input.newPassword ?? ''), 'input.newPassword', undefined);
  if (newPassword.length === 0) throw badInput('newPassword cannot be empty', { field: 'newPassword' });
  return redeemed(s, m, input, payloadType, nodes, (w) => w.accounts.resetPassword(w.tx, token, newPassword));
}
