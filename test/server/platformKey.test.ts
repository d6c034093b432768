// The platform key's comparison (src/server/platformKey.ts): what every request whose token is
// not an admin token of the app goes through, the platform key's digest kept between calls.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generatePlatformKey, keysMatch } from '../../src/server/index.js';
import { adminTokenHash, sha256Bytes } from '../../src/store/index.js';

describe('keysMatch', () => {
  it('accepts the key itself and nothing else, whatever the length', () => {
    const key = generatePlatformKey();
    expect(keysMatch(key, key)).toBe(true);
    expect(keysMatch(key.slice(0, -1), key)).toBe(false);
    expect(keysMatch(`${key}x`, key)).toBe(false);
    expect(keysMatch('', key)).toBe(false);
    expect(keysMatch('x'.repeat(10_000), key)).toBe(false);
    expect(keysMatch(`${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`, key)).toBe(false);
  });

  it('compares with the key it is given on each call, not one it kept', () => {
    const first = generatePlatformKey();
    const second = generatePlatformKey();
    expect(keysMatch(first, first)).toBe(true);
    // A new platform key (another server in the process, a restart in tests): the old one no longer matches.
    expect(keysMatch(first, second)).toBe(false);
    expect(keysMatch(second, second)).toBe(true);
    expect(keysMatch(second, first)).toBe(false);
    expect(keysMatch(first, first)).toBe(true);
  });
});

describe('sha256', () => {
  it('gives the SHA-256 of the UTF-8 text, in hex and as bytes', () => {
    for (const text of ['', 'abc', 'tat_ünïcödé ✓', 'x'.repeat(100_000)]) {
      const expected = createHash('sha256').update(text, 'utf8').digest();
      expect(sha256Bytes(text).equals(expected)).toBe(true);
      expect(adminTokenHash(text)).toBe(expected.toString('hex'));
    }
  });
});
