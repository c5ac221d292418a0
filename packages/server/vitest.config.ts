import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // one database server and one migrated, seeded template for the whole run
    globalSetup: ['test/setup/global-database.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file builds its own app on its own database; two cores, so two workers.
    maxWorkers: 2,
    pool: 'forks',
  },
});
