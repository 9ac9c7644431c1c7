import { defineConfig } from 'vitest/config';

// The live kit suite (test/kit): real containers, one file after another, after the main suite
// (`npm test` runs this second), so that it never competes with the rest for the machine's cores.
export default defineConfig({
  test: {
    include: ['test/kit/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 1_800_000,
    pool: 'forks',
    globalSetup: ['test/helpers/temp-root.ts'],
    reporters: ['default'],
  },
});
