// Secrets the server must read back — an OpenID provider's client secret, which is sent to the
// provider as it is — sealed for storage: AES-256-GCM under a key derived from the server's
// secret key (TESSERA_SECRET_KEY), which is kept outside the database. A copy of the catalog
// (a backup, a dump, a read through SQL) holds no usable secret without that key.

import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/** Sealed values start with this: version 1, AES-256-GCM. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Secret keys given by the operator must be at least this long (a generated one is 47 characters). */
export const MIN_SECRET_KEY_LENGTH = 32;

/** A fresh secret key: 32 random bytes, base64url, prefixed so it is recognisable in a leak scan. */
export function generateSecretKey(): string {
  return `tsec_${randomBytes(32).toString('base64url')}`;
}

/** A sealed value could not be opened: sealed under another key, altered, or for another place. */
export class UnsealError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsealError';
  }
}

export class SecretBox {
  readonly #key: Buffer;
  /** Names the key a value was sealed under (a hash of the derived key; it reveals nothing of it). */
  readonly keyId: string;

  constructor(secretKey: string) {
    if (secretKey.length < MIN_SECRET_KEY_LENGTH) throw new Error(`The secret key must be at least ${MIN_SECRET_KEY_LENGTH} characters long`);
    this.#key = Buffer.from(hkdfSync('sha256', secretKey, 'tessera', 'tessera secret box v1', 32));
    this.keyId = createHash('sha256').update(this.#key).digest('base64url').slice(0, 12);
  }

  /**
   * Seals `plain` for one place (`context`, e.g. the app and provider it belongs to): opened
   * with another context, the value is refused, so a sealed secret copied to another row is
   * worthless there.
   */
  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, this.keyId, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The secret sealed for `context`; UnsealError when it cannot be. */
  open(sealed: string, context: string): string {
    const [version, keyId, iv, body, tag, ...rest] = sealed.split('.');
    if (version !== VERSION || keyId === undefined || iv === undefined || body === undefined || tag === undefined || rest.length > 0) {
      throw new UnsealError('The sealed secret is not in a known format');
    }
    if (keyId !== this.keyId) throw new UnsealError(`The secret was sealed under another secret key (key id ${keyId}, this server's is ${this.keyId})`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new UnsealError('The sealed secret was altered or belongs elsewhere');
    }
  }
}
