// Writes to subscribers' sockets while the hub works through a backlog of notifications. Each
// frame costs a system call, and on a busy server that call (with the peer's wake-up it causes)
// is most of an event's delivery cost. While more notifications wait, the frames of the ones
// handled are held back (the sockets corked) and each socket's frames then go out in one write:
// a server that falls behind spends less per event, and catches up. Nothing is held while the
// hub keeps up (no notification waiting when it starts one), and frames are held for at most
// MAX_HELD_NOTIFICATIONS notifications, until the backlog ends (every notification counts, one
// with no subscriber here too), and never much past MAX_HOLD_MS, whatever follows.

import type { Socket } from 'node:net';

/** The most notifications whose frames are held back before they are written. */
export const MAX_HELD_NOTIFICATIONS = 4;
/** Held frames are written once a notification ends this many ms or more after the holding began. */
export const MAX_HOLD_MS = 25;

export class DeliveryBatch {
  readonly #held = new Set<Socket>();
  /** Whether frames sent now are held back: from the start of a notification begun with a backlog to the next write. */
  #holding = false;
  /** Whether the hub is handling a notification. */
  #active = false;
  #since = 0;
  #notifications = 0;
  #flushing = false;
  /** Writes what is held once MAX_HOLD_MS have passed, should no notification end by then. */
  #deadline: NodeJS.Timeout | undefined;

  /** Whether frames sent now are held back (for tests). */
  get holding(): boolean {
    return this.#holding;
  }

  /** The hub starts handling a notification with subscribers on this instance; `backlog`: more are waiting. */
  begin(backlog: boolean): void {
    this.#active = true;
    if (this.#holding || !backlog) return;
    this.#startHolding();
  }

  /**
   * The hub is done with a notification; `backlog`: more are waiting. Told of every one, those
   * with no subscriber here (and no `begin`) too: the frames held for the notifications before
   * must not wait for one that may never come.
   */
  end(backlog: boolean): void {
    this.#active = false;
    if (!this.#holding) return;
    this.#notifications += 1;
    if (!backlog || this.#notifications >= MAX_HELD_NOTIFICATIONS || performance.now() - this.#since >= MAX_HOLD_MS) this.#flushSoon();
  }

  /** Before a frame is sent on `socket`: holds it back if the hub is working through a backlog. */
  hold(socket: Socket): void {
    if (!this.#holding || this.#held.has(socket)) return;
    socket.cork();
    this.#held.add(socket);
  }

  /**
   * Writes what is held, once the frames of the notifications handled so far have been sent
   * (as the hub hands their results over, or in promise callbacks, which all run before this).
   * A notification the hub has started since then (with a backlog, then) goes on holding its frames.
   */
  #flushSoon(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setImmediate(() => {
      this.#flushing = false;
      clearTimeout(this.#deadline);
      this.#deadline = undefined;
      for (const socket of this.#held) socket.uncork();
      this.#held.clear();
      this.#holding = false;
      if (this.#active) this.#startHolding();
    });
  }

  #startHolding(): void {
    this.#holding = true;
    this.#since = performance.now();
    this.#notifications = 0;
    this.#deadline = setTimeout(() => {
      this.#deadline = undefined;
      this.#flushSoon();
    }, MAX_HOLD_MS);
    // Held frames are no reason to keep the process alive.
    this.#deadline.unref();
  }
}
