// A function's secret and header values as stored: sealed under the server's secret key, each
// for its own place (app, function, what it is), so a sealed value copied elsewhere opens
// nothing. Opening fails (UnsealError) under another key.

import type { SecretBox } from '../secrets/index.js';
import type { FunctionRow } from '../store/index.js';
import type { FunctionDefinition, FunctionHeader } from './definition.js';
import { sealContext } from './definition.js';

export class FunctionSecrets {
  readonly #box: SecretBox;

  constructor(box: SecretBox) {
    this.#box = box;
  }

  sealSecret(appId: string, name: string, secret: string): string {
    return this.#box.seal(secret, sealContext(appId, name, 'secret'));
  }

  openSecret(appId: string, name: string, sealed: string): string {
    return this.#box.open(sealed, sealContext(appId, name, 'secret'));
  }

  sealHeaders(appId: string, name: string, headers: readonly FunctionHeader[]): FunctionHeader[] {
    return headers.map((h) => ({ name: h.name, value: this.#box.seal(h.value, sealContext(appId, name, `header:${h.name.toLowerCase()}`)) }));
  }

  openHeaders(appId: string, name: string, sealed: readonly FunctionHeader[]): FunctionHeader[] {
    return sealed.map((h) => ({ name: h.name, value: this.#box.open(h.value, sealContext(appId, name, `header:${h.name.toLowerCase()}`)) }));
  }

  /** A stored function ready to call: its definition (header values opened) and its secret. */
  open(row: FunctionRow): { definition: FunctionDefinition; secret: string } {
    return {
      definition: {
        appId: row.appId,
        name: row.name,
        kind: row.kind,
        url: row.url,
        headers: this.openHeaders(row.appId, row.name, row.headers),
        timeoutMs: row.timeoutMs,
        enabled: row.enabled,
        order: row.order,
        operations: row.operations,
      },
      secret: this.openSecret(row.appId, row.name, row.sealedSecret),
    };
  }
}
