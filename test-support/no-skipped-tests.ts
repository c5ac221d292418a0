import type { Reporter, TestModule } from 'vitest/node';

/**
 * CI's rule (issue 26): a test that did not run is not a pass. With FAIL_ON_SKIPPED=1 (set by
 * .ci/run) a run that skipped any test — a missing Chromium or openssl, a `.skip`, a `runIf` whose
 * condition was false — fails and names each one. Locally, skips stay allowed (a machine without
 * Chromium can still run the rest). Shared by the packages' vitest configs.
 */
export default class NoSkippedTests implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    if (process.env.FAIL_ON_SKIPPED !== '1') return;
    const skipped: string[] = [];
    for (const module of modules)
      for (const test of module.children.allTests())
        if (test.result().state === 'skipped') skipped.push(`${module.moduleId}: ${test.fullName}`);
    if (!skipped.length) return;
    console.error(`\n${skipped.length} test(s) skipped; CI runs every test (FAIL_ON_SKIPPED=1):`);
    for (const s of skipped) console.error(`  - ${s}`);
    process.exitCode = 1;
  }
}
