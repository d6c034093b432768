// The generated API as client tools take it: `tessera schema pull --api` prints the demo app's
// generated schema, and relay-compiler and graphql-codegen (the real packages, run as a
// developer runs them) compile operations against it with the documented scalar mappings.

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../api/harness.js';
import type { TestApp } from '../api/harness.js';
import { cleanEnv, runCli } from '../cli/run.js';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';

const ROOT = join(import.meta.dirname, '../..');
const BLOG = readFileSync(join(ROOT, 'examples/blog/schema.graphql'), 'utf8');

function run(command: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, { cwd, env: cleanEnv() });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

const QUERY = `query PostsQuery($first: Int, $orderBy: [PostOrderByArgs], $where: PostWhereArgs) {
  viewer {
    allPosts(first: $first, orderBy: $orderBy, where: $where) {
      edges { cursor node { id title publishedAt status author { username } } }
      pageInfo { hasNextPage endCursor }
      aggregations { count }
    }
  }
}`;
const MUTATION = `mutation CreatePostMutation($input: CreatePostInput!) {
  createPost(input: $input) { changedPost { id title } clientMutationId }
}`;

describe('client tools against the generated API', () => {
  let server: TestServer;
  let app: TestApp;
  let dir: string;
  let schemaText: string;

  beforeAll(async () => {
    server = await startTestServer('embedded');
    app = await createTestApp(server, BLOG, 'blog');
    // Inside the checkout, so that the tools find their plugins in its node_modules.
    mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'test-artifacts', 'tools-'));
    const pulled = await runCli(['schema', 'pull', app.id, '--api', '--url', server.base, '--admin-key', server.key]);
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    schemaText = pulled.stdout;
    writeFileSync(join(dir, 'schema.graphql'), schemaText);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('prints the generated API, the same as the management API gives, declaring its scalars', async () => {
    expect(schemaText).toContain('scalar DateTime');
    expect(schemaText).toContain('scalar Text');
    expect(schemaText).toContain('scalar JSON');
    expect(schemaText).toContain('allPosts(after: String, before: String, first: Int, last: Int, orderBy: [PostOrderByArgs], where: PostWhereArgs): PostConnection');
    expect(() => buildSchema(schemaText)).not.toThrow();
    const reply = await fetch(`${server.base}/admin/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${server.key}` },
      body: JSON.stringify({ query: 'query($id: ID!) { app(id: $id) { apiSchema } }', variables: { id: app.id } }),
    });
    expect(((await reply.json()) as { data: { app: { apiSchema: string } } }).data.app.apiSchema).toBe(schemaText);
  });

  it('relay-compiler compiles operations against it', async () => {
    const project = join(dir, 'relay');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(join(project, 'src', 'Posts.ts'), `import { graphql } from 'relay-runtime';\nexport const posts = graphql\`${QUERY}\`;\nexport const create = graphql\`${MUTATION}\`;\n`);
    writeFileSync(
      join(project, 'relay.config.json'),
      JSON.stringify({
        src: './src',
        schema: '../schema.graphql',
        language: 'typescript',
        // The scalar mappings docs/api.md gives for Relay.
        customScalarTypes: { DateTime: 'string', Text: 'string', JSON: 'unknown' },
      }),
    );
    const result = await run([join(ROOT, 'node_modules/relay-compiler/cli.js')], project);
    expect(result.output).not.toMatch(/error/i);
    expect(result.code).toBe(0);
    const artifact = readFileSync(join(project, 'src', '__generated__', 'PostsQuery.graphql.ts'), 'utf8');
    expect(artifact).toContain('readonly publishedAt: string | null | undefined;');
    expect(artifact).toContain("orderBy?: ReadonlyArray<PostOrderByArgs | null | undefined> | null | undefined;");
  }, 60_000);

  it('graphql-codegen generates typed operations against it', async () => {
    const project = join(dir, 'codegen');
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, 'operations.graphql'), `${QUERY}\n${MUTATION}\n`);
    writeFileSync(
      join(project, 'codegen.json'),
      JSON.stringify({
        schema: '../schema.graphql',
        documents: 'operations.graphql',
        generates: {
          'types.ts': {
            plugins: ['typescript', 'typescript-operations'],
            // The scalar mappings docs/api.md gives for codegen.
            config: { scalars: { DateTime: 'string', Text: 'string', JSON: 'unknown' } },
          },
        },
      }),
    );
    const result = await run([join(ROOT, 'node_modules/@graphql-codegen/cli/cjs/bin.js'), '--config', 'codegen.json'], project);
    expect(result.code, result.output).toBe(0);
    const types = readFileSync(join(project, 'types.ts'), 'utf8');
    expect(types).toContain('export type PostsQueryQuery');
    expect(types).toContain('export type CreatePostMutationMutation');
    expect(types).toMatch(/DateTime: \{ input: string; output: string; \}/);
  }, 60_000);
});
