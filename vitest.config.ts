import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Builds the embedded store's template data directory once per run (test/helpers/template.ts).
    globalSetup: ['test/helpers/globalSetup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
