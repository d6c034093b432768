// The statement texts found slow on the read lanes lately (lanes.ts): a text slow on SLOW_RUNS
// runs in a row keeps to the pool for LANE_SLOW_MEMORY_MS; a fast run clears its count.

import { LruMap } from '../lru/index.js';

/** How long a text found slow on a lane keeps to the pool before a lane may take it again. */
export const LANE_SLOW_MEMORY_MS = 10_000;

/** Slow runs in a row on a lane that send a text to the pool. */
export const SLOW_RUNS = 2;

/** Texts found slow on a lane that the store remembers at most (the most recently found kept). */
const SLOW_TEXTS = 1_000;

/** A text's latest runs on a lane: how many in a row were slow, the last of them when. */
interface SlowRuns {
  runs: number;
  at: number;
}

export class SlowTexts {
  readonly #runs = new LruMap<string, SlowRuns>(SLOW_TEXTS);

  /** Whether the text named `name` keeps to the pool at `now`: slow SLOW_RUNS times in a row, lately. */
  kept(name: string, now: number): boolean {
    const slow = this.#runs.peek(name);
    return slow !== undefined && slow.runs >= SLOW_RUNS && now - slow.at < LANE_SLOW_MEMORY_MS;
  }

  /** Counts a slow run of the text in a row with the ones before; a fast one clears them. */
  ran(name: string, slow: boolean, at: number): void {
    const runs = this.#runs.peek(name);
    if (!slow) {
      if (runs) this.#runs.delete(name);
      return;
    }
    this.#runs.set(name, { runs: (runs?.runs ?? 0) + 1, at });
  }
}
