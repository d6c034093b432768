// User tokens: what verifies, and the forgeries that must not (alg none, algorithm confusion,
// another app's audience, tampering, unknown or foreign keys, expiry).

import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { SignJWT, UnsecuredJWT, base64url } from 'jose';
import { describe, expect, it } from 'vitest';
import { publicKeySet, signUserToken, verifyUserToken } from '../../src/accounts/index.js';
import type { SigningKeyRow } from '../../src/store/index.js';

function key(retired = false, createdAt = new Date()): SigningKeyRow {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = randomUUID();
  return {
    kid,
    alg: 'EdDSA',
    privateJwk: { ...privateKey.export({ format: 'jwk' }), kid, alg: 'EdDSA' },
    publicJwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'EdDSA' },
    createdAt,
    retiredAt: retired ? new Date() : null,
  };
}

const APP = 'app000000001';
const USER = 'VXNlcjowMDAwMDAwMC0wMDAwLTQwMDAtODAwMC0wMDAwMDAwMDAwMDE';

async function refusal(keys: SigningKeyRow[], token: string, appId = APP): Promise<unknown> {
  return verifyUserToken(keys, appId, token).then(
    () => undefined,
    (err: unknown) => err,
  );
}

describe('user tokens', () => {
  const keys = [key()];

  it('signs a token that verifies with sub, aud, iss, iat, exp and kid', async () => {
    const token = await signUserToken(keys, { appId: APP, userId: USER, lifetimeSeconds: 3600 });
    const [header, payload] = token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>);
    expect(header).toEqual({ alg: 'EdDSA', kid: keys[0]?.kid, typ: 'JWT' });
    expect(payload).toMatchObject({ sub: USER, aud: APP, iss: 'tessera' });
    expect((payload?.exp as number) - (payload?.iat as number)).toBe(3600);
    const claims = await verifyUserToken(keys, APP, token);
    expect(claims.sub).toBe(USER);
  });

  it('refuses an expired token, saying so', async () => {
    const token = await signUserToken(keys, { appId: APP, userId: USER, lifetimeSeconds: 60, now: Date.now() - 120_000 });
    const err = (await refusal(keys, token)) as { code?: string; message?: string };
    expect(err.code).toBe('UNAUTHENTICATED');
    expect(err.message).toMatch(/expired/);
  });

  it('refuses a token of another app (aud)', async () => {
    const token = await signUserToken(keys, { appId: 'otherapp0001', userId: USER, lifetimeSeconds: 60 });
    expect(await refusal(keys, token)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses alg none, and HS256 signed with the public key (algorithm confusion)', async () => {
    const unsecured = new UnsecuredJWT({}).setSubject(USER).setAudience(APP).setIssuer('tessera').setIssuedAt().setExpirationTime('1h').encode();
    expect(await refusal(keys, unsecured)).toMatchObject({ code: 'UNAUTHENTICATED' });
    const publicX = base64url.decode(String((keys[0]?.publicJwk as { x: string }).x));
    const confused = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: keys[0]?.kid as string })
      .setSubject(USER).setAudience(APP).setIssuer('tessera').setIssuedAt().setExpirationTime('1h')
      .sign(publicX);
    expect(await refusal(keys, confused)).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses a tampered payload, a token signed by a key the app does not have, and garbage', async () => {
    const token = await signUserToken(keys, { appId: APP, userId: USER, lifetimeSeconds: 60 });
    const [h, p, s] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forgedPayload = Buffer.from(JSON.stringify({ ...payload, sub: 'someone-else' })).toString('base64url');
    expect(await refusal(keys, `${h}.${forgedPayload}.${s}`)).toMatchObject({ code: 'UNAUTHENTICATED' });
    const foreign = await signUserToken([key()], { appId: APP, userId: USER, lifetimeSeconds: 60 });
    expect(await refusal(keys, foreign)).toMatchObject({ code: 'UNAUTHENTICATED' });
    for (const garbage of ['', 'abc', 'a.b.c', `${h}.${p}`, `${token}x`]) {
      expect(await refusal(keys, garbage), garbage).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
  });

  it('signs with the newest active key and still verifies tokens of a retired key', async () => {
    const old = key();
    const oldToken = await signUserToken([old], { appId: APP, userId: USER, lifetimeSeconds: 60 });
    const rotated = [key(), { ...old, retiredAt: new Date() }];
    const newToken = await signUserToken(rotated, { appId: APP, userId: USER, lifetimeSeconds: 60 });
    expect(JSON.parse(Buffer.from(newToken.split('.')[0] as string, 'base64url').toString('utf8')).kid).toBe(rotated[0]?.kid);
    expect((await verifyUserToken(rotated, APP, oldToken)).sub).toBe(USER);
    expect((await verifyUserToken(rotated, APP, newToken)).sub).toBe(USER);
  });

  it('publishes only public key material', () => {
    const set = publicKeySet(keys);
    expect(set.keys).toHaveLength(1);
    expect(set.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: keys[0]?.kid, alg: 'EdDSA', use: 'sig' });
    expect(set.keys[0]).not.toHaveProperty('d');
  });
});
