// Shared by the model tests: the problems parseSchema reports for an SDL, as the
// SCHEMA_INVALID error carries them; fails when the SDL is accepted.
import { isTesseraError } from '../../src/errors/index.js';
import { parseSchema } from '../../src/model/index.js';

export function problemsOf(sdl: string): unknown {
  try {
    parseSchema(sdl);
  } catch (error) {
    if (isTesseraError(error) && error.code === 'SCHEMA_INVALID') return error.extensions.problems;
    throw error;
  }
  throw new Error('the schema was accepted');
}
