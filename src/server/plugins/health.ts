// Health endpoints for orchestrators: /healthz says the process is up, /readyz that the
// store answers (503 otherwise, so a load balancer stops sending traffic).

import type { FastifyInstance } from 'fastify';
import type { Store } from '../../store/index.js';

export function installHealth(app: FastifyInstance, store: Store): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    let ready = false;
    try {
      ready = await store.ping();
    } catch (err) {
      request.log.warn({ err }, 'store ping failed');
    }
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ok' : 'unavailable' });
  });
}
