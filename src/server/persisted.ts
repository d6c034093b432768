// Persisted documents: Apollo's automatic persisted queries — a client sends a document's
// SHA-256 alone, and the document once with its hash when the server does not know it yet — and
// each app's trusted documents, an allow-list that, when enforced, is all the app's API runs.
// Registered documents are kept per instance in a bounded cache (a client whose hash is not
// known where it lands simply registers it again, as the protocol expects); trusted ones live
// in the catalog and come with the live app.

import { TesseraError, badInput } from '../errors/index.js';
import { documentHash } from '../store/index.js';
import type { TrustedDocumentSet } from '../store/index.js';

/** Bytes of registered document text an instance keeps, across all apps. */
export const PERSISTED_CACHE_BYTES = 32 * 1024 * 1024;

/** The answer to an unknown hash: the message Apollo's persisted-query link looks for. */
export function persistedQueryNotFound(why?: string): TesseraError {
  return new TesseraError('PERSISTED_QUERY_NOT_FOUND', 'PersistedQueryNotFound', why === undefined ? {} : { reason: why });
}

export interface DocumentSource {
  query: string | undefined;
  persistedHash: string | undefined;
}

export class PersistedQueries {
  /** Registered documents by `<appId>:<hash>`, least recently used first. */
  readonly #registered = new Map<string, string>();
  #bytes = 0;

  constructor(readonly maxBytes = PERSISTED_CACHE_BYTES) {}

  /**
   * The document a request runs: its own text, or the one its hash names. `enforced` says the
   * app's trusted documents bind this caller (everyone but the platform key).
   */
  resolve(appId: string, trusted: TrustedDocumentSet | null, enforced: boolean, source: DocumentSource): { query: string } | { error: TesseraError } {
    const { persistedHash } = source;
    let query = source.query;
    if (query === undefined) {
      if (persistedHash === undefined) return { error: badInput('"query" must be a non-empty string holding a GraphQL document') };
      query = trusted?.documents.get(persistedHash) ?? this.#get(`${appId}:${persistedHash}`);
      if (query === undefined) return { error: persistedQueryNotFound() };
    } else if (persistedHash !== undefined && documentHash(query) !== persistedHash) {
      return { error: badInput('The persisted query hash does not match the document sent with it (sha256 of its text, in hex)') };
    }
    if (enforced && trusted?.enforce === true && !trusted.documents.has(persistedHash ?? documentHash(query))) {
      return { error: persistedQueryNotFound('This app runs its trusted documents only') };
    }
    if (source.query !== undefined && persistedHash !== undefined) this.#set(`${appId}:${persistedHash}`, source.query);
    return { query };
  }

  #get(key: string): string | undefined {
    const text = this.#registered.get(key);
    if (text !== undefined) {
      this.#registered.delete(key);
      this.#registered.set(key, text);
    }
    return text;
  }

  #set(key: string, text: string): void {
    const old = this.#registered.get(key);
    if (old !== undefined) {
      this.#registered.delete(key);
      this.#bytes -= old.length;
    }
    this.#registered.set(key, text);
    this.#bytes += text.length;
    for (const [oldest, value] of this.#registered) {
      if (this.#bytes <= this.maxBytes) break;
      this.#registered.delete(oldest);
      this.#bytes -= value.length;
    }
  }
}
