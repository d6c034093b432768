// Checks that imports between src/ folders flow one way (the pipeline of DESIGN.md section 2)
// and go through each folder's index.ts. Exits non-zero listing every violation.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const SRC = resolve(import.meta.dirname, '../src');

// Each folder may import from the folders listed (and from itself).
const ALLOWED = {
  errors: [],
  build: [], // the package itself: its root and version
  sql: [],
  lru: [], // the bounded least-recently-used map every count-bounded cache is built on
  secrets: [], // sealing secrets the server must read back
  outbound: [], // HTTP calls made for an app, kept off private networks
  local: [], // a local installation's defaults: address, data directory, key file (the CLI reads them without the server)
  archive: ['errors'], // the app archive format (export, import)
  model: ['errors'],
  store: ['sql', 'model', 'lru', 'errors'],
  permissions: ['sql', 'model', 'errors'],
  graphql: ['model', 'lru', 'errors'],
  oidc: ['outbound', 'secrets', 'lru', 'errors'],
  functions: ['outbound', 'secrets', 'store', 'sql', 'model', 'errors'], // an app's HTTP endpoints: calls, signatures, the outbox's delivery
  accounts: ['sql', 'store', 'model', 'permissions', 'oidc', 'lru', 'errors'],
  compile: ['sql', 'model', 'permissions', 'store', 'graphql', 'accounts', 'lru', 'errors'],
  files: ['store', 'errors'], // file bytes: storage drivers, signed URLs, the removal worker
  realtime: ['compile', 'graphql', 'permissions', 'accounts', 'store', 'model', 'sql', 'errors'],
  admin: ['model', 'store', 'graphql', 'oidc', 'functions', 'archive', 'errors', 'sql'],
  server: ['build', 'local', 'admin', 'accounts', 'compile', 'graphql', 'realtime', 'files', 'store', 'model', 'oidc', 'functions', 'secrets', 'outbound', 'archive', 'lru', 'errors'],
  cli: ['build', 'local', 'server', 'admin', 'store', 'model', 'archive', 'errors'],
  bench: null, // benchmarks may use anything
};

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

const problems = [];
for (const file of files(SRC)) {
  const folder = relative(SRC, file).split(sep)[0];
  if (!(folder in ALLOWED)) {
    problems.push(`${relative(SRC, file)}: folder "${folder}" is not in the layer map of scripts/check-layers.mjs`);
    continue;
  }
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
    const target = resolve(dirname(file), match[1]);
    const rel = relative(SRC, target);
    if (rel.startsWith('..')) continue;
    const [targetFolder, ...rest] = rel.split(sep);
    if (targetFolder === folder) continue;
    const allowed = ALLOWED[folder];
    if (allowed !== null && !allowed.includes(targetFolder)) {
      problems.push(`${relative(SRC, file)}: ${folder}/ must not import ${targetFolder}/`);
    }
    if (rest.join('/') !== 'index.js') {
      problems.push(`${relative(SRC, file)}: import ${targetFolder}/ through its index.ts, not ${rest.join('/')}`);
    }
  }
}

if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`${problems.length} layering problem(s)`);
  process.exit(1);
}
console.log('layers ok');
