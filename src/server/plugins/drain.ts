// Connection draining for graceful shutdown: once the server is closing, every response
// carries `Connection: close`, so keep-alive clients cannot hold the shutdown open.

import type { FastifyInstance } from 'fastify';

export function installDrain(app: FastifyInstance): void {
  let closing = false;
  // preClose runs before the listener stops accepting, so responses still in flight see the flag.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
