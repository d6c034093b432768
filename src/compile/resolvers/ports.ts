// What a custom field needs from the server: a call of the app's RESOLVER function. The server
// implements it with the functions stage (signed, guarded outbound calls); the compiler only
// asks for an answer and judges it against the field's declared type.

import type { HookCaller } from '../mutations/hooks.js';

/** The app's RESOLVER functions, as custom fields call them. */
export interface ResolverCalls {
  /**
   * Calls the RESOLVER function `name` for the custom field `operation` with its `args` (JSON
   * values); resolves to the endpoint's answer body: parsed JSON when it said it is JSON, its
   * text otherwise. Throws FUNCTION_FAILED when the function is missing, disabled or not a
   * RESOLVER, or the call failed (refused address, timeout, non-2xx answer, unreadable body).
   */
  call(name: string, operation: string, args: Readonly<Record<string, unknown>>, caller: HookCaller): Promise<unknown>;
}
