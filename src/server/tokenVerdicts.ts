// What this instance has read lately of admin tokens: for each app, whether a token is one of
// its live admin tokens. Kept by the token itself, so that a request with a known token costs a
// lookup (hashing every token to key the verdicts was most of what an admin-token request spent
// on its credential); the catalog, which keeps only hashes, is asked when a verdict is not known.
// Bounded twice over: verdicts expire, and neither made-up tokens' number nor their length can
// grow the memory it takes.

/** How long a verdict holds (any change to an app forgets them all sooner). */
export const TOKEN_AGE_MS = 30_000;

/** The longest token whose verdict is kept: issued ones are `tat_` and 43 characters. */
export const MAX_KEPT_TOKEN = 64;

/** The most verdicts kept: one more forgets them all. */
export const MAX_VERDICTS = 10_000;

export class TokenVerdicts {
  readonly #byApp = new Map<string, Map<string, { valid: boolean; at: number }>>();
  #count = 0;
  #generation = 0;

  /** How many verdicts are kept. */
  get size(): number {
    return this.#count;
  }

  /** Whether `token` is a live admin token of `appId`, when known and fresh; undefined otherwise. */
  get(appId: string, token: string, now = Date.now()): boolean | undefined {
    const kept = this.#byApp.get(appId)?.get(token);
    return kept && now - kept.at < TOKEN_AGE_MS ? kept.valid : undefined;
  }

  /**
   * Counts the times every verdict was forgotten. A verdict read from the catalog before a
   * change to the app forgets them may answer from before that change (a token just revoked):
   * it is kept only if no forgetting came between the read and `set` (see `set`'s `since`).
   */
  get generation(): number {
    return this.#generation;
  }

  /**
   * Keeps a verdict read from the catalog: not for a token longer than any issued, and not when
   * the verdicts were forgotten since `since` (the `generation` taken before the read).
   */
  set(appId: string, token: string, valid: boolean, since = this.#generation, now = Date.now()): void {
    if (token.length > MAX_KEPT_TOKEN || since !== this.#generation) return;
    if (this.#count >= MAX_VERDICTS) this.clear();
    let verdicts = this.#byApp.get(appId);
    if (!verdicts) {
      verdicts = new Map();
      this.#byApp.set(appId, verdicts);
    }
    if (!verdicts.has(token)) this.#count += 1;
    verdicts.set(token, { valid, at: now });
  }

  clear(): void {
    this.#byApp.clear();
    this.#count = 0;
    this.#generation += 1;
  }
}
