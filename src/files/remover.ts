// The worker that removes file bytes queued in the catalog (a deleted File's with its image
// variants, a deleted app's, an upload no File claimed): every few seconds, and at once when woken after a delete, it
// takes the due entries, removes their bytes and deletes each entry once they are gone. An
// attempt that fails is tried again later with a growing wait, on this instance or another,
// after a restart too: the queue is in the database.

import type { Store } from '../store/index.js';
import { finishFileRemoval, noteFileRemovalError, takeDueFileRemovals } from '../store/index.js';
import { checkKey, checkPrefix } from './storage.js';
import type { BlobStorage } from './storage.js';
import { variantsPrefix } from './variants.js';

export interface FileRemoverOptions {
  /** How often due removals are looked for (default 2 s). */
  intervalMs?: number;
  /** Entries taken per round (default 50). */
  batch?: number;
  /** An attempt failed (it will be tried again). */
  onError?: (err: unknown, key: string) => void;
}

export const DEFAULT_REMOVAL_INTERVAL_MS = 2000;

export class FileRemover {
  readonly #store: Store;
  readonly #storage: BlobStorage;
  readonly #options: FileRemoverOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<number> | undefined;
  #again = false;
  #stopped = true;

  constructor(store: Store, storage: BlobStorage, options: FileRemoverOptions = {}) {
    this.#store = store;
    this.#storage = storage;
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running?.catch(() => undefined);
  }

  /** Looks for due removals now (a delete just committed). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#running) this.#again = true;
    else this.#schedule(0);
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#tick(), ms);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    if (this.#stopped || this.#running) return;
    try {
      await this.runOnce();
    } catch (err) {
      // The catalog could not be read: the next round tries again.
      this.#options.onError?.(err, '');
    }
    if (!this.#stopped) this.#schedule(this.#again ? 0 : (this.#options.intervalMs ?? DEFAULT_REMOVAL_INTERVAL_MS));
    this.#again = false;
  }

  /** One round: removes what is due; how many entries were done. */
  async runOnce(): Promise<number> {
    const run = this.#round();
    this.#running = run;
    try {
      return await run;
    } finally {
      this.#running = undefined;
    }
  }

  async #round(): Promise<number> {
    let done = 0;
    const due = await takeDueFileRemovals(this.#store, this.#options.batch ?? 50);
    for (const entry of due) {
      try {
        if (entry.prefix) {
          checkPrefix(entry.key);
          await this.#storage.removePrefix(entry.key);
        } else {
          checkKey(entry.key);
          await this.#storage.remove(entry.key);
          // The entry is done once the file's image variants are gone too.
          await this.#storage.removePrefix(variantsPrefix(entry.key));
        }
        await finishFileRemoval(this.#store, entry.key, entry.attempts);
        done += 1;
      } catch (err) {
        this.#options.onError?.(err, entry.key);
        await noteFileRemovalError(this.#store, entry.key, err instanceof Error ? err.message : String(err)).catch(() => undefined);
      }
    }
    return done;
  }
}
