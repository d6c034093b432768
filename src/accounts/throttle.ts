// Login throttling, stored in the catalog so it holds across instances (and restarts):
// 10 consecutive failures for one username from one address, 30 failures for one username from
// any number of addresses in 15 minutes (a distributed guess at one account), or 100 failures
// from one address in an hour, and further attempts — a correct password included — are
// refused with RATE_LIMITED until the window passes. An unknown username counts exactly like
// an existing one. An attempt is counted (under all three keys, even when one refuses it)
// before the password is checked, so parallel attempts cannot slip past a limit; a success
// gives its points back.

import { createHash } from 'node:crypto';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { TesseraError } from '../errors/index.js';
import { precompiled } from '../sql/index.js';
import type { Store } from '../store/index.js';

/** At most `points` failures in `seconds`. */
export interface LoginLimit {
  points: number;
  seconds: number;
}

export interface LoginLimits {
  /** Consecutive failures for one username from one address. */
  perUserAndAddress: LoginLimit;
  /** Failures for one username from any number of addresses. */
  perUser: LoginLimit;
  /** Failures from one address, whatever the username. */
  perAddress: LoginLimit;
}

export const LOGIN_LIMITS: LoginLimits = {
  perUserAndAddress: { points: 10, seconds: 15 * 60 },
  perUser: { points: 30, seconds: 15 * 60 },
  perAddress: { points: 100, seconds: 60 * 60 },
};

/** The limiter's queries go through the store, so both drivers serve it. */
function storeClient(store: Store) {
  return {
    query: async (q: { text: string; values?: unknown[] }) => {
      const result = await store.query(precompiled(q.text, q.values ?? []));
      return { rows: result.rows, rowCount: result.rowCount };
    },
  };
}

function limiter(store: Store, prefix: string, limit: { points: number; seconds: number }): RateLimiterPostgres {
  return new RateLimiterPostgres({
    storeClient: storeClient(store),
    storeType: 'pool',
    schemaName: 'tessera',
    tableName: 'login_limits',
    tableCreated: true,
    keyPrefix: prefix,
    points: limit.points,
    duration: limit.seconds,
  });
}

function throttled(res: unknown): TesseraError {
  const ms = res instanceof RateLimiterRes ? res.msBeforeNext : 60_000;
  const retryAfter = Math.max(1, Math.ceil(ms / 1000));
  return new TesseraError('RATE_LIMITED', `Too many login attempts; try again in ${retryAfter} s`, { retryAfter });
}

export class LoginThrottle {
  readonly #perUserAndAddress: RateLimiterPostgres;
  readonly #perUser: RateLimiterPostgres;
  readonly #perAddress: RateLimiterPostgres;

  constructor(store: Store, limits: LoginLimits = LOGIN_LIMITS) {
    this.#perUserAndAddress = limiter(store, 'login-user', limits.perUserAndAddress);
    this.#perUser = limiter(store, 'login-account', limits.perUser);
    this.#perAddress = limiter(store, 'login-address', limits.perAddress);
  }

  static #keys(appId: string, username: string, address: string) {
    // Hashed: a username may be 10,000 characters long, the limiter's keys at most 255.
    const name = createHash('sha256').update(username.normalize('NFC').toLowerCase(), 'utf8').digest('base64url');
    return { userAndAddress: `${appId}:${address}:${name}`, user: `${appId}:${name}`, address: `${appId}:${address}` };
  }

  /** Counts an attempt; RATE_LIMITED (with `retryAfter` seconds) when over a limit. */
  async attempt(appId: string, username: string, address: string): Promise<void> {
    const keys = LoginThrottle.#keys(appId, username, address);
    // The three counts are independent: taken at once, one round trip's wait instead of three.
    const counted = await Promise.allSettled([
      this.#perAddress.consume(keys.address, 1),
      this.#perUserAndAddress.consume(keys.userAndAddress, 1),
      this.#perUser.consume(keys.user, 1),
    ]);
    const refused = counted.filter((c): c is PromiseRejectedResult => c.status === 'rejected').map((c) => c.reason as unknown);
    const failure = refused.find((r) => !(r instanceof RateLimiterRes));
    if (failure !== undefined) throw failure;
    // The limit that holds longest is the one the client waits for.
    const limits = refused.filter((r): r is RateLimiterRes => r instanceof RateLimiterRes).sort((a, b) => b.msBeforeNext - a.msBeforeNext);
    if (limits[0]) throw throttled(limits[0]);
  }

  /**
   * Counts an attempt that names no account (presenting a refresh token) under the address
   * alone; RATE_LIMITED over the address's limit.
   */
  async addressAttempt(appId: string, address: string): Promise<void> {
    try {
      await this.#perAddress.consume(`${appId}:${address}`, 1);
    } catch (err) {
      if (err instanceof RateLimiterRes) throw throttled(err);
      throw err;
    }
  }

  /** The address's attempt succeeded: its point comes back. */
  async addressSucceeded(appId: string, address: string): Promise<void> {
    await this.#perAddress.reward(`${appId}:${address}`, 1);
  }

  /**
   * A successful login: the failures from this address are forgotten (the limit counts
   * consecutive ones), and the attempt's points come back to the address and the username —
   * the username's other failures stay, so a guesser gains nothing from the owner logging in.
   */
  async succeeded(appId: string, username: string, address: string): Promise<void> {
    const keys = LoginThrottle.#keys(appId, username, address);
    await Promise.all([this.#perUserAndAddress.delete(keys.userAndAddress), this.#perUser.reward(keys.user, 1), this.#perAddress.reward(keys.address, 1)]);
  }
}
