// Event fan-out on one instance. The hub listens on the database's event channel (NOTIFY, so
// mutations made through any instance reach every instance), and for each row event runs the
// statement of each matching subscription once per group of subscriptions made of the same
// document and variables, whoever made them: one statement evaluates the event for every
// distinct caller of the group (up to MAX_CALLERS at a time), each under their own rules.
// Notifications are handled one after another, so each subscriber hears events in commit order.

import type { ExecutionResult } from 'graphql';
import { EVENTS_CHANNEL, eventError, eventPayloads, eventResult } from '../compile/index.js';
import type { AppContext, EventNotice, EventResult, RowEvent, SubscriptionPlan } from '../compile/index.js';
import { sql } from '../sql/index.js';
import type { Store } from '../store/index.js';
import type { DeliveryBatch } from './batch.js';
import type { SubscriberDirectory } from './directory.js';

export interface Subscriber {
  plan: SubscriptionPlan;
  /** Hands one event's result to the subscriber's stream. */
  deliver(result: ExecutionResult): void;
  /** The app's schema changed under the subscription: it has to be made again. */
  expire(): void;
}

export interface HubOptions {
  /**
   * Subscribes to row events on every store apps live on; each notification comes with the
   * store it came from, where its statements run.
   */
  listen(channel: string, handler: (payload: string, store: Store) => void): Promise<() => Promise<void>>;
  /** The app's current compiler context, to tell subscriptions made against an older schema version. */
  current(appId: string): Promise<AppContext | undefined>;
  /** Reports a failure that reached no subscriber (an unreadable notification…). */
  onError(err: unknown): void;
  /** Where this instance records the apps it holds subscriptions of. */
  directory: SubscriberDirectory;
  /** The most distinct callers one event statement evaluates (default MAX_CALLERS). */
  maxCallers?: number | undefined;
  /**
   * Told when a notification for an app with subscribers here has been handled: its row events,
   * the results delivered to subscribers, and the seconds from its arrival (queueing included).
   */
  onHandled?(report: { events: number; deliveries: number; seconds: number }): void;
  /** Told when the hub starts and ends handling a notification, to hold frames back while others wait. */
  batch?: DeliveryBatch | undefined;
}

/** How many event statements one notification runs at once. */
const CONCURRENT_EVALUATIONS = 8;
/** The most distinct callers one event statement evaluates; a larger group runs several. */
const MAX_CALLERS = 1000;

/** Subscribers one statement answers: for each distinct caller, their subscribers. */
type Batch = Subscriber[][];

/** Runs `work` on each item, at most CONCURRENT_EVALUATIONS at once; the sum of what it resolves to. */
async function pooled<T>(items: T[], work: (item: T) => Promise<number>): Promise<number> {
  let sum = 0;
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      // Not `sum += await …`, which reads `sum` before the wait and loses the other workers' counts.
      const n = await work(items[i] as T);
      sum += n;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_EVALUATIONS, items.length) }, worker));
  return sum;
}

function executionResult(result: EventResult): ExecutionResult {
  return { data: JSON.parse(result.data) as Record<string, unknown>, ...(result.errors.length > 0 ? { errors: result.errors } : {}) };
}

export class RealtimeHub {
  readonly #options: HubOptions;
  readonly #apps = new Map<string, Set<Subscriber>>();
  #unlisten: Promise<() => Promise<void>> | undefined;
  #queue: Promise<void> = Promise.resolve();
  /** Notifications received and not yet being handled. */
  #waiting = 0;
  #stopped = false;

  constructor(options: HubOptions) {
    this.#options = options;
  }

