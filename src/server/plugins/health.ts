// Health endpoints for orchestrators: /healthz says the process is up, /readyz that the
// catalog's store answers (503 otherwise, so a load balancer stops sending traffic), and what
// each other cluster is doing: one that is down affects only its own apps, so it is listed
// but does not make the instance unready.

import type { FastifyInstance } from 'fastify';
import type { AppHome, Store } from '../../store/index.js';

export interface HealthOptions {
  /** The store holding the catalog (`main`). */
  store: Store;
  /** The other clusters this instance has open (none without clusters). */
  clusters?: () => AppHome[];
}

async function answers(store: Store): Promise<boolean> {
  return store.ping().catch(() => false);
}

export function installHealth(app: FastifyInstance, options: HealthOptions): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    const ready = await answers(options.store);
    if (!ready) request.log.warn('the catalog store does not answer');
    const others = (options.clusters?.() ?? []).filter((home) => home.store !== options.store);
    const states = await Promise.all(others.map(async (home) => ({ name: home.cluster, status: (await answers(home.store)) ? 'ok' : 'unavailable' })));
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ok' : 'unavailable',
      clusters: [{ name: 'main', status: ready ? 'ok' : 'unavailable' }, ...states],
    });
  });
}
