import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The live kit suite runs on its own, after this one (vitest.kit.config.ts).
    exclude: [...configDefaults.exclude, 'test/kit/**'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    globalSetup: ['test/helpers/temp-root.ts'],
    reporters: ['default'],
  },
});
