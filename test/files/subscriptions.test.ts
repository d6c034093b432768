// A File's url over subscriptions: subscribers who may read the File get a working signed URL
// in the event; others get no event at all (the rule is in the subscription's statement).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, subscribe, waitForSubscriptions } from '../realtime/harness.js';
import { STORE_KINDS } from '../server/harness.js';
import { createTestApp, signUp, startFileServer, uploadFile } from './harness.js';
import type { FileServer } from './harness.js';

const SUBSCRIBE = 'subscription { subscribeToFile(mutations: [createFile]) { mutation value { name url } } }';

describe.each(STORE_KINDS)('File events (%s)', (kind) => {
  let fs: FileServer;
  beforeAll(async () => {
    fs = await startFileServer(kind, 'disk');
  });
  afterAll(async () => fs?.close());

  it('carry a signed url to those who may read the File, and nothing to others', async () => {
    const app = await createTestApp(fs.server, '');
    const alice = await signUp(app, 'alice');
    const bob = await signUp(app, 'bob');
    const token = (headers: Record<string, string>) => (headers.authorization as string).slice('Bearer '.length);
    const aliceClient = client(app.endpoint, token(alice.headers));
    const bobClient = client(app.endpoint, token(bob.headers));
    const own = subscribe(aliceClient, SUBSCRIBE);
    const other = subscribe(bobClient, SUBSCRIBE);
    try {
      await waitForSubscriptions(fs.server.base, 2);
      await uploadFile(app, alice.headers, { filename: 'live.txt', bytes: 'live' });
      const [event] = await own.take(1);
      expect(event.data.subscribeToFile.value.name).toBe('live.txt');
      expect(await (await fetch(event.data.subscribeToFile.value.url)).text()).toBe('live');
      expect(await other.settle(500)).toEqual([]);
    } finally {
      await own.close();
      await other.close();
      await aliceClient.dispose();
      await bobClient.dispose();
    }
  });
});
