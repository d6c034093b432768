// What a server needs to run functions: the key their secrets are sealed under, and whether
// they may be on private networks; and the check of a function's URL when it is stored (the
// resolved address is checked again at each call).

import { urlProblem } from '../outbound/index.js';
import type { SecretBox } from '../secrets/index.js';
import { MAX_URL_LENGTH } from './definition.js';

export interface FunctionsSetup {
  /** Seals function secrets and header values (the server's secret key). */
  secrets: SecretBox;
  /** Whether functions may be on private, loopback or link-local addresses (TESSERA_FUNCTIONS_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

/** Why `url` cannot be a function's URL, judged on its text; undefined when it can. */
export function functionUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `a URL has at most ${MAX_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not an absolute URL';
  }
  if (parsed.hash !== '') return 'a function URL cannot have a #fragment';
  return urlProblem(parsed, allowPrivate);
}
