// Finds the installed package's root (where package.json and examples/ live), whether the CLI
// runs from dist/ or from src/ under a test runner, and whatever the working directory.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The npm package's name (`tessera` is another project's on npm); the command is `tessera`. */
export const PACKAGE_NAME = 'tessera-server';

let cached: { root: string; version: string } | undefined;

function locate(): { root: string; version: string } {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === PACKAGE_NAME) return { root: dir, version: pkg.version ?? '0.0.0' };
    } catch {
      // No readable package.json here: keep walking up.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the tessera-server package root (package.json)');
    dir = parent;
  }
}

export function packageRoot(): string {
  cached ??= locate();
  return cached.root;
}

export function packageVersion(): string {
  cached ??= locate();
  return cached.version;
}

/** The schema of the demo app `tessera dev` creates. */
/** The demo app's sample data: a mutation sent once, when the app is created. */
export function demoSeedPath(): string {
  return join(packageRoot(), 'examples', 'blog', 'seed.graphql');
}

export function demoSchemaPath(): string {
  return join(packageRoot(), 'examples', 'blog', 'schema.graphql');
}
