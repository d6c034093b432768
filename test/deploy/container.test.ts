// The deployment files, checked as far as this machine allows. Always: the Dockerfile passes
// the Dockerfile linter and copies everything the package needs to run into a non-root final
// stage; its health check command, run as Docker would, tells a ready server from a closed
// port; compose.yaml wires the server to its database the way docs/deploy.md says; and every
// TESSERA_* variable the code reads is in the configuration reference. Where a Docker daemon
// answers, the image is also built and started, and must report healthy.

import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DockerfileParser } from 'dockerfile-ast';
import { validate } from 'dockerfile-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startTestServer } from '../server/harness.js';
import type { TestServer } from '../server/harness.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const dockerfileText = read('Dockerfile');
const dockerfile = DockerfileParser.parse(dockerfileText);
const stages = dockerfile.getFROMs();
const finalStage = dockerfile.getContainingImage(stages.at(-1)!.getRange().start)!;
const finalInstructions = finalStage.getInstructions();
const keyword = (k: string) => finalInstructions.filter((i) => i.getKeyword() === k);
const pkg = JSON.parse(read('package.json')) as { files: string[]; engines: { node: string } };

/** The exec-form arguments of a JSON instruction (CMD, ENTRYPOINT, HEALTHCHECK CMD), or undefined for the shell form. */
function execForm(text: string): string[] | undefined {
  const json = text.replace(/\\\n\s*/g, ' ').replace(/^\s*(HEALTHCHECK\s+(--\S+\s+)*CMD|CMD|ENTRYPOINT)\s+/i, '').trim();
  if (!json.startsWith('[')) return undefined;
  return JSON.parse(json) as string[];
}

