// The accounts' OpenID Connect mutations, their SQL and payloads (the rules are the accounts
// stage's, called through its ports). `loginUserWithOidc` redeems an authorization code at the
// app's provider and finds the account by the identity the verified ID token names — or, at
// the first sign-in, creates it under the app's sign-up rule — and answers a token and a
// session like `loginUser`; `linkOidcIdentity` adds an identity to the logged-in user;
// `unlinkOidcIdentity` removes one. The code is redeemed before the transaction opens: no
// transaction waits on the provider.

import type { FieldNode } from 'graphql';
import type { OidcIdentity } from '../../accounts/index.js';
import { TesseraError, badInput, isTesseraError, unauthenticated } from '../../errors/index.js';
import { accountType } from '../../model/index.js';
import type { ModelType } from '../../model/index.js';
import { sql } from '../../sql/index.js';
import { sqlState } from '../../store/index.js';
import type { CompileState } from '../state.js';
import { checkText } from '../values.js';
import { requireWrite } from './checks.js';
import type { MutationContext } from './context.js';
import { writeError } from './errors.js';
import { assemble, commonPart, payloadFields, readPhase, rowPart, unknownPayloadField } from './payload.js';
import type { PayloadPart } from './payload.js';
import { asUser } from './user.js';
import { writeTransaction } from './writer.js';
import type { Writer } from './writer.js';

type Input = Record<string, unknown>;

interface Grant {
  provider: string;
  code: string;
  codeVerifier: string;
  redirectUri: string;
  nonce?: string | undefined;
}

/** A PKCE code verifier (RFC 7636, section 4.1). */
const CODE_VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

function requiredText(value: unknown, field: string, max: number): string {
  const text = checkText(typeof value === 'string' ? value : '', `input.${field}`, max);
  if (text.length === 0) throw badInput(`${field} cannot be empty`, { field });
  return text;
}

/** The grant of the input, checked before anything is counted or sent to the provider. */
function grantOf(input: Input): Grant {
  const codeVerifier = requiredText(input.codeVerifier, 'codeVerifier', 128);
  if (!CODE_VERIFIER.test(codeVerifier)) throw badInput('codeVerifier must be 43 to 128 characters among A-Z a-z 0-9 - . _ ~ (RFC 7636)', { field: 'codeVerifier' });
  const redirectUri = requiredText(input.redirectUri, 'redirectUri', 2048);
  if (!URL.canParse(redirectUri)) throw badInput('redirectUri must be an absolute URI, exactly as the authorization request sent it', { field: 'redirectUri' });
  const nonce = input.nonce === undefined || input.nonce === null ? undefined : requiredText(input.nonce, 'nonce', 1024);
  return {
    provider: requiredText(input.provider, 'provider', 64),
    code: requiredText(input.code, 'code', 4096),
    codeVerifier,
    redirectUri,
    nonce,
  };
}

/** The app's account type (`User`). */
function accounts(s: CompileState): ModelType {
  return accountType(s.app.app.model);
}

/** Another transaction linked the same identity, or took the username, first: run again. */
class LostRace extends Error {}

/**
 * Creates the account of a first sign-in: a free username made from the identity's profile, a
 * password no password matches, checked against the app's rule for creating users (sign-up)
 * as `createUser` is.
 */
async function createAccount(w: Writer, type: ModelType, identity: OidcIdentity): Promise<string> {
  const username = await w.accounts.freeUsername(w.tx, identity.profile, identity.subject);
  const password = w.accounts.unusablePassword();
  let id: string;
  try {
    const { rows } = await w.tx.query<{ id: string }>(sql`INSERT INTO ${w.app.table(type.table)} (username, password) VALUES (${username}, ${password}) RETURNING id`);
    id = (rows[0] as { id: string }).id;
  } catch (err) {
    if (sqlState(err) === '23505') throw new LostRace();
    if (sqlState(err) === '23502') throw badInput(`A first sign-in cannot create the account: the app's ${type.name} has a required field without a default`);
    throw err;
  }
  w.events.record({ type: type.name, kind: 'create', id });
  try {
    await requireWrite(w.s, w.tx, type, id, 'create', { username, password });
  } catch (err) {
    if (isTesseraError(err) && err.code === 'FORBIDDEN') throw new TesseraError('FORBIDDEN', 'No account is linked to this identity, and the app does not let new users sign up', { type: type.name });
    throw err;
  }
  return id;
}

/**
 * The second factor — the one place an OpenID sign-in checks it, once the account is known and
 * before any token is issued: MFA_REQUIRED, and no token, for a user with two-factor login on
 * and no valid `totpCode` (the refusal rolls the sign-in back). Each try needs a new
 * authorization code from the provider, so guesses at codes go through the provider's login.
 */
async function requireSecondFactor(w: Writer, userId: string, totpCode: string | undefined): Promise<void> {
  await w.accounts.checkSecondFactor(w.tx, userId, totpCode);
}

const lostRace = (err: unknown) => err instanceof LostRace || sqlState(err) === '23505';

/** Runs `fn` (a transaction) once more if it lost a race for the identity or the username. */
async function withOneRetry<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!lostRace(err)) throw err;
  }
  try {
    return await fn();
  } catch (err) {
    if (lostRace(err)) throw new TesseraError('CONFLICT', 'Other sign-ins of this identity were under way at the same time; sign in again');
    throw err;
  }
}

