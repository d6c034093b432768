// The accounts' own mutations, their SQL and payloads (the rules are the accounts stage's,
// called through its ports): `loginUser` checks a username and password (and the second
// factor of a user with two-factor login) and issues a token and a session;
// `changeUserPassword` needs the old password — both fail alike whether the user exists or
// not, and take about as long (a hash is verified either way); `refreshUserToken` rotates a
// session; `logoutUser` ends one session or all of a user's.

import type { FieldNode } from 'graphql';
import { REFRESH_REFUSED } from '../../accounts/index.js';
import { TesseraError, badInput, unauthenticated } from '../../errors/index.js';
import { accountType } from '../../model/index.js';
import type { ModelType } from '../../model/index.js';
import { sql } from '../../sql/index.js';
import { decodeId } from '../ids.js';
import { Binder } from '../params.js';
import { CompileState } from '../state.js';
import { checkText } from '../values.js';
import { writeError } from './errors.js';
import { assemble, commonPart, payloadFields, readPhase, rowPart, unknownPayloadField } from './payload.js';
import type { PayloadPart } from './payload.js';
import { writeTransaction } from './writer.js';
import type { Writer } from './writer.js';
import type { MutationContext } from './context.js';

type Input = Record<string, unknown>;

const WRONG = 'Wrong username or password';
/** Longer than any two-factor code: refused before anything is counted. */
const MAX_CODE_LENGTH = 100;

interface StoredUser {
  id: string;
  password: string;
}

/** The app's account type (`User`). */
export function accounts(s: CompileState): ModelType {
  return accountType(s.app.app.model);
}

async function userByName(w: Writer, username: string): Promise<StoredUser | undefined> {
  const table = w.app.table(accounts(w.s).table);
  const { rows } = await w.tx.query<StoredUser>(sql`SELECT id, password FROM ${table} WHERE lower(username) = lower(${username.normalize('NFC')}) FOR UPDATE`);
  return rows[0];
}

/**
 * The payload is read as the user who just logged in would read it (their token's view), not
 * with the caller's rights: an admin token logging a user in sees what that user sees.
 */
export function asUser(s: CompileState, userId: string): CompileState {
  return new CompileState(s.app, new Binder({ ...s.binder.request, userId }), s.fragments, 'rules');
}

