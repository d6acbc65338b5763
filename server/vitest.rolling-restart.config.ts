import { defineConfig } from 'vitest/config';

// The rolling restart (src/deploy/rolling-restart.test.ts) runs alone, after the suite: three server
// processes, HAProxy and a minute of calls are a machine's worth of work (npm run test:rolling-restart).
export default defineConfig({
  test: {
    include: ['src/deploy/rolling-restart.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
