// Two-factor login with TOTP (RFC 6238): a user enrols a secret, which stays pending until a
// code from it is given; then two-factor login is on, ten single-use recovery codes are handed
// out (only their hashes are kept), and every login needs a code. A code is accepted once: the
// time step of the last code used is kept, and no code of that step or an earlier one passes.

import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { TesseraError, badInput } from '../errors/index.js';
import { confirmTotpFactor, deleteTotpFactor, lockTotpFactor, putPendingTotp, useRecoveryCode, useTotpStep } from '../store/index.js';
import type { Queryable, TotpFactorRow } from '../store/index.js';
import type { AccountApp } from './ports.js';

/** What every authenticator app reads without being told: SHA-1, six digits, 30 seconds. */
const TOTP_PARAMS = { algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** Codes of the step before and after now pass too: clocks drift, and codes change as they are typed. */
const WINDOW = 1;
/** 160 bits, the HMAC-SHA-1 key length RFC 4226 recommends. */
const SECRET_BYTES = 20;

export const RECOVERY_CODE_COUNT = 10;
/** 32 letters and digits, without the look-alikes l, o, 0 and 1: five bits a character. */
const RECOVERY_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
/** Three groups of four characters (60 bits), e.g. `k7dq-2mxa-p9fh`. */
const RECOVERY_GROUPS = 3;
const RECOVERY_GROUP_LENGTH = 4;

export const TOTP_ALREADY_ON = 'Two-factor login is already on; turn it off with disableTotp first';
export const MFA_CODE_MISSING = 'This account has two-factor login: give totpCode (a code from the authenticator app, or a recovery code)';
export const MFA_CODE_REFUSED = 'The two-factor code is wrong, expired or used already';
const WRONG_CODE = 'The code is wrong, expired or used already';

/** Which second factor a login passed; `none` when the user has no two-factor login. */
export type SecondFactor = 'none' | 'totp' | 'recoveryCode';

export interface Enrolment {
  /** Base32, for typing into an authenticator app. */
  secret: string;
  /** `otpauth://totp/…`, for a QR code. */
  otpauthUri: string;
}

/** Spaces and dashes are for reading; codes compare without them, recovery codes ignoring case. */
function normalised(code: string): string {
  return code.replace(/[\s-]/g, '').toLowerCase();
}

function isTotpCode(code: string): boolean {
  return /^[0-9]{6}$/.test(code);
}

function isRecoveryCode(code: string): boolean {
  return code.length === RECOVERY_GROUPS * RECOVERY_GROUP_LENGTH && [...code].every((c) => RECOVERY_ALPHABET.includes(c));
}

/** The time step a code of `secret` is for, within WINDOW steps of now; undefined when it is none of them. */
export function totpCodeStep(secret: string, code: string, now: number = Date.now()): number | undefined {
  if (!isTotpCode(code)) return undefined;
  const delta = TOTP.validate({ token: code, secret: Secret.fromBase32(secret), ...TOTP_PARAMS, window: WINDOW, timestamp: now });
  return delta === null ? undefined : TOTP.counter({ period: TOTP_PARAMS.period, timestamp: now }) + delta;
}

/** What is stored of a recovery code: the SHA-256 of its normalised form (no dashes, lower case). */
function recoveryCodeHash(code: string): string {
  return createHash('sha256').update(normalised(code), 'utf8').digest('hex');
}

function newRecoveryCode(): string {
  const groups: string[] = [];
  for (let g = 0; g < RECOVERY_GROUPS; g++) {
    let group = '';
    for (let i = 0; i < RECOVERY_GROUP_LENGTH; i++) group += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    groups.push(group);
  }
  return groups.join('-');
}

/**
 * Uses `code` up if it is one of the factor's: a TOTP code of a step after the last one used,
 * or (once the factor is confirmed) an unused recovery code. Which it was; undefined for none.
 */
async function useCode(q: Queryable, app: AccountApp, userId: string, factor: TotpFactorRow, code: string): Promise<'totp' | 'recoveryCode' | undefined> {
  const c = normalised(code);
  if (isTotpCode(c)) {
    const step = totpCodeStep(factor.secret, c);
    if (step === undefined || (factor.lastStep !== null && step <= factor.lastStep)) return undefined;
    return (await useTotpStep(q, app.id, userId, step)) ? 'totp' : undefined;
  }
  if (factor.confirmed && isRecoveryCode(c)) return (await useRecoveryCode(q, app.id, userId, recoveryCodeHash(c))) ? 'recoveryCode' : undefined;
  return undefined;
}

/**
 * Starts a user's enrolment, or starts it again: a new pending secret replaces the one before.
 * FORBIDDEN once two-factor login is on — a stolen access token must not swap the factor.
 */
export async function enrollTotp(q: Queryable, app: AccountApp, userId: string, username: string): Promise<Enrolment> {
  const secret = new Secret({ size: SECRET_BYTES }).base32;
  if (!(await putPendingTotp(q, app.id, userId, secret))) throw new TesseraError('FORBIDDEN', TOTP_ALREADY_ON);
  // The label is `<issuer>:<username>`, the form authenticator apps list accounts by.
  const otpauthUri = new TOTP({ issuer: app.name, label: username, secret, ...TOTP_PARAMS }).toString();
  return { secret, otpauthUri };
}

/** Turns two-factor login on with a code of the pending secret: the recovery codes, to show once. */
export async function confirmTotp(q: Queryable, app: AccountApp, userId: string, code: string): Promise<string[]> {
  const factor = await lockTotpFactor(q, app.id, userId);
  if (!factor) throw badInput('There is no two-factor enrolment to confirm: call enrollTotp first', { field: 'code' });
  if (factor.confirmed) throw new TesseraError('FORBIDDEN', TOTP_ALREADY_ON);
  const step = totpCodeStep(factor.secret, normalised(code));
  if (step === undefined) throw badInput(WRONG_CODE, { field: 'code' });
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
  // The code that confirmed is used: it cannot log in afterwards.
  await confirmTotpFactor(q, app.id, userId, step, codes.map(recoveryCodeHash));
  return codes;
}

/**
 * Turns a user's two-factor login off, and drops a pending enrolment. With `code` (the user
 * turning off their own), a current code or an unused recovery code must be given when it is
 * on; without (an app admin), it goes as it is. Whether it was on.
 */
export async function disableTotp(q: Queryable, app: AccountApp, userId: string, code: string | undefined): Promise<boolean> {
  if (code !== undefined) {
    const factor = await lockTotpFactor(q, app.id, userId);
    if (factor?.confirmed && (await useCode(q, app, userId, factor, code)) === undefined) throw badInput(WRONG_CODE, { field: 'code' });
  }
  return deleteTotpFactor(q, app.id, userId);
}

/**
 * The second factor of a login whose first factor (a password, …) has passed, inside the
 * login's transaction: nothing for a user without two-factor login; otherwise `code` must be a
 * current TOTP code not used before or an unused recovery code, and is used up (committed with
 * the login). MFA_REQUIRED without one, or with a wrong one — nothing is written then.
 */
export async function checkSecondFactor(q: Queryable, app: AccountApp, userId: string, code: string | undefined): Promise<SecondFactor> {
  const factor = await lockTotpFactor(q, app.id, userId);
  if (!factor?.confirmed) return 'none';
  if (code === undefined || normalised(code) === '') throw new TesseraError('MFA_REQUIRED', MFA_CODE_MISSING);
  const used = await useCode(q, app, userId, factor, code);
  if (used === undefined) throw new TesseraError('MFA_REQUIRED', MFA_CODE_REFUSED);
  return used;
}

/** A user is being deleted: their factor (and its recovery codes) goes with them. */
export async function forgetTotp(q: Queryable, app: AccountApp, userId: string): Promise<void> {
  await deleteTotpFactor(q, app.id, userId);
}
