// Golden tests for schema validation: each `fixtures/invalid/<case>.graphql` must be rejected
// with SCHEMA_INVALID, its problems written to `<case>.problems.json` (regenerate with `vitest -u`).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTesseraError } from '../../src/errors/index.js';
import { parseSchema } from '../../src/model/index.js';

const dir = join(import.meta.dirname, 'fixtures/invalid');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.graphql'))
  .map((f) => f.replace(/\.graphql$/, ''))
  .sort();

/** The problems parseSchema reports for an SDL, or a failure if it accepts it. */
export function problemsOf(sdl: string) {
  try {
    parseSchema(sdl);
  } catch (error) {
    if (isTesseraError(error) && error.code === 'SCHEMA_INVALID') return error.extensions.problems;
    throw error;
  }
  throw new Error('the schema was accepted');
}

describe('invalid schemas (golden)', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('%s', async (name) => {
    const problems = problemsOf(readFileSync(join(dir, `${name}.graphql`), 'utf8'));
    await expect(`${JSON.stringify(problems, null, 2)}\n`).toMatchFileSnapshot(join(dir, `${name}.problems.json`));
  });
});
