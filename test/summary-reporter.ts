import type { Reporter, TestCase } from "vitest/node";

/** CI reads a closing `N passed, N failed` line; vitest's own summary is not in its list. */
export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;
  /** Failed tests by file and full name: a CI log that ends in the summary still says which ones. */
  private readonly failures: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    const state = testCase.result().state;
    if (state === "passed") this.passed++;
    else if (state === "failed") {
      this.failed++;
      this.failures.push(`${testCase.module.moduleId.replace(`${process.cwd()}/`, "")} > ${testCase.fullName}`);
    }
  }

  onTestRunEnd(): void {
    for (const f of this.failures) process.stdout.write(`FAILED ${f}\n`);
    process.stdout.write(`${this.passed} passed, ${this.failed} failed\n`);
  }
}
