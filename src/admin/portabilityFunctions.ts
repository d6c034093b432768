// An app's functions in exports, imports and forks (docs/portability.md). Their signing secret
// and header values travel sealed, as OpenID providers' client secrets do: sealed again for the
// new app when this server's key opens them, and left behind with a warning when it cannot.
// A carried function arrives disabled, so that a copy never calls the original's endpoints as
// well; a fork's functions get new signing secrets (an import keeps them: the app moved).

import type { FunctionRecord } from '../archive/index.js';
import { badInput } from '../errors/index.js';
import { FUNCTION_KINDS, FUNCTION_NAME, FunctionSecrets, MAX_TIMEOUT_MS, MIN_TIMEOUT_MS, functionUrlProblem, generateFunctionSecret } from '../functions/index.js';
import type { FunctionKind, FunctionsSetup } from '../functions/index.js';
import type { FunctionRow } from '../store/index.js';

type StoredFunction = Omit<FunctionRow, 'createdAt' | 'updatedAt'>;
type CarriedFunction = Omit<StoredFunction, 'appId' | 'enabled'>;

/** The functions' sealing key and URL rule on this server (absent: no function can be carried). */
export interface PortableFunctions {
  secrets: FunctionSecrets;
  allowPrivate: boolean;
}

export function portableFunctions(setup: FunctionsSetup | undefined): PortableFunctions | undefined {
  return setup && { secrets: new FunctionSecrets(setup.secrets), allowPrivate: setup.allowPrivate };
}

export function functionRecord(row: FunctionRow): FunctionRecord {
  return {
    kind: 'function',
    name: row.name,
    functionKind: row.kind,
    url: row.url,
    operations: row.operations,
    order: row.order,
    enabled: row.enabled,
    timeoutMs: row.timeoutMs,
    sealedSecret: row.sealedSecret,
    headers: row.headers.map((h) => ({ name: h.name, sealedValue: h.value })),
    createdAt: row.createdAt.toISOString(),
  };
}

/** A function record as stored for its app, after the checks createFunction makes of its fields (BAD_USER_INPUT with the line). */
export function recordFunction(record: FunctionRecord, line: number): CarriedFunction {
  const bad = (what: string) => badInput(`The archive's function record (line ${line}) is not valid: ${what}`, { archive: { line } });
  if (!FUNCTION_NAME.test(record.name)) throw bad('its name is not a function name');
  if (!(FUNCTION_KINDS as readonly string[]).includes(record.functionKind)) throw bad(`functionKind must be one of ${FUNCTION_KINDS.join(', ')}`);
  if (!Number.isInteger(record.timeoutMs) || record.timeoutMs < MIN_TIMEOUT_MS || record.timeoutMs > MAX_TIMEOUT_MS) throw bad(`timeoutMs must be from ${MIN_TIMEOUT_MS} to ${MAX_TIMEOUT_MS}`);
  if (!Number.isInteger(record.order)) throw bad('order must be an integer');
  return {
    name: record.name,
    kind: record.functionKind as FunctionKind,
    url: record.url,
    operations: record.operations,
    order: record.order,
    timeoutMs: record.timeoutMs,
    sealedSecret: record.sealedSecret,
    headers: record.headers.map((h) => ({ name: h.name, value: h.sealedValue })),
  };
}

/**
 * The function as stored for app `to`: disabled, its header values (and secret, or a new one
 * for a fork) sealed for it. Undefined, with a warning, when it cannot be carried: its sealed
 * values do not open here (another server's key, or no functions set up), or its URL is not
 * allowed on this server.
 */
export function carryFunction(functions: PortableFunctions | undefined, from: string, to: string, f: CarriedFunction, how: 'import' | 'fork', warnings: string[]): StoredFunction | undefined {
  const urlProblem = functions && functionUrlProblem(f.url, functions.allowPrivate);
  if (urlProblem) {
    warnings.push(`Function "${f.name}" was not carried over: its URL is not allowed on this server (${urlProblem}); create it again with createFunction`);
    return undefined;
  }
  let carried: StoredFunction;
  try {
    if (!functions) throw new Error('functions are not set up');
    const { secrets } = functions;
    const secret = how === 'fork' ? generateFunctionSecret() : secrets.openSecret(from, f.name, f.sealedSecret);
    carried = {
      ...f,
      appId: to,
      enabled: false,
      sealedSecret: secrets.sealSecret(to, f.name, secret),
      headers: secrets.sealHeaders(to, f.name, secrets.openHeaders(from, f.name, f.headers)),
    };
  } catch {
    warnings.push(`Function "${f.name}" was not carried over: its secret and header values were sealed under another server's secret key (or this server has no functions set up); create it again with createFunction`);
    return undefined;
  }
  warnings.push(
    how === 'fork'
      ? `Function "${f.name}" was copied disabled, with a new signing secret: updateFunction with enabled: true and rotateSecret: true turns it on and answers the secret`
      : `Function "${f.name}" was carried over disabled, so that this copy does not call its endpoint as well: turn it on with updateFunction (enabled: true)`,
  );
  return carried;
}