export async function runLogin(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  // Refused before they are counted or looked up: PostgreSQL cannot hold a NUL in text.
  const username = checkText(String(input.username ?? ''), 'input.username', undefined);
  const password = checkText(String(input.password ?? ''), 'input.password', undefined);
  const totpCode = input.totpCode === undefined || input.totpCode === null ? undefined : checkText(String(input.totpCode), 'input.totpCode', MAX_CODE_LENGTH);
  // Counted before the password is checked, so parallel attempts cannot slip past the limit.
  await m.ports.accounts.loginAttempt(username);
  try {
    const answer = await writeTransaction(m.store, s, m.ports, async (w) => {
      const tx = w.tx;
      const user = await userByName(w, username);
      const ok = await m.ports.accounts.verifyPassword(user?.password ?? null, password);
      if (!user || !ok) throw unauthenticated(WRONG);
      // Only now, the password right: MFA_REQUIRED never answers a wrong one. A missing or wrong
      // code is a failed attempt like a wrong password (the throttle keeps its point).
      await w.accounts.checkSecondFactor(tx, user.id, totpCode);
      let stored = user.password;
      if (m.ports.accounts.needsRehash(stored)) stored = await m.ports.accounts.hashPassword(password);
      const type = accounts(s);
      await tx.query(sql`UPDATE ${w.app.table(type.table)} SET "lastLogin" = now(), password = ${stored} WHERE id = ${user.id}::uuid`);
      // A hash made again under today's parameters is a new fingerprint: the tokens issued before end.
      if (stored !== user.password) await w.accounts.passwordChanged(tx, user.id);
      w.events.record({ type: type.name, kind: 'login', id: user.id });
      const token = await w.accounts.issueToken(tx, user.id, stored);
      const view = asUser(s, user.id);
      const parts: PayloadPart[] = [];
      for (const selection of payloadFields(view, payloadType, nodes)) {
        const { key, group, role } = selection;
        const common = commonPart(view, payloadType, selection, input.clientMutationId);
        if (common) parts.push(common);
        else if (role?.kind === 'token') parts.push({ key, text: JSON.stringify(token) });
        else if (role?.kind === 'refreshToken') parts.push({ key, text: JSON.stringify(await w.accounts.startSession(tx, user.id, stored)) });
        else if (role?.kind === 'loggedInUser') parts.push({ key, phase: 'after', json: rowPart(view, type.name, user.id, group) });
        else throw unknownPayloadField(payloadType, selection);
      }
      const read = new Map<string, string>();
      await readPhase(view, tx, parts, 'after', read);
      return assemble(parts, read);
    });
    await m.ports.accounts.loginSucceeded(username);
    return answer;
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/** `callerId` is the logged-in user (undefined for an admin token, which may change anyone's). */
export async function runChangePassword(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[], callerId: string | undefined, admin: boolean): Promise<string> {
  const type = accounts(s);
  const id = decodeId(String(input.id), type.name, 'input.id');
  const newPassword = String(input.newPassword ?? '');
  if (newPassword.length === 0) throw badInput('newPassword cannot be empty', { field: 'newPassword' });
  const oldPassword = checkText(String(input.oldPassword ?? ''), 'input.oldPassword', undefined);
  // Someone else's id answers like a wrong password: it must not tell whether the user exists.
  const mine = admin || callerId === id;
  // The old password is a password guess like a login's (a stolen token must not let its
  // holder try passwords without end): counted under the account's username, before it is
  // checked. Another's id counts under that id, looked up nowhere.
  const username = mine ? await usernameOf(s, m, id) : undefined;
  const key = username ?? `id:${id}`;
  await m.ports.accounts.loginAttempt(key);
  try {
    const answer = await writeTransaction(m.store, s, m.ports, async (w) => {
      const tx = w.tx;
      const { rows } = await tx.query<StoredUser>(sql`SELECT id, password FROM ${w.app.table(type.table)} WHERE id = ${id}::uuid FOR UPDATE`);
      const user = rows[0];
      const ok = await m.ports.accounts.verifyPassword(mine ? (user?.password ?? null) : null, oldPassword);
      if (!user || !ok) throw unauthenticated('Wrong password');
      const stored = await m.ports.accounts.hashPassword(newPassword);
      await tx.query(sql`UPDATE ${w.app.table(type.table)} SET password = ${stored}, "modifiedAt" = now() WHERE id = ${id}::uuid`);
      await w.accounts.passwordChanged(tx, id);
      w.events.record({ type: type.name, kind: 'update', id });
      const view = admin ? s : asUser(s, id);
      const parts: PayloadPart[] = [];
      for (const selection of payloadFields(view, payloadType, nodes)) {
        const { key, group, role } = selection;
        const common = commonPart(view, payloadType, selection, input.clientMutationId);
        if (common) parts.push(common);
        else if (role?.kind === 'changedRow') parts.push({ key, phase: 'after', json: rowPart(view, type.name, id, group) });
        else throw unknownPayloadField(payloadType, selection);
      }
      const read = new Map<string, string>();
      await readPhase(view, tx, parts, 'after', read);
      return assemble(parts, read);
    });
    await m.ports.accounts.loginSucceeded(key);
    return answer;
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/** The username of the user `id`, read before the transaction (the throttle's key). */
async function usernameOf(s: CompileState, m: MutationContext, id: string): Promise<string | undefined> {
  const { rows } = await m.store.query<{ username: string }>(sql`SELECT username FROM ${s.app.table(accounts(s).table)} WHERE id = ${id}::uuid`);
  return rows[0]?.username;
}

/**
 * A new token and refresh token for a session. Every refusal answers alike (a token never
 * issued, used, revoked, expired, of a changed password or a deleted user); one that revoked a
 * family (a used token presented again) is committed before it is answered.
 */
export async function runRefresh(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const refreshToken = checkText(String(input.refreshToken ?? ''), 'input.refreshToken', undefined);
  // Counted under the address before the token is looked up; a success gives its point back.
  await m.ports.accounts.addressAttempt();
  try {
    const answer = await writeTransaction(m.store, s, m.ports, async (w) => {
      const rotation = await w.accounts.rotateSession(w.tx, refreshToken);
      if (rotation.kind === 'refused') return undefined;
      const type = accounts(s);
      const token = await w.accounts.issueToken(w.tx, rotation.userId, rotation.passwordHash);
      const view = asUser(s, rotation.userId);
      const parts: PayloadPart[] = [];
      for (const selection of payloadFields(view, payloadType, nodes)) {
        const { key, group, role } = selection;
        const common = commonPart(view, payloadType, selection, input.clientMutationId);
        if (common) parts.push(common);
        else if (role?.kind === 'token') parts.push({ key, text: JSON.stringify(token) });
        else if (role?.kind === 'refreshToken') parts.push({ key, text: JSON.stringify(rotation.refreshToken) });
        else if (role?.kind === 'loggedInUser') parts.push({ key, phase: 'after', json: rowPart(view, type.name, rotation.userId, group) });
        else throw unknownPayloadField(payloadType, selection);
      }
      const read = new Map<string, string>();
      await readPhase(view, w.tx, parts, 'after', read);
      return assemble(parts, read);
    });
    if (answer === undefined) throw unauthenticated(REFRESH_REFUSED);
    await m.ports.accounts.addressSucceeded();
    return answer;
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/**
 * Ends sessions: the one of `refreshToken`; with `allSessions`, every session of its user (or
 * of the logged-in user when no token is given, or of `userId` for an admin token) and every
 * access token issued before. Ending a session that had already ended is no error.
 */
export async function runLogout(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const type = accounts(s);
  const refreshToken = input.refreshToken === undefined || input.refreshToken === null ? undefined : checkText(String(input.refreshToken), 'input.refreshToken', undefined);
  const all = input.allSessions === true;
  let target: string | undefined;
  if (input.userId !== undefined && input.userId !== null) {
    if (!m.admin) throw new TesseraError('FORBIDDEN', "Only an admin token ends another user's sessions", { field: 'userId' });
    if (!all) throw badInput('userId goes with allSessions: true', { field: 'userId' });
    target = decodeId(String(input.userId), type.name, 'input.userId');
  } else if (refreshToken === undefined) {
    if (!all) throw badInput("Give the session's refreshToken, or allSessions: true", { field: 'refreshToken' });
    if (m.userId === undefined) throw unauthenticated('Log in to end your sessions, or give the refreshToken of one');
    target = m.userId;
  }
  await m.ports.accounts.addressAttempt();
  try {
    const ended = await writeTransaction(m.store, s, m.ports, async (w) => {
      let count = 0;
      if (refreshToken !== undefined) {
        const session = await w.accounts.endSession(w.tx, refreshToken);
        count += session.ended;
        // Every session of the token's user, when the token still held its session (a used,
        // revoked or expired one ends its own family, nothing more).
        if (all && target === undefined) target = session.liveUserId;
      }
      if (all && target !== undefined) count += await w.accounts.endAllSessions(w.tx, target);
      return count;
    });
    await m.ports.accounts.addressSucceeded();
    const parts: PayloadPart[] = [];
    for (const selection of payloadFields(s, payloadType, nodes)) {
      const common = commonPart(s, payloadType, selection, input.clientMutationId);
      if (common) parts.push(common);
      else if (selection.role?.kind === 'endedSessions') parts.push({ key: selection.key, text: String(ended) });
      else throw unknownPayloadField(payloadType, selection);
    }
    return assemble(parts, new Map());
  } catch (err) {
    throw writeError(s.app, err);
  }
}
