// The management API over HTTP, as the client commands use it: one `fetch` per operation,
// transport and authentication failures turned into one-line CliErrors, GraphQL errors kept.

import type { Connection } from './connection.js';
import { CliError } from './io.js';

/** An error the management API answered with: its message, code and extensions. */
export class RemoteError extends CliError {
  readonly code: string | undefined;
  readonly extensions: Readonly<Record<string, unknown>>;
  constructor(message: string, extensions: Record<string, unknown>) {
    super(message);
    this.name = 'RemoteError';
    this.extensions = extensions;
    this.code = typeof extensions.code === 'string' ? extensions.code : undefined;
  }
}

interface GraphQLResponseBody {
  data?: Record<string, unknown> | null;
  errors?: { message?: unknown; extensions?: Record<string, unknown> }[];
}

function transportFailure(err: unknown, url: string): CliError {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
  return new CliError(`cannot reach the Tessera server at ${url} (${reason}); is it running? (set --url or TESSERA_URL)`);
}

export async function adminRequest<T>(
  connection: Connection,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<T> {
  const endpoint = `${connection.url}/admin/graphql`;
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        authorization: `Bearer ${connection.key}`,
      },
      body: JSON.stringify({ query, variables }),
    });
  } catch (err) {
    throw transportFailure(err, connection.url);
  }
  if (response.status === 401) {
    throw new CliError('the server refused the platform key (check --admin-key or TESSERA_ADMIN_KEY)');
  }
  let body: GraphQLResponseBody;
  try {
    body = (await response.json()) as GraphQLResponseBody;
  } catch {
    throw new CliError(`unexpected answer from ${endpoint}: HTTP ${response.status}, not a GraphQL response`);
  }
  const first = body.errors?.[0];
  if (first) {
    const message = typeof first.message === 'string' ? first.message : `HTTP ${response.status}`;
    throw new RemoteError(message, first.extensions ?? {});
  }
  if (!body.data) throw new CliError(`unexpected answer from ${endpoint}: HTTP ${response.status} without data`);
  return body.data as T;
}
