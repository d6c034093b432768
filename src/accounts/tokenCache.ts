// What this instance remembers of user tokens, so that a token presented again costs neither a
// signature check nor a statement: the claims of tokens it verified (until they expire, and only
// while the key that signed them is still among the app's keys), and each user's password
// fingerprint and token generation (for a short while). Whatever makes a user's tokens stop
// working — a new password, every session ended, the user deleted — calls `userChanged` in its
// transaction: this instance forgets the user at once and caches nothing of them for a while
// (the change may not have committed yet), and the notification it sends at commit makes every
// other instance forget the user too. A notification lost with the listening connection is
// covered by the short lifetime of what is cached of users.
//
// It also remembers, for as long, whether each user is a member of the app's built-in `admin`
// role. Only "not an app admin" is acted on (a user's queries then compile without the admin
// arm of the rules); anyone else's statements check it themselves. A transaction that changes
// the app's roles or their members calls `rolesChanged` once committed, and its notification
// ("<appId> *") makes every instance forget what it knew of the app's users.

import { LruMap } from '../lru/index.js';
import { ALL_USERS, USERS_CHANNEL, rolesChangedNotice, userChangedNotice } from '../store/index.js';
import type { Queryable, SigningKeyRow, Store } from '../store/index.js';

/** How long a user's password fingerprint and generation are trusted without asking the database. */
export const USER_STATE_TTL_MS = 30_000;
/** Entries per map at most (tokens, users): the least recently used go first. */
export const TOKEN_CACHE_ENTRIES = 10_000;

/**
 * The longest token remembered. Tokens are kept by the token itself, not by a hash of it:
 * hashing every token presented cost a user's request more than looking it up (a hash object
 * made and freed per request). Only a token this instance verified is remembered, and the tokens
 * an app issues are well under this (about 400 characters), so at most TOKEN_CACHE_ENTRIES of
 * them are held, a few MiB; a longer one, which no app issues, is checked in full every time.
 */
export const MAX_CACHED_TOKEN = 2_048;

/** A verified token: whom it names and what it was issued under. */
export interface VerifiedToken {
  /** The user's row uuid. */
  userId: string;
  pwf: string;
  gen: number;
  /** Its expiry, in ms. */
  expiresAt: number;
  /** The key that signed it (its kid and public key), which must still be the app's. */
  kid: string;
  publicKey: string;
}

/** What a user's tokens must carry to be accepted. */
export interface UserState {
  pwf: string;
  gen: number;
}

/** The public part of a signing key that a cached token is tied to. */
export function publicKeyOf(key: SigningKeyRow): string {
  return String((key.publicJwk as { x?: unknown }).x);
}

const userKey = (appId: string, userId: string) => `${appId} ${userId}`;

/** A verified token as remembered: with the app it was verified for (a token is worthless at any other). */
interface KeptToken {
  appId: string;
  verified: VerifiedToken;
}