function dockerAvailable(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

describe('Dockerfile', () => {
  it('passes the Dockerfile linter', () => {
    expect(validate(dockerfileText).map((d) => `${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  it('builds on the slim Node.js image of the major version the package supports, in two stages', () => {
    const nodeMajor = /(\d+)/.exec(pkg.engines.node)![1];
    expect(stages.length).toBe(2);
    for (const from of stages) expect(from.getImage()).toBe(`node:${nodeMajor}-bookworm-slim`);
  });

  it('installs from the lockfile and drops development dependencies', () => {
    const runs = dockerfile.getInstructions().filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
    expect(runs.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(runs.some((r) => /\bnpm prune --omit=dev\b/.test(r))).toBe(true);
    expect(dockerfile.getInstructions().some((i) => i.getKeyword() === 'ADD')).toBe(false);
  });

  it("copies into the final stage everything the package publishes, and only files that exist and the build context keeps", () => {
    const ignored = read('.dockerignore').split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
    const copied = finalStage.getCOPYs().map((c) => c.getArguments()[0]!.getValue());
    for (const published of pkg.files) expect(copied.some((source) => source.replace(/^\/app\//, '') === published)).toBe(true);
    expect(copied).toContain('/app/package.json');
    expect(copied.some((s) => s.includes('node_modules'))).toBe(true);
    // Sources copied from the build context (not from the build stage) exist and are not ignored.
    const fromContext = dockerfile.getCOPYs()
      .filter((c) => c.getFromFlag() === null)
      .flatMap((c) => c.getArguments().map((a) => a.getValue()).slice(0, -1));
    expect(fromContext.length).toBeGreaterThan(3);
    for (const source of fromContext) {
      expect(existsSync(join(ROOT, source)), source).toBe(true);
      expect(ignored.includes(source.split('/')[0]!), source).toBe(false);
    }
    for (const secret of ['.env', '.tessera', 'node_modules', '.git']) expect(ignored).toContain(secret);
  });

  it('runs as an unprivileged user, listening on every address on the port it exposes', () => {
    const user = keyword('USER').at(-1)?.getArgumentsContent();
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    const userLine = keyword('USER').at(-1)!.getRange().start.line;
    expect(keyword('ENTRYPOINT')[0]!.getRange().start.line).toBeGreaterThan(userLine);
    const env = Object.fromEntries(finalStage.getENVs().flatMap((e) => e.getProperties().map((p) => [p.getName(), p.getValue()])));
    expect(env.TESSERA_HOST).toBe('0.0.0.0');
    expect(keyword('EXPOSE').map((e) => e.getArgumentsContent())).toEqual([env.TESSERA_PORT]);
    expect(keyword('VOLUME').map((v) => v.getArgumentsContent())[0]).toContain(env.TESSERA_DATA_DIR);
    expect(execForm(keyword('ENTRYPOINT')[0]!.getTextContent())).toEqual(['node', 'bin/tessera.js']);
    expect(execForm(keyword('CMD')[0]!.getTextContent())).toEqual(['serve']);
  });

  describe('health check', () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer('embedded');
    });
    afterAll(async () => server?.close());

    const command = () => {
      const check = keyword('HEALTHCHECK');
      expect(check.length).toBe(1);
      const argv = execForm(check[0]!.getTextContent());
      expect(argv?.[0]).toBe('node');
      return argv!;
    };

    it('succeeds against a ready server', async () => {
      const [file, ...args] = command();
      const port = new URL(server.base).port;
      await expect(run(file!, args, { env: { ...process.env, TESSERA_PORT: port }, timeout: 10_000 })).resolves.toBeDefined();
    });

    it('fails when nothing answers', async () => {
      const [file, ...args] = command();
      // Port 9 (discard) has no listener here: the connection is refused.
      await expect(run(file!, args, { env: { ...process.env, TESSERA_PORT: '9' }, timeout: 10_000 })).rejects.toMatchObject({ code: 1 });
    });
  });
});

describe('compose.yaml', () => {
  const compose = parseYaml(read('compose.yaml')) as {
    services: Record<string, { image?: string; build?: string; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; healthcheck?: { test: string[] }; ports?: string[] }>;
    volumes: Record<string, unknown>;
  };
  const { db, tessera } = compose.services;

  it('starts the server from this Dockerfile once PostgreSQL is healthy', () => {
    expect(tessera?.build).toBe('.');
    expect(db?.image).toMatch(/^postgres:(1[5-9]|[2-9]\d)\b/);
    expect(db?.healthcheck?.test).toContain('pg_isready');
    expect(tessera?.depends_on?.db?.condition).toBe('service_healthy');
  });

  it("points DATABASE_URL at the database service's user and database", () => {
    const url = new URL(tessera!.environment!.DATABASE_URL!.replace(/\$\{POSTGRES_PASSWORD:-[^}]*\}/, 'pw'));
    expect(url.hostname).toBe('db');
    expect(url.username).toBe(db!.environment!.POSTGRES_USER);
    expect(url.pathname).toBe(`/${db!.environment!.POSTGRES_DB}`);
  });

  it('refuses to start without a platform key, publishes the port on loopback only and keeps data in a volume', () => {
    expect(tessera!.environment!.TESSERA_ADMIN_KEY).toMatch(/^\$\{TESSERA_ADMIN_KEY:\?/);
    expect(tessera!.ports).toEqual(['127.0.0.1:4000:4000']);
    expect(Object.keys(compose.volumes)).toContain('pgdata');
  });

  it('sets only variables the configuration reference documents', () => {
    const documented = read('docs/configuration.md');
    for (const name of Object.keys(tessera!.environment!)) expect(documented, name).toContain(`\`${name}\``);
  });
});

describe('configuration reference', () => {
  it('documents every TESSERA_* variable the code reads', () => {
    const documented = read('docs/configuration.md');
    const used = new Set(execFileSync('grep', ['-rhoE', 'TESSERA_[A-Z_]+', join(ROOT, 'src')], { encoding: 'utf8' }).split('\n').filter((s) => s !== ''));
    expect(used.size).toBeGreaterThan(10);
    const missing = [...used].filter((name) => !documented.includes(name));
    expect(missing).toEqual([]);
  });
});

describe.skipIf(!dockerAvailable())('the image, built and started with Docker', () => {
  const tag = `tessera-server-test:${process.pid}`;
  let container: string | undefined;
  afterAll(async () => {
    if (container) await run('docker', ['rm', '-f', container]).catch(() => undefined);
    await run('docker', ['rmi', '-f', tag]).catch(() => undefined);
  });

  it('builds, starts on the embedded store as a non-root user and reports healthy', async () => {
    await run('docker', ['build', '-t', tag, ROOT], { timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
    container = (await run('docker', ['run', '-d', '-e', 'TESSERA_ADMIN_KEY=container-test-key-123456', tag])).stdout.trim();
    const deadline = Date.now() + 90_000;
    let health = '';
    while (Date.now() < deadline && health !== 'healthy') {
      health = (await run('docker', ['inspect', '-f', '{{.State.Health.Status}}', container])).stdout.trim();
      if (health !== 'healthy') await new Promise((r) => setTimeout(r, 1_000));
    }
    expect(health).toBe('healthy');
    const user = (await run('docker', ['exec', container, 'id', '-u'])).stdout.trim();
    expect(user).not.toBe('0');
  }, 720_000);
});
