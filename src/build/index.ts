// Finds the installed package's root (where package.json and examples/ live) and its version,
// whether the code runs from dist/ or from src/ under a test runner, and whatever the working
// directory: the CLI and the server's build metric read it.

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
