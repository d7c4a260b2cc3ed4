import type { Reporter, TestCase } from "vitest/node";

/** CI reads a closing `N passed, N failed` line; vitest's own summary is not in its list. */
export default class SummaryReporter implements Reporter {
  private passed = 0;
  private failed = 0;

  onTestCaseResult(testCase: TestCase): void {
    const state = testCase.result().state;
    if (state === "passed") this.passed++;
    else if (state === "failed") this.failed++;
  }

  onTestRunEnd(): void {
    process.stdout.write(`${this.passed} passed, ${this.failed} failed\n`);
  }
}
