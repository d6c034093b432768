// The RESOLVER port of an app's operations: a custom Query or Mutation field's call of the
// app's function, through the functions stage (signed, guarded, timed, observed). A function
// that is missing, disabled or of another kind, and every failed call, is FUNCTION_FAILED with
// its reason; no secret, header value or answer body reaches the client or the logs.

import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { userApiId } from '../accounts/index.js';
import type { ResolverCalls } from '../compile/index.js';
import { TesseraError } from '../errors/index.js';
import { callFunction, failureReason } from '../functions/index.js';
import type { FunctionCallBody, FunctionCalling, FunctionSecrets } from '../functions/index.js';
import { accountApp } from './appRegistry.js';
import type { LiveApp } from './appRegistry.js';

export function resolverCalls(live: LiveApp, calling: FunctionCalling, log?: FastifyBaseLogger): ResolverCalls {
  return {
    async call(name, operation, args, caller) {
      const fail = (reason: string) => new TesseraError('FUNCTION_FAILED', `${operation}: the function ${name} ${reason}`, { function: name });
      const row = live.functions.named(name);
      if (!row || row.kind !== 'RESOLVER') throw fail('is not a RESOLVER function of the app');
      if (!row.enabled) throw fail('is disabled');
      let opened: ReturnType<FunctionSecrets['open']>;
      try {
        opened = calling.secrets.open(row);
      } catch (err) {
        log?.error({ err, appId: live.id, function: name }, "a function's secret could not be opened with this server's key");
        throw fail("cannot be called: its secret does not open with this server's key");
      }
      const body: FunctionCallBody = {
        id: randomUUID(),
        app: live.id,
        function: name,
        operation,
        caller: { userId: caller.userId === undefined ? null : userApiId(accountApp(live), caller.userId), admin: caller.admin },
        arguments: args,
        createdAt: new Date().toISOString(),
      };
      const result = await callFunction(opened.definition, opened.secret, body, { allowPrivate: calling.allowPrivate, observe: calling.observe });
      if (result.ok) return result.body;
      log?.warn({ appId: live.id, function: name, operation, failure: result.kind, status: result.status, reason: result.message }, 'a resolver call failed');
      throw fail(`failed: ${failureReason(result)}`);
    },
  };
}
