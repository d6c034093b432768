// Fan-out across instances on one PostgreSQL database: a subscriber on one server process
// hears mutations made through another, both ways; and a client whose server goes away
// reconnects to the next one on the same address and keeps hearing events.

import { createServer as createHttpServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdminService } from '../../src/admin/index.js';
import { createServer } from '../../src/server/index.js';
import { openStore } from '../../src/store/index.js';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { cleanEnv, startServe } from '../cli/run.js';
import type { ServeChild } from '../cli/run.js';
import { STORES } from '../helpers/stores.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';
import { client, openSubscriptions, subscribe, waitForSubscriptions } from './harness.js';

const SCHEMA = 'type Message @model { text: String! }';
const ON_CREATE = 'subscription { subscribeToMessage(mutations: [createMessage]) { value { text } } }';

describe.runIf(STORES.includes('postgres'))('subscriptions across instances (postgres)', () => {
  let server: TestServer;
  let app: TestApp;
  let child: ServeChild;

  beforeAll(async () => {
    server = await startTestServer('postgres');
    app = await createTestApp(server, SCHEMA);
    child = await startServe(['serve'], cleanEnv({ DATABASE_URL: server.databaseUrl as string, TESSERA_ADMIN_KEY: server.key }));
  });
  afterAll(async () => {
    child?.child.kill('SIGTERM');
    await child?.exited;
    await server?.close();
  });

  it('delivers to a subscriber on one process the mutations made through another, both ways', async () => {
    const other = `${child.url}/graphql/${app.id}`;
    const onChild = subscribe(client(other, app.token), ON_CREATE);
    const onServer = subscribe(client(app.endpoint, app.token), ON_CREATE);
    await waitForSubscriptions(child.url, 1);
    await waitForSubscriptions(server.base, 1);
    await app.data('mutation { createMessage(input: { text: "through the first" }) { clientMutationId } }');
    const viaChild = await fetch(other, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${app.token}` },
      body: JSON.stringify({ query: 'mutation { createMessage(input: { text: "through the second" }) { clientMutationId } }' }),
    });
    expect(viaChild.status).toBe(200);
    const texts = (events: { data: { subscribeToMessage: { value: { text: string } } } }[]) => events.map((e) => e.data.subscribeToMessage.value.text).sort();
    expect(texts((await onChild.take(2)) as never)).toEqual(['through the first', 'through the second']);
    expect(texts((await onServer.take(2)) as never)).toEqual(['through the first', 'through the second']);
    await onChild.close();
    await onServer.close();
  });

  it('reconnects a client whose server shut down to the next server at that address, subscription and all', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createHttpServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const start = async () => {
      const store = await openStore({ databaseUrl: server.databaseUrl as string });
      const http = createServer({ store, admin: createAdminService(store), adminKey: server.key, logLevel: 'silent' as never });
      await http.listen({ port, host: '127.0.0.1' });
      return { base: `http://127.0.0.1:${port}`, close: async () => { await http.close(); await store.close(); } };
    };
    const first = await start();
    const c = client(`${first.base}/graphql/${app.id}`, app.token, { retryAttempts: 20 });
    const closes: number[] = [];
    c.on('closed', (event) => void closes.push((event as { code: number }).code));
    const sub = subscribe(c, ON_CREATE);
    await waitForSubscriptions(first.base, 1);
    await first.close();
    const second = await start();
    await waitForSubscriptions(second.base, 1, 15_000);
    expect(closes[0]).toBe(1001);
    await app.data('mutation { createMessage(input: { text: "after the restart" }) { clientMutationId } }');
    const [event] = await sub.take(1);
    expect(event?.data.subscribeToMessage.value.text).toBe('after the restart');
    await c.dispose();
    await second.close();
    expect(await openSubscriptions(server.base)).toBe(0);
  });
});
