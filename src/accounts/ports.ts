// What the mutations of an app need from the accounts stage, bound to one app and one caller's
// address: hashing and checking passwords (a decoy hash for unknown users, so both failures
// take as long), counting login attempts, issuing tokens, two-factor login. The compiler calls
// these and knows nothing of how they work.

import type { AppModel, AppSettings } from '../model/index.js';
import { accountType, encodeId } from '../model/index.js';
import type { Queryable, SigningKeyRow } from '../store/index.js';
import { decoyHash, hashPassword, needsRehash, passwordFingerprint, verifyPassword } from './password.js';
import { currentGeneration, endAllSessions, endSession, rotateSession, startSession } from './sessions.js';
import type { Ended, Rotation } from './sessions.js';
import type { LoginThrottle } from './throttle.js';
import type { Mail, Mailer } from './mail.js';
import { resetMail, resetPassword, verificationMail, verifyEmail } from './mailFlows.js';
import { signUserToken } from './tokens.js';
import { checkSecondFactor, confirmTotp, disableTotp, enrollTotp, forgetTotp } from './totp.js';
import type { Enrolment, SecondFactor } from './totp.js';

export interface AccountPorts {
  /** Hashes a password for storage (Argon2id). */
  hashPassword(password: string): Promise<string>;
  /** Whether `password` matches the stored hash; with no hash (unknown user) false, after as long. */
  verifyPassword(stored: string | null, password: string): Promise<boolean>;
  /** Whether a stored hash was made with weaker parameters than today's. */
  needsRehash(stored: string): boolean;
  /** An access token for the user with this row uuid and stored password hash. */
  issueToken(q: Queryable, userId: string, passwordHash: string): Promise<string>;
  /** Starts a session for the user: its refresh token. */
  startSession(q: Queryable, userId: string, passwordHash: string): Promise<string>;
  /** Rotates the session of a refresh token (a refusal that revoked a family must be committed). */
  rotateSession(q: Queryable, refreshToken: string): Promise<Rotation>;
  /** Ends the session of a refresh token. */
  endSession(q: Queryable, refreshToken: string): Promise<Ended>;
  /** Ends every session of a user and the access tokens issued before. */
  endAllSessions(q: Queryable, userId: string): Promise<number>;
  /** Counts a login attempt under `key` (a username) from the caller's address; RATE_LIMITED over the limit. */
  loginAttempt(key: string): Promise<void>;
  /** The attempt under `key` succeeded. */
  loginSucceeded(key: string): Promise<void>;
  /** Counts an attempt that names no account (a refresh) from the caller's address. */
  addressAttempt(): Promise<void>;
  /** That attempt succeeded. */
  addressSucceeded(): Promise<void>;
  /** Whether the app can send mail (its settings, or the server's). */
  mailConfigured(): boolean;
  /** Sends a mail the flows below prepared, once their transaction has committed (a failure is logged, then thrown). */
  sendMail(mail: Mail): Promise<void>;
  /** Sends a mail without waiting for it (its failure is logged, not answered). */
  sendMailLater(mail: Mail): void;
  /** A verification code for the user's current address, as the mail to send; BAD_USER_INPUT without an address. */
  verificationMail(q: Queryable, userId: string): Promise<Mail>;
  /** Redeems a verification code: the user verified, or undefined. */
  verifyEmail(q: Queryable, token: string): Promise<string | undefined>;
  /** A reset code for whoever holds `email`, as the mail to send; undefined when nobody does. */
  resetMail(q: Queryable, email: string): Promise<Mail | undefined>;
  /** Redeems a reset code with a new password: the user, or undefined. Ends every session of the user. */
  resetPassword(q: Queryable, token: string, newPassword: string): Promise<string | undefined>;
  /**
   * The second factor of a login, once its first factor (the password, …) has passed and inside
   * its transaction: 'none' for a user without two-factor login; otherwise `code` (a current
   * TOTP code not used before, or an unused recovery code) is used up and which it was is
   * answered, or MFA_REQUIRED is thrown (no code, or a wrong one). Every login path calls it
   * before it issues a token; a refusal must not be committed as a success.
   */
  checkSecondFactor(q: Queryable, userId: string, code: string | undefined): Promise<SecondFactor>;
  /** Starts (again) a user's TOTP enrolment: a new pending secret. FORBIDDEN once two-factor login is on. */
  enrollTotp(q: Queryable, userId: string, username: string): Promise<Enrolment>;
  /** Turns two-factor login on with a code of the pending secret: the recovery codes, to show once. */
  confirmTotp(q: Queryable, userId: string, code: string): Promise<string[]>;
  /** Turns two-factor login off: with the user's `code` (checked when it is on), or without for an admin. Whether it was on. */
  disableTotp(q: Queryable, userId: string, code: string | undefined): Promise<boolean>;
  /** A user is being deleted: what the accounts stage keeps beside the row (their second factor) goes too. */
  forgetUser(q: Queryable, userId: string): Promise<void>;
}

