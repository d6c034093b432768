// Event fan-out on one instance. The hub listens on the database's event channel (NOTIFY, so
// mutations made through any instance reach every instance), and for each row event runs the
// statement of each matching subscription, under that subscriber's rules, once per group of
// identical subscriptions. Notifications are handled one after another, so each subscriber
// hears events in commit order.

import type { ExecutionResult } from 'graphql';
import { EVENTS_CHANNEL, eventResult } from '../compile/index.js';
import type { AppContext, EventNotice, RowEvent, SubscriptionPlan } from '../compile/index.js';
import { sql } from '../sql/index.js';
import type { Store } from '../store/index.js';
import type { SubscriberDirectory } from './directory.js';

export interface Subscriber {
  plan: SubscriptionPlan;
  /** Hands one event's result to the subscriber's stream. */
  deliver(result: ExecutionResult): void;
  /** The app's schema changed under the subscription: it has to be made again. */
  expire(): void;
}

export interface HubOptions {
  store: Store;
  /** The app's current compiler context, to tell subscriptions made against an older schema version. */
  current(appId: string): Promise<AppContext | undefined>;
  /** Reports a failure that reached no subscriber (an unreadable notification…). */
  onError(err: unknown): void;
  /** Where this instance records the apps it holds subscriptions of. */
  directory: SubscriberDirectory;
  /**
   * Told when a notification for an app with subscribers here has been handled: its row events,
   * the results delivered to subscribers, and the seconds from its arrival (queueing included).
   */
  onHandled?(report: { events: number; deliveries: number; seconds: number }): void;
}

/** How many event statements one notification runs at once. */
const CONCURRENT_EVALUATIONS = 8;

export class RealtimeHub {
  readonly #options: HubOptions;
  readonly #apps = new Map<string, Set<Subscriber>>();
  #unlisten: Promise<() => Promise<void>> | undefined;
  #queue: Promise<void> = Promise.resolve();
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
    this.#unlisten ??= this.#options.store.listen(EVENTS_CHANNEL, (payload) => this.#enqueue(payload));
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

  #enqueue(payload: string): void {
    const arrived = performance.now();
    this.#queue = this.#queue.then(() => this.#handle(payload, arrived)).catch((err: unknown) => this.#options.onError(err));
  }

  async #handle(payload: string, arrived: number): Promise<void> {
    const notice = JSON.parse(payload) as EventNotice;
    const subscribers = this.#apps.get(notice.a);
    if (!subscribers || subscribers.size === 0) return;
    const events = await this.#events(notice);
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
    for (const event of events) deliveries += await this.#dispatch([...subscribers], event);
    this.#options.onHandled?.({ events: events.length, deliveries, seconds: (performance.now() - arrived) / 1000 });
  }

  /** The notice's events, read from the catalog when they were too large to notify. */
  async #events(notice: EventNotice): Promise<RowEvent[]> {
    let items = notice.e;
    if (notice.r !== undefined) {
      const { rows } = await this.#options.store.query<{ payload: string }>(sql`SELECT payload FROM tessera.realtime_events WHERE id = ${notice.r}::bigint`);
      const stored = rows[0] ? (JSON.parse(rows[0].payload) as EventNotice) : undefined;
      items = stored?.e;
    }
    return (items ?? []).map(([type, kind, id, row]) => ({ type, kind, id, ...(row === undefined ? {} : { row }) }));
  }

  /** Runs the event's statements and delivers their results; resolves to the number delivered. */
  async #dispatch(subscribers: Subscriber[], event: RowEvent): Promise<number> {
    const groups = new Map<string, Subscriber[]>();
    for (const subscriber of subscribers) {
      const plan = subscriber.plan;
      if (plan.type !== event.type || !plan.kinds.has(event.kind)) continue;
      const group = groups.get(plan.key);
      if (group) group.push(subscriber);
      else groups.set(plan.key, [subscriber]);
    }
    const pending = [...groups.values()];
    let delivered = 0;
    const worker = async () => {
      for (let group = pending.shift(); group; group = pending.shift()) {
        const first = group[0] as Subscriber;
        const result = await eventResult(first.plan, this.#options.store, event);
        if (!result) continue;
        const answer: ExecutionResult = { data: JSON.parse(result.data) as Record<string, unknown>, ...(result.errors.length > 0 ? { errors: result.errors } : {}) };
        for (const subscriber of group) subscriber.deliver(answer);
        delivered += group.length;
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_EVALUATIONS, pending.length) }, worker));
    return delivered;
  }
}
