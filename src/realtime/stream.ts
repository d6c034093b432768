// One subscriber's events on their way to its socket. Until its protocol has started the
// subscription, events wait in a bounded queue; once piped to a sink (the connection itself),
// the stream hands each event straight to it while the connection keeps up, and queues only
// while the connection's unsent data is above its high-water mark. Either way a subscriber
// that falls too far behind is not buffered without end: the stream calls `onOverflow` (the
// transport closes the connection) and ends.

import type { FormattedExecutionResult } from 'graphql';

/** Events queued for one subscription before its subscriber counts as too slow. */
export const MAX_PENDING_EVENTS = 256;

/** Where a piped stream writes its events: the subscriber's connection. */
export interface EventSink {
  /** Whether the connection takes an event now (false while its unsent data is above its high-water mark). */
  ready(): boolean;
  write(result: FormattedExecutionResult): void;
  /** Calls `then` once, when the connection takes events again (or closes). */
  whenReady(then: () => void): void;
}

export class EventStream {
  readonly #queue: FormattedExecutionResult[] = [];
  #sink: EventSink | undefined;
  #draining = false;
  #done = false;
  readonly #finished: Promise<void>;
  #finish: () => void = () => undefined;

  constructor(
    private readonly onEnd: () => void,
    private readonly onOverflow: () => void,
    private readonly limit = MAX_PENDING_EVENTS,
  ) {
    this.#finished = new Promise((resolve) => {
      this.#finish = resolve;
    });
  }

  get ended(): boolean {
    return this.#done;
  }

  /** Settles once the stream has ended. */
  get finished(): Promise<void> {
    return this.#finished;
  }

  push(result: FormattedExecutionResult): void {
    if (this.#done) return;
    const sink = this.#sink;
    if (sink && this.#queue.length === 0 && sink.ready()) {
      sink.write(result);
      return;
    }
    if (this.#queue.length >= this.limit) {
      this.end();
      this.onOverflow();
      return;
    }
    this.#queue.push(result);
    if (sink) this.#drainWhenReady(sink);
  }

  /** From now on the stream writes its events to `sink` itself, the queued ones first. */
  pipe(sink: EventSink): void {
    if (this.#sink || this.#done) return;
    this.#sink = sink;
    this.#drain(sink);
  }

  #drain(sink: EventSink): void {
    while (!this.#done && this.#queue.length > 0 && sink.ready()) sink.write(this.#queue.shift() as FormattedExecutionResult);
    if (!this.#done && this.#queue.length > 0) this.#drainWhenReady(sink);
  }

  #drainWhenReady(sink: EventSink): void {
    if (this.#draining) return;
    this.#draining = true;
    sink.whenReady(() => {
      this.#draining = false;
      this.#drain(sink);
    });
  }

  /** Ends the stream: queued events are dropped, and `finished` settles. */
  end(): void {
    if (this.#done) return;
    this.#done = true;
    this.#queue.length = 0;
    this.onEnd();
    this.#finish();
  }
}
