// Reads the GraphQL request parameters (query, variables, operationName, extensions) from a
// GET query string or a POST JSON body, refusing batches and malformed shapes. A persisted query
// (Apollo's `extensions.persistedQuery`) may come without its document.

export interface RequestParams {
  /** The document; absent when the request names a persisted query by hash only. */
  query: string | undefined;
  /** `extensions.persistedQuery.sha256Hash`: lower-case hex. */
  persistedHash: string | undefined;
  variables: Record<string, unknown> | undefined;
  operationName: string | undefined;
  extensions: Record<string, unknown> | undefined;
}

export type ParamsResult = RequestParams | { error: string };

/** A client mistake in the parameters; its message is shown as it is. */
class ParamError extends Error {}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** GET carries variables and extensions as JSON text in the query string. */
function fromQueryString(name: string, value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new ParamError(`"${name}" must be a JSON object`);
  }
}

function optionalObject(name: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) throw new ParamError(`"${name}" must be a JSON object`);
  return value;
}

function optionalString(name: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ParamError(`"${name}" must be a string`);
  return value;
}

/** `extensions.persistedQuery` as Apollo's protocol writes it: `{ version: 1, sha256Hash }`. */
function persistedHashOf(extensions: Record<string, unknown> | undefined): string | undefined {
  const persisted = extensions?.persistedQuery;
  if (persisted === undefined || persisted === null) return undefined;
  if (!isPlainObject(persisted)) throw new ParamError('"extensions.persistedQuery" must be an object');
  if (persisted.version !== 1) throw new ParamError('"extensions.persistedQuery.version" must be 1');
  const hash = persisted.sha256Hash;
  if (typeof hash !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hash)) throw new ParamError('"extensions.persistedQuery.sha256Hash" must be a SHA-256 in hex');
  return hash.toLowerCase();
}

export function readRequestParams(method: 'GET' | 'POST', query: Readonly<Record<string, unknown>>, body: unknown): ParamsResult {
  if (method === 'POST' && Array.isArray(body)) {
    return { error: 'Batched requests (a JSON array body) are not supported; send one operation per request' };
  }
  const source: unknown = method === 'GET' ? query : body;
  if (!isPlainObject(source)) {
    return { error: method === 'GET' ? 'Missing "query" parameter' : 'The request body must be a JSON object' };
  }
  try {
    const decode = method === 'GET' ? fromQueryString : (_: string, v: unknown) => v;
    const extensions = optionalObject('extensions', decode('extensions', source.extensions));
    const persistedHash = persistedHashOf(extensions);
    const text = source.query;
    const absent = text === undefined || text === null;
    if (!(absent && persistedHash !== undefined) && (typeof text !== 'string' || text.trim() === '')) {
      return { error: '"query" must be a non-empty string holding a GraphQL document' };
    }
    return {
      query: absent ? undefined : (text as string),
      persistedHash,
      variables: optionalObject('variables', decode('variables', source.variables)),
      operationName: optionalString('operationName', source.operationName),
      extensions,
    };
  } catch (err) {
    if (err instanceof ParamError) return { error: err.message };
    throw err;
  }
}
