// Signed download URLs: HMAC-SHA256 over `<appId>/<fileId>/<expires>` (with `/<variant>` for an
// image variant, so a URL gives its holder that one variant and no other) under a key derived from
// the server's secret key, checked in constant time. The data API computes the same HMAC inside
// its SQL statement (from the two padded keys below), so a URL is only ever made for a row the
// statement's rules let the caller read.

import { createHmac, timingSafeEqual } from 'node:crypto';

/** HMAC's block size for SHA-256. */
const BLOCK = 64;

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

export class FileUrlSigner {
  readonly #key: Buffer;
  constructor(secret: string | Buffer) {
    // A key of its own, so a URL signature says nothing about other uses of the secret key.
    this.#key = createHmac('sha256', secret).update('tessera file download urls v1').digest();
  }

  /** The text signed for one URL (of the file itself when `variant` is undefined). */
  static message(appId: string, fileId: string, expires: number, variant?: string): string {
    return variant === undefined ? `${appId}/${fileId}/${expires}` : `${appId}/${fileId}/${expires}/${variant}`;
  }

  sign(appId: string, fileId: string, expires: number, variant?: string): string {
    return createHmac('sha256', this.#key).update(FileUrlSigner.message(appId, fileId, expires, variant)).digest('hex');
  }

  /**
   * Whether `signature` is this server's for the file (or its image `variant`) until `expires`
   * (unix seconds), at `now` (ms).
   */
  check(appId: string, fileId: string, expires: string, signature: string, variant?: string, now = Date.now()): SignatureCheck {
    if (!/^\d{1,12}$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) return 'invalid';
    const expected = Buffer.from(this.sign(appId, fileId, Number(expires), variant), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return 'invalid';
    return Number(expires) * 1000 <= now ? 'expired' : 'valid';
  }

  /**
   * The key XORed with HMAC's inner and outer pads (hex), for the statement that computes the
   * signature as `sha256(outer || sha256(inner || message))`.
   */
  pads(): { inner: string; outer: string } {
    const padded = Buffer.alloc(BLOCK);
    this.#key.copy(padded);
    const xor = (byte: number) => Buffer.from(padded.map((b) => b ^ byte)).toString('hex');
    return { inner: xor(0x36), outer: xor(0x5c) };
  }
}

/**
 * When a URL made now expires: at least `lifetimeSeconds` from now, rounded up to the minute
 * so that URLs made within the same minute are equal (and a browser's cache holds).
 */
export function urlExpiry(lifetimeSeconds: number, now = Date.now()): number {
  return Math.ceil((now / 1000 + lifetimeSeconds) / 60) * 60;
}
