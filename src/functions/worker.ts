// The delivery worker every instance runs: it claims due event deliveries from the outbox (one
// short statement, FOR UPDATE SKIP LOCKED and a lease — never a transaction held across a
// call), posts each through callFunction, and settles it: delivered, due again after a backoff,
// or dead once its retry window is over. Woken by a NOTIFY after a mutation commits events,
// and polling as a fallback (a notification lost, a retry come due, another instance's crash).

import type { Store } from '../store/index.js';
import { claimDeliveries, markDelivered, markFailed, releaseDelivery, sweepDeliveries } from '../store/index.js';
import type { ClaimedDelivery, DeliveryClaim } from '../store/index.js';
import { callFunction } from './call.js';
import type { FunctionCallBody, FunctionCallObserver, FunctionCallResult } from './call.js';
import type { FunctionDefinition } from './definition.js';
import { DEFAULT_DELIVERY_SCHEDULE, retryDelayMs } from './schedule.js';
import type { DeliverySchedule } from './schedule.js';
import type { FunctionSecrets } from './sealing.js';

/** Notified (empty payload) after a commit wrote outbox rows: every instance's worker wakes. */
export const FUNCTIONS_CHANNEL = 'tessera_functions';

/** Where the worker's log lines go (a pino logger fits). Never given a body, secret or header value. */
export interface DeliveryLog {
  info(detail: Record<string, unknown>, message: string): void;
  warn(detail: Record<string, unknown>, message: string): void;
  error(detail: Record<string, unknown>, message: string): void;
}

export interface DeliveryWorkerOptions {
  store: Store;
  secrets: FunctionSecrets;
  /** Whether functions may be on private addresses (TESSERA_FUNCTIONS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
  schedule?: Partial<DeliverySchedule> | undefined;
  observe?: FunctionCallObserver | undefined;
  log?: DeliveryLog | undefined;
}

const SILENT: DeliveryLog = { info: () => {}, warn: () => {}, error: () => {} };

/** A URL's origin only: its path or query may hold a credential, which no log line carries. */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid URL';
  }
}

export class DeliveryWorker {
  readonly #store: Store;
  readonly #secrets: FunctionSecrets;
  readonly #allowPrivate: boolean;
  readonly #schedule: DeliverySchedule;
  readonly #observe: FunctionCallObserver | undefined;
  readonly #log: DeliveryLog;
  readonly #inFlight = new Map<string, { controller: AbortController; done: Promise<void> }>();
  #pass: Promise<void> | undefined;
  #again = false;
  #stopped = true;
  #poll: NodeJS.Timeout | undefined;
  #sweep: NodeJS.Timeout | undefined;
  #unlisten: (() => Promise<void>) | undefined;

  constructor(options: DeliveryWorkerOptions) {
    this.#store = options.store;
    this.#secrets = options.secrets;
    this.#allowPrivate = options.allowPrivate;
    this.#schedule = { ...DEFAULT_DELIVERY_SCHEDULE, ...options.schedule };
    this.#observe = options.observe;
    this.#log = options.log ?? SILENT;
  }

  get schedule(): Readonly<DeliverySchedule> {
    return this.#schedule;
  }

  async start(): Promise<void> {
    this.#stopped = false;
    this.#unlisten = await this.#store.listen(FUNCTIONS_CHANNEL, () => this.wake());
    this.#poll = setInterval(() => this.wake(), this.#schedule.pollMs);
    this.#poll.unref();
    this.#sweep = setInterval(() => void this.sweep(), this.#schedule.sweepMs);
    this.#sweep.unref();
    this.wake();
  }

