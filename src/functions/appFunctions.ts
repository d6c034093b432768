// The functions of one live app, as the server holds them between catalog changes: which EVENT
// functions want which mutation's events (what a mutation asks before it writes its outbox
// rows), and the stored rows the BEFORE and RESOLVER callers look up. Secrets stay sealed here.

import type { FunctionRow } from '../store/index.js';

export class AppFunctions {
  readonly #rows: readonly FunctionRow[];
  readonly #events = new Map<string, string[]>();
  readonly #queued: () => void;
  /** Asked by every mutation (its ports), so worked out once per loaded app. */
  readonly #hasBefore: boolean;

  /** `queued`: told after a commit that wrote outbox rows (it wakes a delivery worker). */
  constructor(rows: readonly FunctionRow[], queued: () => void = () => {}) {
    this.#rows = rows;
    this.#queued = queued;
    this.#hasBefore = rows.some((r) => r.kind === 'BEFORE' && r.enabled);
    for (const row of rows) {
      if (row.kind !== 'EVENT' || !row.enabled) continue;
      for (const operation of row.operations) {
        const list = this.#events.get(operation);
        if (list) list.push(row.name);
        else this.#events.set(operation, [row.name]);
      }
    }
  }

  static readonly none = new AppFunctions([]);

  /** The enabled EVENT functions that want `operation`'s events (by name); empty when none. */
  eventFunctions(operation: string): readonly string[] {
    return this.#events.get(operation) ?? [];
  }

  /** Whether any BEFORE function is enabled (a mutation calls no hook otherwise). */
  get hasBefore(): boolean {
    return this.#hasBefore;
  }

  /** Whether any EVENT function is enabled (a mutation skips the outbox entirely otherwise). */
  get hasEvents(): boolean {
    return this.#events.size > 0;
  }

  queued(): void {
    this.#queued();
  }

  /** The enabled functions of `kind` attached to `operation`, in their order (then by name). */
  attached(kind: 'BEFORE' | 'EVENT', operation: string): FunctionRow[] {
    return this.#rows.filter((r) => r.kind === kind && r.enabled && r.operations.includes(operation));
  }

  /** The function of that name, enabled or not. */
  named(name: string): FunctionRow | undefined {
    return this.#rows.find((r) => r.name === name);
  }

  get all(): readonly FunctionRow[] {
    return this.#rows;
  }
}