export class UserTokenCache {
  /** Verified tokens, by the token itself. */
  readonly #tokens: LruMap<string, KeptToken>;
  readonly #users: LruMap<string, UserState & { until: number }>;
  /** Users changed here by a transaction that may not have committed: nothing of them is cached until then. */
  readonly #held: LruMap<string, number>;
  /** Whether each user is an app admin, as read with the app's roles at `roles`. */
  readonly #admins: LruMap<string, { admin: boolean; until: number; roles: number }>;
  /** Per app, raised by every change to its roles or their members: what was read before no longer counts. */
  readonly #roles = new Map<string, number>();
  /** Raised by every change heard of: a user read from the database before it is not cached. */
  #epoch = 0;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(limit = TOKEN_CACHE_ENTRIES) {
    this.#tokens = new LruMap(limit);
    this.#users = new LruMap(limit);
    this.#held = new LruMap(limit);
    this.#admins = new LruMap(limit);
  }

  /** Hears of users changed by other instances (and by this one, once committed). */
  async start(store: Pick<Store, 'listen'>): Promise<void> {
    this.#unlisten = await store.listen(
      USERS_CHANNEL,
      (payload) => {
        const [appId, userId] = payload.split(' ');
        if (appId && userId === ALL_USERS) this.rolesChanged(appId);
        else if (appId && userId) this.#forget(userKey(appId, userId));
      },
      // Changes notified while the connection was down were missed: every user is read again.
      { resumed: () => this.#forgetAll() },
    );
  }

  async stop(): Promise<void> {
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    this.#tokens.clear();
    this.#users.clear();
    this.#held.clear();
    this.#admins.clear();
    this.#roles.clear();
    await unlisten?.().catch(() => undefined);
  }

  /**
   * A token of `appId` verified before, still unexpired and signed by one of `keys`; undefined
   * otherwise (the same token presented to another app is not known there).
   */
  token(appId: string, token: string, keys: readonly SigningKeyRow[], now = Date.now()): VerifiedToken | undefined {
    const kept = this.#tokens.get(token);
    if (kept === undefined || kept.appId !== appId) return undefined;
    const found = kept.verified;
    if (found.expiresAt > now && keys.some((k) => k.kid === found.kid && publicKeyOf(k) === found.publicKey)) return found;
    this.#tokens.delete(token);
    return undefined;
  }

  /** Remembers a token verified for `appId` (not one longer than MAX_CACHED_TOKEN). */
  rememberToken(appId: string, token: string, verified: VerifiedToken): void {
    if (token.length > MAX_CACHED_TOKEN) return;
    this.#tokens.set(token, { appId, verified });
  }

  /** A user's state as cached, or undefined (never cached, too old, or changed since). */
  user(appId: string, userId: string, now = Date.now()): UserState | undefined {
    const key = userKey(appId, userId);
    const found = this.#users.get(key);
    if (found === undefined) return undefined;
    if (found.until > now) return found;
    this.#users.delete(key);
    return undefined;
  }

  /** What `rememberUser` needs to know that nothing changed while the user was being read. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Caches a user's state read from the database when the read began at `epoch`, unless a change was heard of since. */
  rememberUser(appId: string, userId: string, state: UserState, epoch: number, now = Date.now()): void {
    const key = userKey(appId, userId);
    if (epoch !== this.#epoch) return;
    const held = this.#held.get(key);
    if (held !== undefined) {
      if (held > now) return;
      this.#held.delete(key);
    }
    this.#users.set(key, { pwf: state.pwf, gen: state.gen, until: now + USER_STATE_TTL_MS });
  }

  /**
   * A user's password or token generation changes, or the user goes, in a transaction that has
   * not committed yet: forgotten here at once, and not cached again for a while.
   */
  hold(appId: string, userId: string): void {
    const key = userKey(appId, userId);
    this.#held.set(key, Date.now() + USER_STATE_TTL_MS);
    this.#forget(key);
  }

  #forget(key: string): void {
    this.#epoch += 1;
    this.#users.delete(key);
    this.#admins.delete(key);
  }

  /** Every user's state and admin answer is read again (verified tokens stay: their users are checked anew). */
  #forgetAll(): void {
    this.#epoch += 1;
    this.#users.clear();
    this.#admins.clear();
  }

  /** Whether a user is an app admin, as read lately with the app's roles as they still are; undefined when not known. */
  appAdmin(appId: string, userId: string, now = Date.now()): boolean | undefined {
    const key = userKey(appId, userId);
    const found = this.#admins.get(key);
    if (found === undefined) return undefined;
    if (found.until > now && found.roles === (this.#roles.get(appId) ?? 0)) return found.admin;
    this.#admins.delete(key);
    return undefined;
  }

  /** Caches whether a user is an app admin, read by a statement that began at `epoch`, unless a change was heard of since. */
  rememberAppAdmin(appId: string, userId: string, admin: boolean, epoch: number, now = Date.now()): void {
    if (epoch !== this.#epoch) return;
    this.#admins.set(userKey(appId, userId), { admin, until: now + USER_STATE_TTL_MS, roles: this.#roles.get(appId) ?? 0 });
  }

  /** The app's roles or their members changed (committed): whether its users are app admins must be read again. */
  rolesChanged(appId: string): void {
    this.#epoch += 1;
    this.#roles.set(appId, (this.#roles.get(appId) ?? 0) + 1);
  }
}

/**
 * Says, in the transaction `q` that changes a user's password or token generation or deletes
 * the user, that the tokens they hold must be checked again: this instance (its `cache`) forgets
 * the user at once, every instance when the transaction commits.
 */
export async function userChanged(q: Queryable, cache: UserTokenCache | undefined, appId: string, userId: string): Promise<void> {
  cache?.hold(appId, userId);
  await q.query(userChangedNotice(appId, userId));
}
