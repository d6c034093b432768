import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the embedded store's template data directory once per run (test/helpers/template.ts).
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // graphql-ws checks errors with instanceof: it must load the same graphql module as the
    // server code under test (Vite's ESM build of graphql, not Node's CommonJS one).
    server: { deps: { inline: ['graphql-ws'] } },
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
