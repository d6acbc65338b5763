import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Run alone after the suite (vitest.rolling-restart.config.ts): it loads the machine for a minute.
    exclude: ['src/deploy/rolling-restart.test.ts', '**/node_modules/**'],
    // Each file gets its own database, so files run in parallel; two cores here.
    pool: 'forks',
    // One migrated embedded database, dumped once; each file's PGlite database starts from it.
    globalSetup: ['src/test-support/pglite-template.ts'],
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
