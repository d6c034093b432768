// Admin token verdicts are kept by the token's text: made-up tokens, however many and however
// long, must not grow what the server keeps; a verdict must not outlive its age, nor a change
// to its app heard of while it was read.

import { describe, expect, it } from 'vitest';
import { AppRegistry } from '../../src/server/appRegistry.js';
import { MAX_KEPT_TOKEN, MAX_VERDICTS, TOKEN_AGE_MS, TokenVerdicts } from '../../src/server/tokenVerdicts.js';
import { STORE_KINDS, createTestApp } from '../api/harness.js';
import { startTestServer } from './harness.js';

describe('admin token verdicts', () => {
  it('answers a verdict kept for the app and token, and nothing for another app or token', () => {
    const verdicts = new TokenVerdicts();
    verdicts.set('aaaaaaaaaaaa', 'tat_one', true, verdicts.generation, 1_000);
    verdicts.set('aaaaaaaaaaaa', 'tat_two', false, verdicts.generation, 1_000);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_one', 1_001)).toBe(true);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_two', 1_001)).toBe(false);
    expect(verdicts.get('bbbbbbbbbbbb', 'tat_one', 1_001)).toBeUndefined();
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_three', 1_001)).toBeUndefined();
  });

  it('lets a verdict go once it is older than its age, so a revocation elsewhere is seen', () => {
    const verdicts = new TokenVerdicts();
    verdicts.set('aaaaaaaaaaaa', 'tat_one', true, verdicts.generation, 1_000);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_one', 1_000 + TOKEN_AGE_MS - 1)).toBe(true);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_one', 1_000 + TOKEN_AGE_MS)).toBeUndefined();
  });

  it('keeps no token longer than any issued one: 16 KiB made-up tokens take no memory', () => {
    const verdicts = new TokenVerdicts();
    for (let i = 0; i < 1_000; i += 1) verdicts.set('aaaaaaaaaaaa', `tat_${String(i).padStart(16 * 1024, 'x')}`, false);
    expect(verdicts.size).toBe(0);
    const issued = `tat_${'A'.repeat(43)}`;
    expect(issued.length).toBeLessThanOrEqual(MAX_KEPT_TOKEN);
    verdicts.set('aaaaaaaaaaaa', issued, true);
    expect(verdicts.get('aaaaaaaaaaaa', issued)).toBe(true);
  });

  it('never keeps more than its bound, however many distinct tokens are tried, across apps', () => {
    const verdicts = new TokenVerdicts();
    for (let i = 0; i < 3 * MAX_VERDICTS; i += 1) {
      verdicts.set(`app${String(i % 7).padStart(9, '0')}`, `tat_${i}`, false);
      expect(verdicts.size).toBeLessThanOrEqual(MAX_VERDICTS);
    }
    // The same token again is one verdict, not two.
    verdicts.clear();
    verdicts.set('aaaaaaaaaaaa', 'tat_one', false);
    verdicts.set('aaaaaaaaaaaa', 'tat_one', true);
    expect(verdicts.size).toBe(1);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_one')).toBe(true);
  });

  it('does not keep a verdict read before its app changed: the read may predate a revocation', () => {
    const verdicts = new TokenVerdicts();
    // A read starts, a change forgets every verdict (a token revoked), the read ends.
    const since = verdicts.generation;
    verdicts.clear();
    verdicts.set('aaaaaaaaaaaa', 'tat_one', true, since);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_one')).toBeUndefined();
    expect(verdicts.size).toBe(0);
    // A read with no change in between is kept.
    verdicts.set('aaaaaaaaaaaa', 'tat_one', true, verdicts.generation);
    expect(verdicts.get('aaaaaaaaaaaa', 'tat_one')).toBe(true);
  });
});

describe.each(STORE_KINDS)('an app registry reading a token while the app changes (%s)', (kind) => {
  it('answers the read, but keeps no verdict when a change to the app was heard of during it', async () => {
    const server = await startTestServer(kind);
    try {
      const app = await createTestApp(server, 'type Note @model { text: String }');
      const registry = new AppRegistry(server.store);
      const live = await registry.get(app.id);
      if (!live) throw new Error('the app did not load');
      // The catalog is read; before its answer comes, the app changes (as when a revocation's
      // notification arrives): the answer may predate the revocation.
      const reading = registry.isAdminToken(live, app.token);
      registry.invalidate(app.id);
      expect(await reading).toBe(true);
      expect(registry.knownAdminToken(live, app.token)).toBeUndefined();
      // Read again with nothing in between, it is kept.
      expect(await registry.isAdminToken(live, app.token)).toBe(true);
      expect(registry.knownAdminToken(live, app.token)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
