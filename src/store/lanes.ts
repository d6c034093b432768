// The PostgreSQL driver's connections, split into lanes (small pools) so that each app's
// statements go to the same few connections: a PostgreSQL backend caches the catalog entries
// of every table it touches, so a connection that serves a share of the apps answers them from
// warm caches, and holds less memory, where one that serves every app keeps loading entries
// (docs/scaling.md). An app's lane is a preference: when it has no free connection and another
// lane has one, the statement takes that one, so a single busy app still uses every connection.

import { createHash } from 'node:crypto';
import pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';

export interface LaneOptions {
  /** Connections in all (at least one per lane). */
  connections: number;
  /** Lanes to split them into (default LANE_COUNT, at most one per connection). */
  lanes?: number | undefined;
}

/** Default lanes: with the default pool of 10, two connections each. */
export const LANE_COUNT = 5;

function laneOf(affinity: string, lanes: number): number {
  return createHash('sha1').update(affinity).digest().readUInt32BE(0) % lanes;
}

export class Lanes {
  readonly #pools: pg.Pool[];
  #next = 0;

  constructor(config: PoolConfig, options: LaneOptions) {
    const count = Math.max(1, Math.min(options.lanes ?? LANE_COUNT, options.connections));
    this.#pools = Array.from({ length: count }, (_, i) => {
      // The connections spread over the lanes, the first ones taking what does not divide.
      const max = Math.floor(options.connections / count) + (i < options.connections % count ? 1 : 0);
      const pool = new pg.Pool({ ...config, max });
      // An idle client whose connection dies is dropped by the pool; the next checkout gets a new one.
      pool.on('error', () => undefined);
      return pool;
    });
  }

  /** A connection, from the affinity's lane when it has one free (else any free one, else the shortest queue). */
  connect(affinity?: string): Promise<PoolClient> {
    const pools = this.#pools;
    const preferred = pools[affinity === undefined ? this.#next++ % pools.length : laneOf(affinity, pools.length)]!;
    if (free(preferred) || pools.length === 1) return preferred.connect();
    const other = pools.find(free);
    if (other) return other.connect();
    let shortest = preferred;
    for (const pool of pools) if (pool.waitingCount < shortest.waitingCount) shortest = pool;
    return shortest.connect();
  }

  /** Connections by state over every lane. */
  counts(): { idle: number; used: number; waiting: number } {
    let idle = 0;
    let total = 0;
    let waiting = 0;
    for (const pool of this.#pools) {
      idle += pool.idleCount;
      total += pool.totalCount;
      waiting += pool.waitingCount;
    }
    return { idle, used: total - idle, waiting };
  }

  async end(): Promise<void> {
    await Promise.all(this.#pools.map((pool) => pool.end()));
  }
}

/** A lane with an idle connection, or room to open one. */
function free(pool: pg.Pool): boolean {
  return pool.idleCount > 0 || pool.totalCount < (pool.options.max ?? 10);
}
