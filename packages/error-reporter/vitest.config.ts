import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // a skipped test fails CI (test-support/no-skipped-tests.ts)
    reporters: ['default', '../../test-support/no-skipped-tests.ts'],
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
