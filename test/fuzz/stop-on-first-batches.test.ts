import { describe, expect, it } from "vitest";
import { InProcessExecutor, type RunExecutor } from "../../src/fuzz/executor/executor.js";
import type { RunJob } from "../../src/fuzz/executor/run-job.js";
import type { RunConfig } from "../../src/fuzz/run/run-seed.js";
import { runSearch } from "../../src/fuzz/search/run-search.js";
import { resolveScenario } from "../../src/scenario/loader.js";

/** Counts the runs an executor was asked for (what a campaign costs, whatever it tallies). */
class CountingExecutor implements RunExecutor {
  readonly parallelism = 1;
  readonly maxInFlight = 1;
  runs = 0;
  private readonly inner = new InProcessExecutor();

  runBatch(config: RunConfig, jobs: readonly RunJob[]) {
    this.runs += jobs.length;
    return this.inner.runBatch(config, jobs);
  }

  async close(): Promise<void> {}
}

describe("--stop-on-first", () => {
  it("stops a campaign whose first seeds fail after a few runs, not after whole batches", async () => {
    // kip-1228-gap's seed 6 is its first stale-marker (seeds 0-5 find nothing the expectation wants).
    const executor = new CountingExecutor();
    const r = await runSearch(
      resolveScenario("kip-1228-gap"),
      { strategy: "random", seeds: 2_000, seedStart: 0, shard: null, stopOnFirst: true },
      executor,
      () => 0,
    );
    expect(r.seedsRun).toBe(7);
    expect(r.violations.some((v) => v.seed === 6 && v.kind === "stale-marker")).toBe(true);
    // One seed at a time in this thread: exactly the 7 runs tallied (batches of 1, 2, 4 two in
    // flight would be more, full batches of 50 would be 100).
    expect(executor.runs).toBe(7);
  });
});
