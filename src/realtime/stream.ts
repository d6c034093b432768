// One subscriber's events on their way to its socket: a bounded queue read as an async
// iterator. A subscriber that falls too far behind is not buffered without end: the stream
// calls `onOverflow` (the transport closes the connection) and ends.

import type { FormattedExecutionResult } from 'graphql';

/** Events queued for one subscription before its subscriber counts as too slow. */
export const MAX_PENDING_EVENTS = 256;

export class EventStream implements AsyncIterableIterator<FormattedExecutionResult> {
  readonly #queue: FormattedExecutionResult[] = [];
  #waiting: ((result: IteratorResult<FormattedExecutionResult>) => void) | undefined;
  #done = false;

  constructor(
    private readonly onEnd: () => void,
    private readonly onOverflow: () => void,
    private readonly limit = MAX_PENDING_EVENTS,
  ) {}

  get ended(): boolean {
    return this.#done;
  }

  push(result: FormattedExecutionResult): void {
    if (this.#done) return;
    const waiting = this.#waiting;
    if (waiting) {
      this.#waiting = undefined;
      waiting({ value: result, done: false });
      return;
    }
    if (this.#queue.length >= this.limit) {
      this.end();
      this.onOverflow();
      return;
    }
    this.#queue.push(result);
  }

  /** Ends the stream: queued events are dropped, a waiting reader is told it is over. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#queue.length = 0;
    this.onEnd();
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<FormattedExecutionResult>> {
    const queued = this.#queue.shift();
    if (queued) return Promise.resolve({ value: queued, done: false });
    if (this.#done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<FormattedExecutionResult>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<FormattedExecutionResult> {
    return this;
  }
}
