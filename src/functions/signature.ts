// The signature of every call: `Tessera-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of
// "<t>.<body>" with the function's secret>`. The time is signed with the body, so a captured
// call cannot be replayed later than a receiver's tolerance; `v1` names the scheme, so a
// later one can be sent beside it.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'Tessera-Signature';
export const EVENT_ID_HEADER = 'Tessera-Event-Id';

/** A fresh signing secret: 32 random bytes, base64url, prefixed so it is recognisable in a leak scan. */
export function generateFunctionSecret(): string {
  return `tfs_${randomBytes(32).toString('base64url')}`;
}

function hmac(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

/** The header value signing `body` at `timestamp` (unix seconds; now by default). */
export function signatureHeader(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${hmac(secret, timestamp, body)}`;
}

/**
 * Whether `header` signs `body` with `secret` at a time within `toleranceSeconds` of now (a
 * receiver's check; any `v1` entry may match, for a header carrying several).
 */
export function verifySignature(secret: string, header: string | null | undefined, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
  if (typeof header !== 'string' || header.length > 4096) return false;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value, ...rest] = part.trim().split('=');
    if (value === undefined || rest.length > 0) return false;
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    else if (key === 'v1' && /^[0-9a-f]{64}$/.test(value)) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) return false;
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(hmac(secret, timestamp, body), 'hex');
  return signatures.some((s) => timingSafeEqual(Buffer.from(s, 'hex'), expected));
}
