// GraphQL over HTTP for the console: one POST, errors turned into an ApiError that keeps every
// error's code, message and extensions so pages can show them as the server said them.

export interface GraphQLErrorShape {
  message: string;
  path?: readonly (string | number)[];
  locations?: readonly { line: number; column: number }[];
  extensions?: { code?: string; [key: string]: unknown };
}

export class ApiError extends Error {
  readonly errors: readonly GraphQLErrorShape[];
  readonly status: number;

  constructor(errors: readonly GraphQLErrorShape[], status: number) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'ApiError';
    this.errors = errors;
    this.status = status;
  }

  /** The code of the first error (`INTERNAL` when the server gave none). */
  get code(): string {
    return this.errors[0]?.extensions?.code ?? 'INTERNAL';
  }
}

/** What happened to a request that never got a GraphQL answer (network down, server gone). */
function networkError(err: unknown): ApiError {
  const message = err instanceof Error ? err.message : String(err);
  return new ApiError([{ message: `Could not reach the server: ${message}`, extensions: { code: 'NETWORK_ERROR' } }], 0);
}

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: GraphQLErrorShape[];
}

/** Sends one operation; `token` becomes `Authorization: Bearer <token>` when given. */
export async function postGraphQL<T>(
  url: string,
  query: string,
  variables: Record<string, unknown> = {},
  token?: string | null,
): Promise<GraphQLResponse<T> & { status: number }> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch (err) {
    throw networkError(err);
  }
  let body: GraphQLResponse<T>;
  try {
    body = (await response.json()) as GraphQLResponse<T>;
  } catch {
    throw new ApiError([{ message: `The server answered ${response.status} without a GraphQL body`, extensions: { code: 'INTERNAL' } }], response.status);
  }
  return { ...body, status: response.status };
}

/** Like postGraphQL, but any error becomes an ApiError and the data is returned. */
export async function requestGraphQL<T>(url: string, query: string, variables: Record<string, unknown> = {}, token?: string | null): Promise<T> {
  const body = await postGraphQL<T>(url, query, variables, token);
  if (body.errors?.length) throw new ApiError(body.errors, body.status);
  if (body.data === undefined || body.data === null) throw new ApiError([{ message: 'The server returned no data', extensions: { code: 'INTERNAL' } }], body.status);
  return body.data;
}

/** The error as an ApiError, whatever was thrown. */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError([{ message: err instanceof Error ? err.message : String(err), extensions: { code: 'CONSOLE_ERROR' } }], 0);
}
