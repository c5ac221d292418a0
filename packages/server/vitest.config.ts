import { defineConfig } from 'vitest/config';

/** drizzle-kit, which the schema test runs, leaves a process unable to run the app: its own process */
const ALONE = ['test/architecture/schema.test.ts'];

export default defineConfig({
  test: {
    // a skipped test fails CI (test-support/no-skipped-tests.ts)
    reporters: ['default', '../../test-support/no-skipped-tests.ts'],
    // one database server and one migrated, seeded template for the whole run
    globalSetup: ['test/setup/global-database.ts'],
    // two queries at once on one pg client fail the test (pg 9 refuses them)
    setupFiles: ['test/setup/fail-on-overlapping-queries.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file builds its own app on its own database; two cores, so two workers.
    maxWorkers: 2,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'server',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ALONE,
          // A worker keeps its loaded modules from one file to the next: importing the app graph
          // again for every file cost most of the run. Files share no state: each builds its own
          // app, and no test mocks modules or changes process.env.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'alone', include: ALONE, isolate: true } },
    ],
  },
});
