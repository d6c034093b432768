// The RESOLVER port of an app's operations: a custom Query or Mutation field's call of the
// app's function, through the functions stage (signed, guarded, timed, observed). A function
// that is missing, disabled or of another kind, and every failed call, is FUNCTION_FAILED with
// its reason; no secret, header value or answer body reaches the client or the logs.

import type { FastifyBaseLogger } from 'fastify';
import { userApiId } from '../accounts/index.js';
import type { ResolverCalls } from '../compile/index.js';
import { TesseraError } from '../errors/index.js';
import { callForOperation } from '../functions/index.js';
import type { FunctionCalling } from '../functions/index.js';
import { accountApp } from './appRegistry.js';
import type { LiveApp } from './appRegistry.js';

export function resolverCalls(live: LiveApp, calling: FunctionCalling, log?: FastifyBaseLogger): ResolverCalls {
  return {
    async call(name, operation, args, caller) {
      const fail = (reason: string) => new TesseraError('FUNCTION_FAILED', `${operation}: the function ${name} ${reason}`, { function: name });
      const row = live.functions.named(name);
      if (!row || row.kind !== 'RESOLVER') throw fail('is not a RESOLVER function of the app');
      if (!row.enabled) throw fail('is disabled');
      const who = { userId: caller.userId === undefined ? null : userApiId(accountApp(live), caller.userId), admin: caller.admin };
      const result = await callForOperation(calling, row, { app: live.id, function: name, operation, caller: who, arguments: args }, log);
      if (result.ok) return result.body;
      throw fail(result.secretUnopened ? `cannot be called: ${result.reason}` : `failed: ${result.reason}`);
    },
  };
}
