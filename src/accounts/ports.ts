// What the mutations of an app need from the accounts stage, bound to one app and one caller's
// address: hashing and checking passwords (a decoy hash for unknown users, so both failures
// take as long), counting login attempts, issuing tokens, sessions, mailed codes, two-factor
// login and OpenID Connect identities. The compiler calls these and knows nothing of how they
// work.

import type { AppModel, AppSettings } from '../model/index.js';
import { accountType, encodeId } from '../model/index.js';
import type { AuthorizationGrant, IdentityProfile, OidcRelyingParty, VerifiedIdentity } from '../oidc/index.js';
import { rolesChangedNotice } from '../store/index.js';
import type { Queryable, SigningKeyRow } from '../store/index.js';
import { freeUsername, identityUser, linkIdentity, oidcIdentity, unlinkIdentities } from './identities.js';
import type { AccountLog, OidcIdentity } from './identities.js';
import { decoyHash, hasPassword, hashPassword, needsRehash, passwordFingerprint, unusablePassword, verifyPassword } from './password.js';
import { currentGeneration, endAllSessions, endSession, rotateSession, startSession } from './sessions.js';
import type { Ended, Rotation } from './sessions.js';
import type { LoginThrottle } from './throttle.js';
import { Mailer } from './mail.js';
import type { Mail } from './mail.js';
import { resetMail, resetPassword, verificationMail, verifyEmail } from './mailFlows.js';
import { userChanged } from './tokenCache.js';
import type { UserTokenCache } from './tokenCache.js';
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
  /** A user is being deleted: what the accounts stage keeps beside the row (their second factor) goes too, and their tokens stop working. */
  forgetUser(q: Queryable, userId: string): Promise<void>;
  /** A user's password changes in `q`: the tokens issued before stop working, on every instance once it commits. */
  passwordChanged(q: Queryable, userId: string): Promise<void>;
  /**
   * Redeems an authorization code at the app's OpenID provider `provider` and verifies the ID
   * token: the identity it vouches for. BAD_USER_INPUT for a provider the app lacks;
   * UNAUTHENTICATED when refused, UNAVAILABLE when the provider failed.
   */
  oidcIdentity(q: Queryable, provider: string, grant: AuthorizationGrant): Promise<OidcIdentity>;
  /** The user an identity is linked to (the link locked); undefined when none or that user is gone. */
  identityUser(q: Queryable, identity: VerifiedIdentity): Promise<string | undefined>;
  /** Links an identity to a user; `taken` when another existing user holds it. */
  linkIdentity(q: Queryable, userId: string, identity: VerifiedIdentity): Promise<'linked' | 'taken'>;
  /** Removes a user's identities of a provider's issuer; FORBIDDEN when they are the account's only way in. */
  unlinkIdentities(q: Queryable, userId: string, provider: string): Promise<number>;
  /** A username no user of the app has, made from a new identity's profile. */
  freeUsername(q: Queryable, profile: IdentityProfile, subject: string): Promise<string>;
  /** A stored password no password matches, for an account made by a sign-in. */
  unusablePassword(): string;
  /** In a transaction that changes the app's roles or their members: every instance hears of it once it commits. */
  rolesChanging?(q: Queryable): Promise<void>;
  /** That transaction committed: this instance reads again, from the next request on, which of the app's users are app admins. */
  rolesChanged?(): void;
}

/** What the ports need beyond the app: the mailer, the OpenID relying party, and where failures and refusals are logged. */
export interface AccountServices {
  mailer?: Mailer | undefined;
  /** Hears of mail sent later that failed. */
  mailLost?: ((err: unknown) => void) | undefined;
  oidc?: OidcRelyingParty | undefined;
  log?: AccountLog | undefined;
  /** This instance's cache of user tokens, which changes to users clear at once. */
  tokens?: UserTokenCache | undefined;
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

/** The ports of `app` for a caller at `address`. */
export function accountPorts(app: AccountApp, throttle: LoginThrottle, address: string, services: AccountServices = {}): AccountPorts {
  // Without a mailer the app has no mail settings to use: its mail mutations say so.
  const mailer = services.mailer ?? new Mailer();
  const mailLost = services.mailLost ?? (() => {});
  const changed = (q: Queryable, userId: string) => userChanged(q, services.tokens, app.id, userId);
  return {
    rolesChanging: async (q) => {
      await q.query(rolesChangedNotice(app.id));
    },
    rolesChanged: () => services.tokens?.rolesChanged(app.id),
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
    async resetPassword(q, token, newPassword) {
      const userId = await resetPassword(q, app, token, await hashPassword(newPassword));
      if (userId !== undefined) await changed(q, userId);
      return userId;
    },
    loginAttempt: (key) => throttle.attempt(app.id, key, address),
    loginSucceeded: (key) => throttle.succeeded(app.id, key, address),
    addressAttempt: () => throttle.addressAttempt(app.id, address),
    addressSucceeded: () => throttle.addressSucceeded(app.id, address),
    hashPassword,
    needsRehash,
    async verifyPassword(stored, password) {
      // An account without a password fails like an unknown one, and takes as long.
      if (stored === null || !hasPassword(stored)) {
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
    async endAllSessions(q, userId) {
      const ended = await endAllSessions(q, app, userId);
      await changed(q, userId);
      return ended;
    },
    checkSecondFactor: (q, userId, code) => checkSecondFactor(q, app, userId, code),
    enrollTotp: (q, userId, username) => enrollTotp(q, app, userId, username),
    confirmTotp: (q, userId, code) => confirmTotp(q, app, userId, code),
    disableTotp: (q, userId, code) => disableTotp(q, app, userId, code),
    async forgetUser(q, userId) {
      await forgetTotp(q, app, userId);
      await changed(q, userId);
    },
    passwordChanged: (q, userId) => changed(q, userId),
    oidcIdentity: (q, provider, grant) => oidcIdentity(q, app, services.oidc, services.log, provider, grant),
    identityUser: (q, identity) => identityUser(q, app, identity),
    linkIdentity: (q, userId, identity) => linkIdentity(q, app, userId, identity),
    unlinkIdentities: (q, userId, provider) => unlinkIdentities(q, app, userId, provider),
    freeUsername: (q, profile, subject) => freeUsername(q, app, profile, subject),
    unusablePassword,
  };
}
