// Golden tests for the query compiler: each `queries/<case>.graphql` (optional first line
// `# variables: {…}`) is compiled against the demo app and its SQL printed to `<case>.sql`
// (regenerate with `vitest -u`). A change in generated SQL shows up in review. Cases named
// `*.rules.graphql` are compiled for a logged-in user, with the app's rules folded in.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AppContext, planQuery } from '../../src/compile/index.js';
import { appSchema } from '../../src/graphql/index.js';
import { DEFAULT_SETTINGS, parseSchema } from '../../src/model/index.js';

const dir = join(import.meta.dirname, 'queries');
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.graphql'))
  .map((f) => f.replace('.graphql', ''))
  .sort();

const model = parseSchema(readFileSync(join(import.meta.dirname, '../../examples/blog/schema.graphql'), 'utf8'));
const app = new AppContext({ id: 'goldenapp001', version: 1, model, settings: DEFAULT_SETTINGS, schema: appSchema('goldenapp001', 1, model) });

function variablesOf(text: string): Record<string, unknown> {
  const first = text.split('\n')[0] ?? '';
  const match = /^#\s*variables:\s*(.*)$/.exec(first);
  return match ? (JSON.parse(match[1] as string) as Record<string, unknown>) : {};
}

/**
 * `<case>.rules.graphql` compiles for a logged-in user under the app's rules — as for a user
 * who may be an app admin, then as for one known not to be — the rest for an admin token.
 */
function printPlan(query: string, rules: boolean): string {
  const userId = rules ? '00000000-0000-4000-8000-0000000000aa' : undefined;
  const print = (variant: 'rules' | 'nonAdmin', heading: string) =>
    planQuery({ app, document: parse(query), query, variables: variablesOf(query), admin: !rules, userId, variant })
      .map((p) => {
        if (p.error) return `-- ${p.key}${heading}: error ${(p.error as Error).message}\n`;
        if (p.text === undefined) return `-- ${p.key}${heading}: no SQL\n`;
        return `-- ${p.key}${heading}\n${p.text.trim()}\n-- values: ${JSON.stringify(p.values)}\n`;
      })
      .join('\n');
  if (!rules) return print('rules', '');
  return `${print('rules', '')}\n${print('nonAdmin', ' (a user known not to be an app admin)')}`;
}

describe('compiled SQL (golden)', () => {
  it('finds the cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(10);
  });

  it.each(cases)('%s', async (name) => {
    const query = readFileSync(join(dir, `${name}.graphql`), 'utf8');
    await expect(printPlan(query, name.endsWith('.rules'))).toMatchFileSnapshot(join(dir, `${name}.sql`));
  });

  it('binds every value as a parameter: no operand text appears in the SQL', () => {
    const query = `{ viewer { allPosts(where: { title: { eq: "Robert'); DROP TABLE x;--" } }) { edges { node { id } } } } }`;
    const [planned] = planQuery({ app, document: parse(query), query });
    expect(planned?.text).not.toContain('DROP TABLE');
    expect(planned?.values).toContain("Robert'); DROP TABLE x;--");
  });

  it('compiles a document once per variable shape and binds new values each time', () => {
    const query = 'query($id: ID!) { getPost(id: $id) { title } }';
    const document = parse(query);
    const id = (uuid: string) => Buffer.from(`Post:${uuid}`).toString('base64url');
    const a = planQuery({ app, document, query, variables: { id: id('00000000-0000-4000-8000-000000000001') } })[0];
    const b = planQuery({ app, document, query, variables: { id: id('00000000-0000-4000-8000-000000000002') } })[0];
    expect(a?.text).toBe(b?.text);
    expect(a?.values).toContain('00000000-0000-4000-8000-000000000001');
    expect(b?.values).toContain('00000000-0000-4000-8000-000000000002');
  });
});
