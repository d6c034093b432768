// Reads the GraphQL request parameters (query, variables, operationName, extensions) from a
// GET query string or a POST JSON body, refusing batches and malformed shapes.

export interface RequestParams {
  query: string;
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

export function readRequestParams(method: 'GET' | 'POST', query: Readonly<Record<string, unknown>>, body: unknown): ParamsResult {
  if (method === 'POST' && Array.isArray(body)) {
    return { error: 'Batched requests (a JSON array body) are not supported; send one operation per request' };
  }
  const source: unknown = method === 'GET' ? query : body;
  if (!isPlainObject(source)) {
    return { error: method === 'GET' ? 'Missing "query" parameter' : 'The request body must be a JSON object' };
  }
  try {
    const text = source.query;
    if (typeof text !== 'string' || text.trim() === '') {
      return { error: '"query" must be a non-empty string holding a GraphQL document' };
    }
    const decode = method === 'GET' ? fromQueryString : (_: string, v: unknown) => v;
    return {
      query: text,
      variables: optionalObject('variables', decode('variables', source.variables)),
      operationName: optionalString('operationName', source.operationName),
      extensions: optionalObject('extensions', decode('extensions', source.extensions)),
    };
  } catch (err) {
    if (err instanceof ParamError) return { error: err.message };
    throw err;
  }
}
