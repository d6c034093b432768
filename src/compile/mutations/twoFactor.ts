// Two-factor login's mutations and their payloads (the rules are the accounts stage's, called
// through its ports): `enrollTotp` gives the logged-in user a pending secret, `confirmTotp`
// turns it on with a code and answers the recovery codes, `disableTotp` turns it off — the
// user's own with a code, any user's with an admin token. A code given to confirm or disable is
// a guess like a password's: it counts against the login throttle under the user's username.

import type { FieldNode } from 'graphql';
import { TOKEN_REFUSED } from '../../accounts/index.js';
import { TesseraError, badInput, unauthenticated } from '../../errors/index.js';
import { accountType } from '../../model/index.js';
import { sql } from '../../sql/index.js';
import { decodeId } from '../ids.js';
import type { CompileState } from '../state.js';
import { checkText } from '../values.js';
import { writeError } from './errors.js';
import { assemble, commonPart, payloadFields, unknownPayloadField } from './payload.js';
import type { PayloadPart, PayloadSelection } from './payload.js';
import { writeTransaction } from './writer.js';
import type { Writer } from './writer.js';
import type { MutationContext } from './context.js';

type Input = Record<string, unknown>;

/** Longer than any code or recovery code with spaces: refused before anything is counted. */
const MAX_CODE_LENGTH = 100;

/** The logged-in user, whose own factor these mutations manage. */
function caller(m: MutationContext, what: string): string {
  if (m.userId !== undefined) return m.userId;
  if (m.admin) throw new TesseraError('FORBIDDEN', `An admin token is no user: only a logged-in user can ${what}`);
  throw unauthenticated(`Log in to ${what}`);
}

/** The user's username, their row locked (a login, a deletion and these wait for each other); a user gone is a token refused. */
async function lockedUsername(w: Writer, userId: string): Promise<string> {
  const table = w.app.table(accountType(w.app.app.model).table);
  const { rows } = await w.tx.query<{ username: string }>(sql`SELECT username FROM ${table} WHERE id = ${userId}::uuid FOR UPDATE`);
  const row = rows[0];
  if (row === undefined) throw unauthenticated(TOKEN_REFUSED);
  return row.username;
}

/** The username the throttle counts a code under, read before the attempt is counted. */
async function throttleKey(s: CompileState, m: MutationContext, userId: string): Promise<string> {
  const { rows } = await m.store.query<{ username: string }>(sql`SELECT username FROM ${s.app.table(accountType(s.app.app.model).table)} WHERE id = ${userId}::uuid`);
  return rows[0]?.username ?? `id:${userId}`;
}

function code(input: Input, field: string): string | undefined {
  const value = input[field];
  if (value === undefined || value === null) return undefined;
  return checkText(String(value), `input.${field}`, MAX_CODE_LENGTH);
}

/** The payload: its own fields from `own`, the common ones (`__typename`, `clientMutationId`) as everywhere. */
function payload(s: CompileState, input: Input, payloadType: string, nodes: readonly FieldNode[], own: (selection: PayloadSelection) => string | undefined): string {
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const common = commonPart(s, payloadType, selection, input.clientMutationId);
    if (common) {
      parts.push(common);
      continue;
    }
    const text = own(selection);
    if (text === undefined) throw unknownPayloadField(payloadType, selection);
    parts.push({ key: selection.key, text });
  }
  return assemble(parts, new Map());
}

export async function runEnrollTotp(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const userId = caller(m, 'turn on two-factor login');
  try {
    const enrolment = await writeTransaction(m.store, s, m.ports, async (w) => w.accounts.enrollTotp(w.tx, userId, await lockedUsername(w, userId)));
    return payload(s, input, payloadType, nodes, ({ role }) =>
      role?.kind === 'totpSecret' ? JSON.stringify(enrolment.secret)
      : role?.kind === 'otpauthUri' ? JSON.stringify(enrolment.otpauthUri)
      : undefined,
    );
  } catch (err) {
    throw writeError(s.app, err);
  }
}

export async function runConfirmTotp(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const given = code(input, 'code') ?? '';
  const userId = caller(m, 'turn on two-factor login');
  const key = await throttleKey(s, m, userId);
  await m.ports.accounts.loginAttempt(key);
  try {
    const recoveryCodes = await writeTransaction(m.store, s, m.ports, async (w) => {
      await lockedUsername(w, userId);
      return w.accounts.confirmTotp(w.tx, userId, given);
    });
    await m.ports.accounts.loginSucceeded(key);
    return payload(s, input, payloadType, nodes, ({ role }) => (role?.kind === 'recoveryCodes' ? JSON.stringify(recoveryCodes) : undefined));
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/**
 * Turns two-factor login off: with `userId`, an admin's for any user (no code); without, the
 * logged-in user's own with a current code or a recovery code. Turning it off twice is no error.
 */
export async function runDisableTotp(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const given = code(input, 'code');
  let target: string;
  let key: string | undefined;
  if (input.userId !== undefined && input.userId !== null) {
    if (!m.admin) throw new TesseraError('FORBIDDEN', "Only an admin token turns off another user's two-factor login", { field: 'userId' });
    target = decodeId(String(input.userId), accountType(s.app.app.model).name, 'input.userId');
  } else {
    if (m.admin && m.userId === undefined) throw badInput('Give the userId of the user whose two-factor login to turn off', { field: 'userId' });
    target = caller(m, 'turn off two-factor login');
    if (given === undefined || given.trim() === '') throw badInput('Give a current code of the authenticator app, or a recovery code', { field: 'code' });
    key = await throttleKey(s, m, target);
    await m.ports.accounts.loginAttempt(key);
  }
  try {
    const disabled = await writeTransaction(m.store, s, m.ports, async (w) => {
      // An admin may name a user who is gone: there is nothing to turn off.
      if (key === undefined) return w.accounts.disableTotp(w.tx, target, undefined);
      await lockedUsername(w, target);
      return w.accounts.disableTotp(w.tx, target, given);
    });
    if (key !== undefined) await m.ports.accounts.loginSucceeded(key);
    return payload(s, input, payloadType, nodes, ({ role }) => (role?.kind === 'totpDisabled' ? String(disabled) : undefined));
  } catch (err) {
    throw writeError(s.app, err);
  }
}