  get size(): number {
    let n = 0;
    for (const set of this.#apps.values()) n += set.size;
    return n;
  }

  /** Adds a subscriber; resolves once this instance listens, to a function that removes it. */
  async add(subscriber: Subscriber): Promise<() => void> {
    if (this.#stopped) throw new Error('The realtime hub is stopped');
    const appId = subscriber.plan.app.app.id;
    this.#unlisten ??= this.#options.listen(EVENTS_CHANNEL, (payload, store) => this.#enqueue(payload, store));
    try {
      await this.#unlisten;
      await this.#options.directory.register(appId);
    } catch (err) {
      this.#unlisten = undefined;
      throw err;
    }
    if (this.#stopped) {
      this.#options.directory.unregister(appId);
      throw new Error('The realtime hub is stopped');
    }
    // Counted (and served) once this instance listens and every instance can know of it: a
    // mutation that commits from now on reaches it, which is what `size` (the gauge) tells.
    let set = this.#apps.get(appId);
    if (!set) {
      set = new Set();
      this.#apps.set(appId, set);
    }
    set.add(subscriber);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const current = this.#apps.get(appId);
      current?.delete(subscriber);
      if (current?.size === 0) this.#apps.delete(appId);
      this.#options.directory.unregister(appId);
    };
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#apps.clear();
    const unlisten = this.#unlisten;
    this.#unlisten = undefined;
    await unlisten?.then((fn) => fn()).catch(() => undefined);
    await this.#queue;
  }

  /** Settles once every notification received so far has been handled (for tests and shutdown). */
  idle(): Promise<void> {
    return this.#queue;
  }

  #enqueue(payload: string, store: Store): void {
    const arrived = performance.now();
    this.#waiting += 1;
    this.#queue = this.#queue
      .then(() => {
        this.#waiting -= 1;
        return this.#handle(payload, store, arrived);
      })
      .catch((err: unknown) => this.#options.onError(err));
  }

  async #handle(payload: string, store: Store, arrived: number): Promise<void> {
    const notice = JSON.parse(payload) as EventNotice;
    const subscribers = this.#apps.get(notice.a);
    const batch = this.#options.batch;
    if (!subscribers || subscribers.size === 0) {
      batch?.end(this.#waiting > 0);
      return;
    }
    batch?.begin(this.#waiting > 0);
    try {
      await this.#deliver(notice, subscribers, store, arrived);
    } finally {
      batch?.end(this.#waiting > 0);
    }
  }

  async #deliver(notice: EventNotice, subscribers: Set<Subscriber>, store: Store, arrived: number): Promise<void> {
    const events = await this.#events(notice, store);
    const current = await this.#options.current(notice.a);
    for (const subscriber of [...subscribers]) {
      // A reload of the app (settings, tokens, the cache's expiry) keeps its schema version:
      // only a new version (or the app's deletion) makes a subscription's statements stale.
      if (subscriber.plan.app.app.version !== current?.app.version) {
        subscribers.delete(subscriber);
        subscriber.expire();
      }
    }
    let deliveries = 0;
    for (const event of events) deliveries += await this.#dispatch([...subscribers], event, store);
    this.#options.onHandled?.({ events: events.length, deliveries, seconds: (performance.now() - arrived) / 1000 });
  }

  /** The notice's events, read from the catalog when they were too large to notify, each with its transaction's commit stamp. */
  async #events(notice: EventNotice, store: Store): Promise<RowEvent[]> {
    let body: EventNotice | undefined = notice;
    if (notice.r !== undefined) {
      const { rows } = await store.query<{ payload: string }>(sql`SELECT payload FROM tessera.realtime_events WHERE id = ${notice.r}::bigint`);
      body = rows[0] ? (JSON.parse(rows[0].payload) as EventNotice) : undefined;
    }
    const committed = body?.c ? { own: body.c[0], snapshot: body.c[1] } : undefined;
    return (body?.e ?? []).map(([type, kind, id, row]) => ({ type, kind, id, ...(row === undefined ? {} : { row }), committed }));
  }

  /** Runs the event's statements and delivers their results; resolves to the number delivered. */
  async #dispatch(subscribers: Subscriber[], event: RowEvent, store: Store): Promise<number> {
    // Subscriptions with one key, then their subscribers by caller.
    const groups = new Map<string, Map<string | null, Subscriber[]>>();
    for (const subscriber of subscribers) {
      const plan = subscriber.plan;
      if (plan.type !== event.type || !plan.kinds.has(event.kind)) continue;
      let group = groups.get(plan.key);
      if (!group) groups.set(plan.key, (group = new Map()));
      const same = group.get(plan.viewer);
      if (same) same.push(subscriber);
      else group.set(plan.viewer, [subscriber]);
    }
    const batches: Batch[] = [];
    const size = this.#options.maxCallers ?? MAX_CALLERS;
    for (const group of groups.values()) {
      const callers = [...group.values()];
      for (let i = 0; i < callers.length; i += size) batches.push(callers.slice(i, i + size));
    }
    return pooled(batches, (batch) => this.#evaluate(batch, event, store));
  }

  /** Evaluates the event for one batch in one statement and delivers; resolves to the number delivered. */
  async #evaluate(batch: Batch, event: RowEvent, store: Store): Promise<number> {
    const plan = (batch[0] as Subscriber[])[0]?.plan as SubscriptionPlan;
    let payloads;
    try {
      payloads = await eventPayloads(plan, store, event, batch.map((same) => (same[0] as Subscriber).plan.viewer));
    } catch (err) {
      // Which callers the failure concerns is not known: the batch is halved until a failing
      // caller is alone, so that a caller hears of it (with the error) only when their own
      // evaluation fails, and a statement too large to finish in time ends as smaller ones.
      if (batch.length > 1) {
        const half = Math.ceil(batch.length / 2);
        return pooled([batch.slice(0, half), batch.slice(half)], (part) => this.#evaluate(part, event, store));
      }
      const same = batch[0] as Subscriber[];
      for (const subscriber of same) subscriber.deliver(executionResult(eventError(subscriber.plan, err)));
      return same.length;
    }
    let delivered = 0;
    for (const payload of payloads) {
      // Answers without refused fields are alike for every subscriber using the same response key.
      const alike = new Map<string, ExecutionResult>();
      for (const i of payload.callers) {
        for (const subscriber of batch[i] ?? []) {
          const key = subscriber.plan.field.key;
          let answer = alike.get(key);
          if (!answer) {
            const result = eventResult(subscriber.plan, payload.text);
            answer = executionResult(result);
            if (result.errors.length === 0) alike.set(key, answer);
          }
          subscriber.deliver(answer);
          delivered += 1;
        }
      }
    }
    return delivered;
  }
}
