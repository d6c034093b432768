// When a failed event delivery is tried again: exponential backoff with jitter (1 s, 2 s, 4 s,
// … capped at 1 h, each between 80 % and 100 % of its step so instances that failed together do
// not retry together), for at least 24 hours, then dead. Tests shorten it through the server's
// options.

export interface DeliverySchedule {
  /** The first retry's delay (default 1 s). */
  retryBaseMs: number;
  /** The longest delay between two attempts (default 1 h). */
  retryMaxMs: number;
  /** How long an event is retried before it is dead, from its creation or redelivery (default 24 h). */
  deadAfterMs: number;
  /** How often each instance looks for due deliveries besides being woken (default 1 s). */
  pollMs: number;
  /** Deliveries one instance calls at once (default 16). */
  concurrency: number;
  /** How long a claim outlives its function's timeout before another instance may take it over (default 10 s). */
  leaseMarginMs: number;
  /** How often dead-marking and pruning run (default 1 min). */
  sweepMs: number;
  /** How long delivered and dead deliveries are kept for the listing (default 7 days). */
  retentionMs: number;
}

export const DEFAULT_DELIVERY_SCHEDULE: Readonly<DeliverySchedule> = {
  retryBaseMs: 1_000,
  retryMaxMs: 60 * 60 * 1000,
  deadAfterMs: 24 * 60 * 60 * 1000,
  pollMs: 1_000,
  concurrency: 16,
  leaseMarginMs: 10_000,
  sweepMs: 60_000,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
};

/** The delay before the attempt after `attempts` failed ones (1 → about retryBaseMs). */
export function retryDelayMs(attempts: number, schedule: Pick<DeliverySchedule, 'retryBaseMs' | 'retryMaxMs'>, random: () => number = Math.random): number {
  const step = Math.min(schedule.retryMaxMs, schedule.retryBaseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  return Math.round(step * (0.8 + 0.2 * random()));
}
