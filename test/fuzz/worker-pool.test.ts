import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { InProcessExecutor, type RunExecutor } from "../../src/fuzz/executor/executor.js";
import type { JobOutcome, RunJob } from "../../src/fuzz/executor/run-job.js";
import { PoolExecutor } from "../../src/fuzz/executor/worker-pool.js";
import { resolveScenario } from "../../src/scenario/loader.js";

const config = runConfigFor(resolveScenario("kip-1228-gap"));
const jobs = (from: number, count: number): RunJob[] =>
  Array.from({ length: count }, (_, i) => ({ index: from + i, input: { seed: from + i } }));
const essence = (outcomes: JobOutcome[]) =>
  outcomes.map((o) => ({ seed: o.seed, hash: o.traceHash, kinds: o.violations.map((v) => v.kind), events: o.events }));

let executors: RunExecutor[] = [];
afterEach(async () => {
  await Promise.all(executors.map((e) => e.close()));
  executors = [];
});

function pool(
  workers: number,
  options: { seedTimeoutMs?: number; faulty?: boolean; maxHeapMb?: number } = {},
): PoolExecutor {
  const p = new PoolExecutor({
    workers,
    seedTimeoutMs: options.seedTimeoutMs ?? 60_000,
    ...(options.maxHeapMb ? { maxHeapMb: options.maxHeapMb } : {}),
    ...(options.faulty ? { workerFile: join(import.meta.dirname, "fixtures/faulty-worker.mjs") } : {}),
    describeJob: (job) => `seed ${job.index}`,
  });
  executors.push(p);
  return p;
}

describe("worker pool", () => {
  it("gives the same outcomes as running in this thread, with 1 or 2 workers and any batch split", async () => {
    const here = await new InProcessExecutor().runBatch(config, jobs(20, 12));
    expect(here.some((o) => o.violations.length > 0)).toBe(true); // seed 27 has a stale marker
    const one = await pool(1).runBatch(config, jobs(20, 12));
    const two = pool(2);
    const halves = await Promise.all([two.runBatch(config, jobs(20, 5)), two.runBatch(config, jobs(25, 7))]);
    expect(essence(one)).toEqual(essence(here));
    expect(essence(halves.flat())).toEqual(essence(here));
  });

  it("kills a run that hangs past its bound, reports it as model-timeout and still runs the rest", async () => {
    process.env.EOSFUZZ_TEST_HANG_SEED = "3";
    const started = Date.now();
    const outcomes = await pool(2, { seedTimeoutMs: 2_000, faulty: true }).runBatch(config, jobs(0, 6));
    delete process.env.EOSFUZZ_TEST_HANG_SEED;
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(outcomes.map((o) => o.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const hung = outcomes[3] as JobOutcome;
    expect(hung.violations.map((v) => v.kind)).toEqual(["model-timeout"]);
    expect(hung.violations[0]?.summary).toMatch(/seed 3 did not finish within 2000 ms/);
    const reference = await new InProcessExecutor().runBatch(config, jobs(0, 6));
    expect(essence(outcomes.filter((o) => o.index !== 3))).toEqual(essence(reference.filter((o) => o.index !== 3)));
  });

  it("attributes a worker that dies (out of memory) to the run it was executing and goes on", async () => {
    process.env.EOSFUZZ_TEST_OOM_SEED = "1";
    const started = Date.now();
    const outcomes = await pool(1, { faulty: true, maxHeapMb: 64 }).runBatch(config, jobs(0, 4));
    delete process.env.EOSFUZZ_TEST_OOM_SEED;
    expect(Date.now() - started).toBeLessThan(30_000); // noticed at once, not at the 60 s run bound
    expect(outcomes.map((o) => o.violations.map((v) => v.kind).join())).toEqual(["", "model-timeout", "", ""]);
    expect(outcomes[1]?.violations[0]?.summary).toMatch(/seed 1 took its worker thread down/);
    expect(outcomes[2]?.traceHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it("treats an error thrown outside the model the same way", async () => {
    process.env.EOSFUZZ_TEST_THROW_SEED = "2";
    const outcomes = await pool(1, { faulty: true }).runBatch(config, jobs(0, 4));
    delete process.env.EOSFUZZ_TEST_THROW_SEED;
    expect(outcomes.map((o) => o.violations.map((v) => v.kind).join())).toEqual(["", "", "model-timeout", ""]);
    expect(outcomes[2]?.violations[0]?.summary).toMatch(/injected failure outside the model/);
  });
});
