import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the embedded store's template data directory once per run (test/helpers/template.ts).
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at a time, whatever the core count (Vitest would take one on a 2-core machine):
    // the tests mostly wait on servers, databases and a browser, so two halve the suite's time.
    // Each file starts its servers on ephemeral ports over databases of their own: they do not meet.
    maxWorkers: 2,
    minWorkers: 1,
    // graphql-ws checks errors with instanceof: it must load the same graphql module as the
    // server code under test (Vite's ESM build of graphql, not Node's CommonJS one).
    server: { deps: { inline: ['graphql-ws'] } },
  },
});
