// Sealing secrets the server must read back: what is sealed opens only with the same key and
// for the same place, and any change to a sealed value is detected.

import { describe, expect, it } from 'vitest';
import { SecretBox, UnsealError, generateSecretKey } from '../../src/secrets/index.js';

describe('SecretBox', () => {
  const box = new SecretBox(generateSecretKey());

  it('opens what it sealed, for the same place; each sealing differs', () => {
    const sealed = box.seal('client-secret-1', 'oidc:app1:web');
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('client-secret-1');
    expect(box.open(sealed, 'oidc:app1:web')).toBe('client-secret-1');
    expect(box.seal('client-secret-1', 'oidc:app1:web')).not.toBe(sealed);
    expect(box.open(box.seal('', 'x'), 'x')).toBe('');
    expect(box.open(box.seal('ünïcødé ✓', 'x'), 'x')).toBe('ünïcødé ✓');
  });

  it('refuses to open a value for another place (a sealed secret copied to another row)', () => {
    const sealed = box.seal('client-secret-1', 'oidc:app1:web');
    expect(() => box.open(sealed, 'oidc:app2:web')).toThrow(UnsealError);
  });

  it('refuses a value sealed under another key, naming both key ids', () => {
    const other = new SecretBox(generateSecretKey());
    expect(other.keyId).not.toBe(box.keyId);
    expect(() => other.open(box.seal('s', 'x'), 'x')).toThrow(new RegExp(`key id ${box.keyId}.*${other.keyId}`));
  });

  it('refuses an altered or malformed value', () => {
    const sealed = box.seal('client-secret-1', 'x');
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3] as string, 'base64url');
    body[0] = (body[0] as number) ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => box.open(parts.join('.'), 'x')).toThrow(UnsealError);
    for (const bad of ['', 'v1', 'v2.a.b.c.d', `${sealed}.extra`]) expect(() => box.open(bad, 'x')).toThrow(UnsealError);
  });

  it('derives the same key from the same secret key (every instance of a deployment opens what another sealed)', () => {
    const key = generateSecretKey();
    expect(new SecretBox(key).open(new SecretBox(key).seal('shared', 'x'), 'x')).toBe('shared');
    expect(() => new SecretBox('too short')).toThrow(/at least 32/);
  });
});
