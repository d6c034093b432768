// WebSocket upgrades go through Fastify's own lifecycle (request id, hooks, routing, logs,
// metrics) by way of @fastify/websocket; only `Upgrade: websocket` on an app's path is a
// WebSocket. Node hands every request carrying an `Upgrade` header to the server's upgrade
// listener, so any other one (`Upgrade: h2c`, which `curl --http2` sends) is given back to the
// HTTP parser as the plain request it then is: Upgrade is a header a server may ignore.

import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance } from 'fastify';
import { selectProtocol } from '../../realtime/index.js';

/** An app's path, where WebSockets are served (`/graphql/<appId>`, a query string allowed). */
const APP_PATH = /^\/graphql\/[^/?#]+\/?(?:\?.*)?$/;

function isWebSocketUpgrade(request: IncomingMessage): boolean {
  return request.method === 'GET' && request.headers.upgrade?.toLowerCase() === 'websocket' && APP_PATH.test(request.url ?? '');
}

/** The request as bytes again, without its upgrade, followed by what came after it. */
function asPlainRequest(request: IncomingMessage, head: Buffer): Buffer {
  const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i] as string;
    let value = request.rawHeaders[i + 1] as string;
    const lower = name.toLowerCase();
    if (lower === 'upgrade') continue;
    if (lower === 'connection') {
      value = value.split(',').map((t) => t.trim()).filter((t) => t !== '' && t.toLowerCase() !== 'upgrade').join(', ');
      if (value === '') continue;
    }
    lines.push(`${name}: ${value}`);
  }
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), head]);
}

export function installUpgrades(app: FastifyInstance, options: { maxPayload: number }): void {
  // The plugin listens here instead of on the server: it sees WebSocket upgrades only.
  const webSockets = new EventEmitter();
  void app.register(fastifyWebsocket, {
    options: { server: webSockets as unknown as Server, maxPayload: options.maxPayload, handleProtocols: (protocols) => selectProtocol(protocols) },
    // Open connections are closed by the subscription endpoint (1001); this only stops upgrades.
    preClose(done) {
      this.websocketServer.close();
      done();
    },
  });
  app.server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (isWebSocketUpgrade(request)) {
      webSockets.emit('upgrade', request, socket, head);
      return;
    }
    socket.unshift(asPlainRequest(request, head));
    app.server.emit('connection', socket);
  });
}
