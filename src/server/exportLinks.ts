// Signed download links of app archives: `<appId>.<expiry>.<HMAC>` with a key derived from the
// server's secret key, so any instance of a deployment honours a link another one issued, and
// a link cannot be forged, altered or used past its expiry (15 minutes).

import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { isAppId } from '../store/index.js';

export const EXPORT_LINK_LIFETIME_MS = 15 * 60 * 1000;

export class ExportLinks {
  readonly #key: Buffer;

  constructor(secretKey: string) {
    this.#key = Buffer.from(hkdfSync('sha256', secretKey, 'tessera', 'tessera export links v1', 32));
  }

  #mac(appId: string, expires: number): Buffer {
    return createHmac('sha256', this.#key).update(`${appId}.${expires}`).digest();
  }

  /** A token naming the app until `now + lifetimeMs`. */
  sign(appId: string, now = Date.now(), lifetimeMs = EXPORT_LINK_LIFETIME_MS): { token: string; expiresAt: Date } {
    const expires = Math.floor((now + lifetimeMs) / 1000);
    return { token: `${appId}.${expires}.${this.#mac(appId, expires).toString('base64url')}`, expiresAt: new Date(expires * 1000) };
  }

  /** The app a token names; undefined when it is malformed, altered or expired. */
  verify(token: string, now = Date.now()): string | undefined {
    const [appId, expiresText, mac, ...rest] = token.split('.');
    if (appId === undefined || expiresText === undefined || mac === undefined || rest.length > 0) return undefined;
    if (!isAppId(appId) || !/^\d{1,12}$/.test(expiresText)) return undefined;
    const expires = Number(expiresText);
    const given = Buffer.from(mac, 'base64url');
    const expected = this.#mac(appId, expires);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return expires * 1000 > now ? appId : undefined;
  }
}
