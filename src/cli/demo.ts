// Where the demo app `tessera dev` creates comes from: the blog example shipped in the package.

import { join } from 'node:path';
import { packageRoot } from '../build/index.js';

/** The schema of the demo app `tessera dev` creates. */
export function demoSchemaPath(): string {
  return join(packageRoot(), 'examples', 'blog', 'schema.graphql');
}

/** The demo app's sample data: a mutation sent once, when the app is created. */
export function demoSeedPath(): string {
  return join(packageRoot(), 'examples', 'blog', 'seed.graphql');
}
