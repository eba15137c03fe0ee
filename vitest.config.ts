import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 90_000,
    setupFiles: ['test/support/setup-env.ts'],
    globalSetup: ['test/support/global-setup.ts'],
  },
});