export async function runOidcLogin(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const grant = grantOf(input);
  const totpCode = input.totpCode === undefined || input.totpCode === null ? undefined : checkText(String(input.totpCode), 'input.totpCode', 64);
  // Counted under the address before the code is redeemed; a success gives its point back.
  await m.ports.accounts.addressAttempt();
  try {
    const identity = await m.ports.accounts.oidcIdentity(m.store, grant.provider, grant);
    const answer = await withOneRetry(() =>
      writeTransaction(m.store, s, m.ports, async (w) => {
        const type = accounts(s);
        let userId = await w.accounts.identityUser(w.tx, identity);
        const newUser = userId === undefined;
        if (userId === undefined) {
          userId = await createAccount(w, type, identity);
          if ((await w.accounts.linkIdentity(w.tx, userId, identity)) === 'taken') throw new LostRace();
        }
        await requireSecondFactor(w, userId, totpCode);
        const { rows } = await w.tx.query<{ password: string }>(sql`UPDATE ${w.app.table(type.table)} SET "lastLogin" = now() WHERE id = ${userId}::uuid RETURNING password`);
        const stored = (rows[0] as { password: string }).password;
        w.events.record({ type: type.name, kind: 'login', id: userId });
        const token = await w.accounts.issueToken(w.tx, userId, stored);
        const view = asUser(s, userId);
        const parts: PayloadPart[] = [];
        for (const selection of payloadFields(view, payloadType, nodes)) {
          const { key, group, role } = selection;
          const common = commonPart(view, payloadType, selection, input.clientMutationId);
          if (common) parts.push(common);
          else if (role?.kind === 'token') parts.push({ key, text: JSON.stringify(token) });
          else if (role?.kind === 'refreshToken') parts.push({ key, text: JSON.stringify(await w.accounts.startSession(w.tx, userId, stored)) });
          else if (role?.kind === 'loggedInUser') parts.push({ key, phase: 'after', json: rowPart(view, type.name, userId, group) });
          else if (role?.kind === 'newUser') parts.push({ key, text: JSON.stringify(newUser) });
          else throw unknownPayloadField(payloadType, selection);
        }
        const read = new Map<string, string>();
        await readPhase(view, w.tx, parts, 'after', read);
        return assemble(parts, read);
      }),
    );
    await m.ports.accounts.addressSucceeded();
    return answer;
  } catch (err) {
    throw writeError(s.app, err);
  }
}

/** The logged-in user, or UNAUTHENTICATED: identities are linked to and unlinked from oneself. */
function loggedIn(m: MutationContext, what: string): string {
  if (m.userId === undefined) throw unauthenticated(`Log in as the user whose identity to ${what}`);
  return m.userId;
}

/** The payload of link and unlink: the user and the count, read as the user. */
async function identityPayload(s: CompileState, w: Writer, userId: string, input: Input, payloadType: string, nodes: readonly FieldNode[], unlinked: number): Promise<string> {
  const type = accounts(s);
  const parts: PayloadPart[] = [];
  for (const selection of payloadFields(s, payloadType, nodes)) {
    const { key, group, role } = selection;
    const common = commonPart(s, payloadType, selection, input.clientMutationId);
    if (common) parts.push(common);
    else if (role?.kind === 'loggedInUser') parts.push({ key, phase: 'after', json: rowPart(s, type.name, userId, group) });
    else if (role?.kind === 'unlinkedIdentities') parts.push({ key, text: String(unlinked) });
    else throw unknownPayloadField(payloadType, selection);
  }
  const read = new Map<string, string>();
  await readPhase(s, w.tx, parts, 'after', read);
  return assemble(parts, read);
}

export async function runLinkIdentity(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const userId = loggedIn(m, 'link');
  const grant = grantOf(input);
  await m.ports.accounts.addressAttempt();
  try {
    const identity = await m.ports.accounts.oidcIdentity(m.store, grant.provider, grant);
    const answer = await writeTransaction(m.store, s, m.ports, async (w) => {
      if ((await w.accounts.linkIdentity(w.tx, userId, identity)) === 'taken') {
        throw new TesseraError('CONFLICT', 'This identity is already linked to another user', { field: 'provider' });
      }
      return identityPayload(s, w, userId, input, payloadType, nodes, 0);
    });
    await m.ports.accounts.addressSucceeded();
    return answer;
  } catch (err) {
    throw writeError(s.app, err);
  }
}

export async function runUnlinkIdentity(s: CompileState, m: MutationContext, input: Input, payloadType: string, nodes: readonly FieldNode[]): Promise<string> {
  const userId = loggedIn(m, 'unlink');
  const provider = requiredText(input.provider, 'provider', 64);
  try {
    return await writeTransaction(m.store, s, m.ports, async (w) => {
      // Identities are not fields of the user: no row changes, no row event.
      const unlinked = await w.accounts.unlinkIdentities(w.tx, userId, provider);
      return identityPayload(s, w, userId, input, payloadType, nodes, unlinked);
    });
  } catch (err) {
    throw writeError(s.app, err);
  }
}
