// Checks that no name of the generated API is built or parsed outside the names module
// (src/model/apiNames.ts; src/model/names.ts holds the naming rules it builds on): no template
// literal that glues a prefix (`get`, `create`, `addTo`, `changed`, `subscribeTo`, …) or a
// suffix (`Connection`, `Edge`, `WhereArgs`, `Input`, `Payload`, …) onto a name, and no
// regular expression that takes one apart. Benchmarks and the console are checked too.
// Exits non-zero listing every place found.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const DIRS = ['src', 'console/src'];
const EXEMPT = new Set(['src/model/apiNames.ts', 'src/model/names.ts']);

const PREFIXES = ['get', 'all', 'create', 'update', 'delete', 'addTo', 'removeFrom', 'changed', 'subscribeTo', 'Create', 'Update', 'Delete', 'AddTo', 'RemoveFrom'];
const SUFFIXES = [
  'Connection',
  'Edge',
  'WhereArgs',
  'OrderByArgs',
  'OrderByField',
  'Aggregations',
  'Aggregate',
  'MutationEvent',
  'SubscriptionFilter',
  'SubscriptionFilterArgs',
  'SubscriptionPayload',
  'ConnectionInput',
  'ConnectionPayload',
  'Input',
  'Payload',
  'Id',
];

const BUILT = [
  // `get${T}`, `changed${T}`: a prefix glued onto an interpolated name.
  new RegExp(`(?<![A-Za-z0-9_])(?:${PREFIXES.join('|')})\\$\\{`),
  // `${T}Connection`, `${f}Id`: a suffix glued onto an interpolated name.
  new RegExp(`\\}(?:${SUFFIXES.join('|')})(?![a-z])`),
];
// /^(create|update|delete)(.+)$/, .replace(/^subscribeTo/, ''): a name taken apart.
const PARSED = new RegExp(`/\\^\\(?(?:${PREFIXES.join('|')})`);

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(p) && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The template literals of a source text with their line numbers (nested ones included). */
function* templates(text) {
  const re = /`(?:[^`\\]|\\.)*`/g;
  for (const m of text.matchAll(re)) yield { body: m[0], line: text.slice(0, m.index).split('\n').length };
}

const problems = [];
for (const dir of DIRS) {
  for (const file of files(join(ROOT, dir))) {
    const path = relative(ROOT, file);
    if (EXEMPT.has(path)) continue;
    const text = readFileSync(file, 'utf8');
    for (const { body, line } of templates(text)) {
      if (BUILT.some((re) => re.test(body))) problems.push(`${path}:${line}: builds a generated name: ${body.slice(0, 120)}`);
    }
    text.split('\n').forEach((lineText, i) => {
      if (PARSED.test(lineText)) problems.push(`${path}:${i + 1}: parses a generated name: ${lineText.trim().slice(0, 120)}`);
    });
  }
}

if (problems.length > 0) {
  console.error(`Generated names are built only in src/model/apiNames.ts (ask it, or ask the field's role):\n${problems.join('\n')}`);
  process.exit(1);
}
console.log('names ok');