/** The parts of a loaded app the accounts stage works with. */
export interface AccountApp {
  id: string;
  /** The app's name (`{{appName}}` in its mail; the issuer authenticator apps show). */
  name: string;
  /** The app's signing keys, newest first (retired ones still verify). */
  keys: readonly SigningKeyRow[];
  model: AppModel;
  settings: AppSettings;
}

/** The ports of `app` for a caller at `address`; `mailLost` hears of mail sent later that failed. */
export function accountPorts(app: AccountApp, throttle: LoginThrottle, address: string, mailer: Mailer, mailLost: (err: unknown) => void = () => {}): AccountPorts {
  return {
    mailConfigured: () => mailer.configured(app.settings),
    sendMail: (mail) =>
      mailer.send(app.settings, mail).catch((err: unknown) => {
        mailLost(err);
        throw err;
      }),
    sendMailLater: (mail) => void mailer.send(app.settings, mail).catch(mailLost),
    verificationMail: (q, userId) => verificationMail(q, app, userId),
    verifyEmail: (q, token) => verifyEmail(q, app, token),
    resetMail: (q, email) => resetMail(q, app, email),
    resetPassword: async (q, token, newPassword) => resetPassword(q, app, token, await hashPassword(newPassword)),
    loginAttempt: (key) => throttle.attempt(app.id, key, address),
    loginSucceeded: (key) => throttle.succeeded(app.id, key, address),
    addressAttempt: () => throttle.addressAttempt(app.id, address),
    addressSucceeded: () => throttle.addressSucceeded(app.id, address),
    hashPassword,
    needsRehash,
    async verifyPassword(stored, password) {
      if (stored === null) {
        await verifyPassword(await decoyHash(), password);
        return false;
      }
      return verifyPassword(stored, password);
    },
    issueToken: async (q, userId, passwordHash) =>
      signUserToken(app.keys, {
        appId: app.id,
        userId: encodeId(accountType(app.model).name, userId),
        lifetimeSeconds: app.settings.tokenLifetimeSeconds,
        passwordFingerprint: passwordFingerprint(passwordHash),
        generation: await currentGeneration(q, app, userId),
      }),
    startSession: (q, userId, passwordHash) => startSession(q, app, userId, passwordHash),
    rotateSession: (q, refreshToken) => rotateSession(q, app, refreshToken),
    endSession: (q, refreshToken) => endSession(q, app, refreshToken),
    endAllSessions: (q, userId) => endAllSessions(q, app, userId),
    checkSecondFactor: (q, userId, code) => checkSecondFactor(q, app, userId, code),
    enrollTotp: (q, userId, username) => enrollTotp(q, app, userId, username),
    confirmTotp: (q, userId, code) => confirmTotp(q, app, userId, code),
    disableTotp: (q, userId, code) => disableTotp(q, app, userId, code),
    forgetUser: (q, userId) => forgetTotp(q, app, userId),
  };
}
