// Login throttling over HTTP on both stores: consecutive failures per username and address,
// failures per address, aliased attempts counted one by one, parallel attempts that cannot
// slip past the limit, and 429 with Retry-After.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../server/harness.js';
import { STORE_KINDS, createTestApp, startApiServer } from './harness.js';
import type { GraphQLResult, Json, TestApp } from './harness.js';

const SCHEMA = 'type Note @model { text: String }';
const LOGIN = 'mutation($i: LoginUserInput!) { loginUser(input: $i) { token } }';

function codes(reply: GraphQLResult): string[] {
  return (reply.body.errors ?? []).map((e: Json) => e.extensions.code as string);
}

describe.each(STORE_KINDS)('login throttling (%s)', (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startApiServer(kind);
  });
  afterAll(async () => server?.close());

  async function appWithUser(username: string, password: string): Promise<TestApp> {
    const app = await createTestApp(server, SCHEMA);
    await app.data('mutation($i: CreateUserInput!) { createUser(input: $i) { changedUser { id } } }', { i: { username, password } });
    return app;
  }
  const login = (app: TestApp, username: string, password: string) => app.gql(LOGIN, { i: { username, password } }, {});

  it('refuses the 11th consecutive attempt, the right password included, with 429 and Retry-After', async () => {
    const app = await appWithUser('ann', 'right-password');
    for (let i = 0; i < 10; i++) expect(codes(await login(app, 'ann', `wrong-${i}`))).toEqual(['UNAUTHENTICATED']);
    const blocked = await login(app, 'ann', 'right-password');
    expect(blocked.status).toBe(429);
    expect(codes(blocked)).toEqual(['RATE_LIMITED']);
    const response = await fetch(app.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: LOGIN, variables: { i: { username: 'ANN', password: 'right-password' } } }),
    });
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('forgets failures after a successful login', async () => {
    const app = await appWithUser('bob', 'right-password');
    for (let i = 0; i < 9; i++) await login(app, 'bob', 'wrong');
    expect(codes(await login(app, 'bob', 'right-password'))).toEqual([]);
    for (let i = 0; i < 9; i++) expect(codes(await login(app, 'bob', 'wrong'))).toEqual(['UNAUTHENTICATED']);
    expect(codes(await login(app, 'bob', 'right-password'))).toEqual([]);
  });

  it('lets exactly 10 of 100 parallel wrong attempts be checked, and refuses the rest', async () => {
    const app = await appWithUser('cat', 'right-password');
    const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => login(app, 'cat', `wrong-${i}`)));
    const all = replies.flatMap(codes);
    expect(all.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(10);
    expect(all.filter((c) => c === 'RATE_LIMITED')).toHaveLength(90);
    expect(codes(await login(app, 'cat', 'right-password'))).toEqual(['RATE_LIMITED']);
  });

  it('counts aliased attempts in one request one by one', async () => {
    const app = await appWithUser('dan', 'right-password');
    const fields = Array.from({ length: 12 }, (_, i) => `a${i}: loginUser(input: { username: "dan", password: "wrong-${i}" }) { token }`);
    const reply = await app.gql(`mutation { ${fields.join('\n')} }`, {}, {});
    expect(reply.status).toBe(429);
    const all = codes(reply);
    expect(all.filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(10);
    expect(all.filter((c) => c === 'RATE_LIMITED')).toHaveLength(2);
  });

  it('refuses an address after 100 failures in an hour, whatever the usernames', async () => {
    const app = await appWithUser('eve', 'right-password');
    const replies = await Promise.all(Array.from({ length: 100 }, (_, i) => login(app, `nobody-${i}`, 'wrong')));
    expect(replies.flatMap(codes).filter((c) => c === 'UNAUTHENTICATED')).toHaveLength(100);
    expect(codes(await login(app, 'eve', 'right-password'))).toEqual(['RATE_LIMITED']);
  });
});
