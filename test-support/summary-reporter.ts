import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain closing line over every project, `N passed, M failed, K skipped`, so a reader of a CI log sees the
 * totals at a glance. An error outside a test (a file that fails to load, a failing hook) counts as a failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      // Errors outside any test (a file that fails to load, a failing beforeAll) count as failures too.
      failed += module.errors().length;
      for (const suite of module.children.allSuites()) failed += suite.errors().length;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
