// Connection draining for graceful shutdown: once the server is closing, every response
// carries `Connection: close`, and a kept-alive connection whose response was already under
// way when the shutdown began (a download streaming out) is closed as soon as that response
// ends, so keep-alive clients cannot hold the shutdown open until their idle timeout.

import type { FastifyInstance } from 'fastify';

export function installDrain(app: FastifyInstance): void {
  let closing = false;
  // preClose runs before the listener stops accepting, so responses still in flight see the flag.
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Node closes idle connections once when the listener stops; one that becomes idle later
  // would otherwise wait out its keep-alive timeout. Its response has finished here, and Node
  // counts the connection idle once the event that emitted this has run.
  app.addHook('onResponse', (_request, _reply, done) => {
    if (closing) setImmediate(() => app.server.closeIdleConnections());
    done();
  });
}
