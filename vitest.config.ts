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
    // Each worker process runs file after file with its modules loaded once, rather than a new
    // process per file that loads the server's whole module graph again (1.5–4.5 s a file): the
    // suite takes a quarter less time, test/api a third. So a file must leave the process as it
    // found it: no module mocks, no globals or environment variables left changed, listeners
    // and servers it added removed and closed (every file already does: no file mocks or stubs).
    isolate: false,
    // graphql-ws checks errors with instanceof: it must load the same graphql module as the
    // server code under test (Vite's ESM build of graphql, not Node's CommonJS one).
    server: { deps: { inline: ['graphql-ws'] } },
  },
});
