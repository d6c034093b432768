// Golden tests for schema validation: each `fixtures/invalid/<case>.graphql` must be rejected
// with SCHEMA_INVALID, its problems written to `<case>.problems.json` (regenerate with `vitest -u`).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { problemsOf } from './problems.js';

const dir = join(import.meta.dirname, 'fixtures/invalid');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.graphql'))
  .map((f) => f.replace(/\.graphql$/, ''))
  .sort();

describe('invalid schemas (golden)', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  it.each(cases)('%s', async (name) => {
    const problems = problemsOf(readFileSync(join(dir, `${name}.graphql`), 'utf8'));
    await expect(`${JSON.stringify(problems, null, 2)}\n`).toMatchFileSnapshot(join(dir, `${name}.problems.json`));
  });
});
