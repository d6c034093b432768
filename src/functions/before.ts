// BEFORE functions as a mutation calls them: the functions attached to an operation, in their
// order (then by name), each called with the input the one before left. An answer `{ "input":
// {…} }` replaces the input, `{ "error": { "message" } }` refuses the mutation (REJECTED with
// that message), an answer with neither leaves the input as it was; a failed call, a non-2xx
// answer or an answer of another shape fails the mutation (FUNCTION_FAILED). What the
// function's message or the failure says reaches the client; secrets and bodies never do.

import { TesseraError } from '../errors/index.js';
import type { AppFunctions } from './appFunctions.js';
import { callForOperation } from './call.js';
import type { FunctionCalling } from './call.js';

type Input = Record<string, unknown>;

/** The longest refusal message passed on to the client. */
export const MAX_REJECTION_MESSAGE = 1_000;

export interface BeforeHooksOptions {
  appId: string;
  functions: AppFunctions;
  calling: FunctionCalling;
  /** A user's API id from its row uuid (what the call's `caller.userId` says). */
  userApiId: (userId: string) => string;
  /** Where a secret that does not open, and failed calls, are told (never a body or a secret). */
  log?: { error(detail: object, message: string): void; warn(detail: object, message: string): void } | undefined;
}

function isObject(v: unknown): v is Input {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function failed(name: string, operation: string, why: string): TesseraError {
  return new TesseraError('FUNCTION_FAILED', `The function "${name}" (BEFORE ${operation}) failed: ${why}`, { function: name, operation });
}

/** The app's BEFORE functions, bound for one mutation's caller (the shape mutations call). */
export function beforeHooks(options: BeforeHooksOptions) {
  const { functions } = options;
  return {
    attached: (operation: string): boolean => functions.attached('BEFORE', operation).length > 0,
    async run(operation: string, input: Input, caller: { userId?: string | undefined; admin: boolean }): Promise<Input> {
      let current = input;
      for (const row of functions.attached('BEFORE', operation)) {
        const result = await callForOperation(
          options.calling,
          row,
          { app: options.appId, function: row.name, operation, caller: { userId: caller.userId === undefined ? null : options.userApiId(caller.userId), admin: caller.admin }, input: current },
          options.log,
        );
        if (!result.ok) throw failed(row.name, operation, result.reason);
        const answer = result.body;
        if (answer === '' || answer === undefined) continue;
        if (!isObject(answer)) throw failed(row.name, operation, 'its answer is not a JSON object');
        if (answer.error !== undefined && answer.error !== null) {
          const message = isObject(answer.error) ? answer.error.message : undefined;
          if (typeof message !== 'string' || message.trim() === '') throw failed(row.name, operation, 'its "error" has no "message"');
          throw new TesseraError('REJECTED', message.slice(0, MAX_REJECTION_MESSAGE), { function: row.name, operation });
        }
        if (answer.input === undefined) continue;
        if (!isObject(answer.input)) throw failed(row.name, operation, 'its "input" is not an object');
        current = answer.input;
      }
      return current;
    },
  };
}
