// GraphQL over HTTP for the console: one POST (JSON, or a multipart upload), errors turned into
// an ApiError that keeps every error's code, message and extensions so pages can show them as
// the server said them.

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

const ACCEPT = 'application/graphql-response+json, application/json';

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
        accept: ACCEPT,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch (err) {
    throw networkError(err);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw networkError(err);
  }
  return bodyOf<T>(response.status, text);
}

function bodyOf<T>(status: number, text: string): GraphQLResponse<T> & { status: number } {
  try {
    return { ...(JSON.parse(text) as GraphQLResponse<T>), status };
  } catch {
    throw new ApiError([{ message: `The server answered ${status} without a GraphQL body`, extensions: { code: 'INTERNAL' } }], status);
  }
}

/** The data of an answer; its errors (or no data) as an ApiError. */
function dataOf<T>(body: GraphQLResponse<T> & { status: number }): T {
  if (body.errors?.length) throw new ApiError(body.errors, body.status);
  if (body.data === undefined || body.data === null) throw new ApiError([{ message: 'The server returned no data', extensions: { code: 'INTERNAL' } }], body.status);
  return body.data;
}

/** Like postGraphQL, but any error becomes an ApiError and the data is returned. */
export async function requestGraphQL<T>(url: string, query: string, variables: Record<string, unknown> = {}, token?: string | null): Promise<T> {
  return dataOf(await postGraphQL<T>(url, query, variables, token));
}

/** A file for an upload, and where in the variables it goes (`input.blob`, `input.attachments.0.blob`). */
export interface UploadPart {
  path: string;
  file: File;
}

/**
 * Sends one operation with files, as the GraphQL multipart request specification says: a part
 * `operations` (the variables holding null where the files go), a part `map`, then the files.
 * XMLHttpRequest rather than fetch, since only it reports how much of the body has been sent.
 */
export function uploadGraphQL<T>(
  url: string,
  query: string,
  variables: Record<string, unknown>,
  files: readonly UploadPart[],
  token: string | null,
  onProgress?: (sent: number, total: number) => void,
): Promise<T> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables }));
  form.append('map', JSON.stringify(Object.fromEntries(files.map((f, i) => [String(i), [`variables.${f.path}`]]))));
  files.forEach((f, i) => form.append(String(i), f.file, f.file.name));
  return new Promise<T>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('accept', ACCEPT);
    if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
    if (onProgress) request.upload.onprogress = (event) => onProgress(event.loaded, event.total);
    request.onload = () => {
      try {
        resolve(dataOf(bodyOf<T>(request.status, request.responseText)));
      } catch (err) {
        reject(err);
      }
    };
    request.onerror = () => reject(networkError(new Error('the upload did not complete')));
    request.send(form);
  });
}

/** The error as an ApiError, whatever was thrown. */
export function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError([{ message: err instanceof Error ? err.message : String(err), extensions: { code: 'CONSOLE_ERROR' } }], 0);
}
