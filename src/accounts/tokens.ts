// User tokens: JWTs signed with the app's own Ed25519 keys. Verification pins the algorithm
// (EdDSA), the audience (the app id) and the issuer, and picks the key by `kid` among the
// app's keys, retired ones included, so tokens signed before a key rotation keep working
// until they expire. Anything wrong with a token is one UNAUTHENTICATED error.

import { SignJWT, createLocalJWKSet, errors, jwtVerify } from 'jose';
import type { JWK } from 'jose';
import { unauthenticated } from '../errors/index.js';
import type { SigningKeyRow } from '../store/index.js';

/** The one algorithm user tokens are signed and verified with. */
export const TOKEN_ALGORITHM = 'EdDSA';
export const TOKEN_ISSUER = 'tessera';

export interface TokenClaims {
  /** The user's GraphQL id. */
  sub: string;
  /** The fingerprint of the user's password hash when the token was issued. */
  pwf: string;
  /** The user's token generation when the token was issued (raised when every session ends). */
  gen: number;
  /** The app id. */
  aud: string;
  iat: number;
  exp: number;
  /** The id of the key that signed it (a header field, not a claim). */
  kid?: string | undefined;
}

/** The key that signs new tokens: the newest key not retired. */
function signingKey(keys: readonly SigningKeyRow[]): SigningKeyRow {
  const key = keys.find((k) => k.retiredAt === null && k.alg === TOKEN_ALGORITHM);
  if (!key) throw new Error('the app has no active signing key');
  return key;
}

export async function signUserToken(
  keys: readonly SigningKeyRow[],
  claims: { appId: string; userId: string; lifetimeSeconds: number; passwordFingerprint?: string; generation?: number; now?: number },
): Promise<string> {
  const key = signingKey(keys);
  const now = Math.floor((claims.now ?? Date.now()) / 1000);
  // A generation of 0 (every user's until their sessions are ended) is left out.
  const generation = claims.generation ? { gen: claims.generation } : {};
  return new SignJWT({ pwf: claims.passwordFingerprint ?? '', ...generation })
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: key.kid, typ: 'JWT' })
    .setSubject(claims.userId)
    .setAudience(claims.appId)
    .setIssuer(TOKEN_ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + claims.lifetimeSeconds)
    .sign(key.privateJwk as JWK);
}

/** The app's public keys as a JWKS document, for other services to verify its tokens. */
export function publicKeySet(keys: readonly SigningKeyRow[]): { keys: JWK[] } {
  return { keys: keys.map((k) => ({ ...(k.publicJwk as JWK), kid: k.kid, alg: k.alg, use: 'sig' })) };
}

/** The claims of a valid token of app `appId`; UNAUTHENTICATED for anything else. */
export async function verifyUserToken(keys: readonly SigningKeyRow[], appId: string, token: string, now?: number): Promise<TokenClaims> {
  const jwks = createLocalJWKSet(publicKeySet(keys));
  try {
    const { payload, protectedHeader } = await jwtVerify(token, jwks, {
      algorithms: [TOKEN_ALGORITHM],
      audience: appId,
      issuer: TOKEN_ISSUER,
      requiredClaims: ['sub', 'iat', 'exp'],
      ...(now === undefined ? {} : { currentDate: new Date(now) }),
    });
    if (typeof payload.sub !== 'string' || typeof payload.iat !== 'number' || typeof payload.exp !== 'number') throw refused();
    const gen = typeof payload.gen === 'number' && Number.isSafeInteger(payload.gen) ? payload.gen : 0;
    return { sub: payload.sub, pwf: typeof payload.pwf === 'string' ? payload.pwf : '', gen, aud: appId, iat: payload.iat, exp: payload.exp, kid: protectedHeader.kid };
  } catch (err) {
    if (err instanceof errors.JOSEError || err instanceof TypeError) throw refused(err instanceof errors.JWTExpired);
    throw err;
  }
}

function refused(expired = false) {
  return unauthenticated(expired ? 'The token has expired; log in again' : 'The token is invalid, expired or revoked');
}