  /**
   * Stops claiming; calls in flight are aborted and their deliveries given back (another
   * instance, or this one's next start, sends them again: delivery is at least once).
   */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    clearInterval(this.#poll);
    clearInterval(this.#sweep);
    for (const call of this.#inFlight.values()) call.controller.abort();
    await Promise.allSettled([...this.#inFlight.values()].map((c) => c.done));
    await this.#pass?.catch(() => undefined);
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    // The store may already be closing with the server; its listener goes with it then.
    await unlisten?.().catch(() => undefined);
  }

  /** Looks for due deliveries now (coalesced: one look at a time, one more if woken meanwhile). */
  wake(): void {
    if (this.#stopped) return;
    if (this.#pass) {
      this.#again = true;
      return;
    }
    this.#pass = this.#claim().finally(() => {
      this.#pass = undefined;
      if (this.#again) {
        this.#again = false;
        this.wake();
      }
    });
  }

  /** Marks overdue deliveries dead and prunes old settled ones; how many it marked dead. */
  async sweep(): Promise<number> {
    try {
      const dead = await sweepDeliveries(this.#store, this.#schedule.deadAfterMs, this.#schedule.retentionMs);
      if (dead > 0) this.#log.error({ dead }, 'event deliveries dead: not attempted within their retry window');
      return dead;
    } catch (err) {
      if (!this.#stopped) this.#log.warn({ err }, 'the outbox sweep failed');
      return 0;
    }
  }

  async #claim(): Promise<void> {
    const free = this.#schedule.concurrency - this.#inFlight.size;
    if (free <= 0) return;
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimDeliveries(this.#store, free, this.#schedule.leaseMarginMs);
    } catch (err) {
      if (!this.#stopped) this.#log.warn({ err }, 'due event deliveries could not be claimed');
      return;
    }
    for (const delivery of claimed) this.#start(delivery);
    // A full batch: more may be due.
    if (claimed.length === free) this.#again = true;
  }

  #start(delivery: ClaimedDelivery): void {
    const controller = new AbortController();
    const done = this.#deliver(delivery, controller.signal)
      .catch((err: unknown) => this.#log.error({ err, deliveryId: delivery.id }, 'an event delivery could not be settled'))
      .finally(() => {
        this.#inFlight.delete(delivery.id);
        this.wake();
      });
    this.#inFlight.set(delivery.id, { controller, done });
  }

  async #deliver(delivery: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const claim: DeliveryClaim = { id: delivery.id, attempts: delivery.attempts };
    const started = performance.now();
    const result = await this.#call(delivery, signal);
    const detail = {
      appId: delivery.appId,
      function: delivery.functionName,
      deliveryId: delivery.id,
      operation: delivery.operation,
      attempt: delivery.attempts,
      origin: originOf(delivery.url),
      durationMs: Math.round(performance.now() - started),
    };
    if (result.ok) {
      await markDelivered(this.#store, claim, result.status);
      this.#log.info({ ...detail, status: result.status }, 'event delivered');
      return;
    }
    if (result.kind === 'aborted' && this.#stopped) {
      await releaseDelivery(this.#store, claim);
      this.#log.info(detail, 'event delivery interrupted by shutdown: given back');
      return;
    }
    const retryInMs = retryDelayMs(delivery.attempts, this.#schedule);
    const status = await markFailed(this.#store, claim, { status: result.status ?? null, error: result.message }, retryInMs, this.#schedule.deadAfterMs);
    const failed = { ...detail, outcome: result.kind, status: result.status, error: result.message };
    if (status === 'dead') this.#log.error(failed, 'event delivery failed: dead, its retry window is over');
    else if (status === 'pending') this.#log.warn({ ...failed, retryInMs }, 'event delivery failed: will retry');
  }

  async #call(delivery: ClaimedDelivery, signal: AbortSignal): Promise<FunctionCallResult> {
    let definition: FunctionDefinition;
    let secret: string;
    try {
      secret = this.#secrets.openSecret(delivery.appId, delivery.functionName, delivery.sealedSecret);
      definition = {
        appId: delivery.appId,
        name: delivery.functionName,
        kind: 'EVENT',
        url: delivery.url,
        headers: this.#secrets.openHeaders(delivery.appId, delivery.functionName, delivery.headers),
        timeoutMs: delivery.timeoutMs,
        enabled: true,
        order: 0,
        operations: [],
      };
    } catch {
      // Sealed under another secret key: this instance's TESSERA_SECRET_KEY differs from the one that stored it.
      return { ok: false, kind: 'refused', message: "the function's secret cannot be opened with this server's secret key" };
    }
    const body: FunctionCallBody = {
      id: delivery.id,
      app: delivery.appId,
      function: delivery.functionName,
      operation: delivery.operation,
      caller: delivery.payload.caller as FunctionCallBody['caller'],
      event: delivery.payload.event,
      createdAt: delivery.createdAt.toISOString(),
    };
    return callFunction(definition, secret, body, { allowPrivate: this.#allowPrivate, observe: this.#observe }, signal);
  }
}

/**
 * Tells every instance's worker that a commit wrote outbox rows: one NOTIFY at a time, and one
 * more for any commits meanwhile, so a burst of mutations sends a few notifications, not one
 * each. A lost notification costs a poll interval, nothing more.
 */
export class OutboxSignal {
  readonly #store: Store;
  #sending = false;
  #pending = false;

  constructor(store: Store) {
    this.#store = store;
  }

  queued(): void {
    if (this.#sending) {
      this.#pending = true;
      return;
    }
    this.#sending = true;
    void this.#store
      .notify(FUNCTIONS_CHANNEL, '')
      .catch(() => undefined)
      .finally(() => {
        this.#sending = false;
        if (this.#pending) {
          this.#pending = false;
          this.queued();
        }
      });
  }
}
