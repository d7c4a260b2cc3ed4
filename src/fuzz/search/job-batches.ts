import type { StopReason } from "../campaign/campaign-tally.js";
import type { JobOutcome, RunJob } from "../executor/run-job.js";
import { externalStop, type SearchContext } from "./search-context.js";
import { Signal } from "./signal.js";

export interface BatchRun {
  /** Outcomes of the contiguous prefix of jobs that completed, in job order, with arrival times. */
  outcomes: { outcome: JobOutcome; atMs: number }[];
  stop: StopReason | null;
}

/**
 * Run a list of jobs on the executor in batches of `batchSize`, several batches in flight, and
 * return the outcomes in job order. Ctrl-C or the time budget stops dispatching; what completed
 * before the first job that did not run is returned.
 */
export async function runJobsInOrder(
  ctx: SearchContext,
  jobs: readonly RunJob[],
  batchSize: number,
): Promise<BatchRun> {
  const batches: RunJob[][] = [];
  for (let i = 0; i < jobs.length; i += batchSize) batches.push(jobs.slice(i, i + batchSize));
  const results: ({ outcomes: JobOutcome[]; atMs: number } | null)[] = batches.map(() => null);
  const signal = new Signal();
  const maxInFlight = ctx.executor.maxInFlight;
  let next = 0;
  let inFlight = 0;
  let failure: { error: unknown } | null = null;
  let stop: StopReason | null = null;
  for (;;) {
    while (stop === null && next < batches.length && inFlight < maxInFlight) {
      const b = next++;
      inFlight++;
      ctx.executor
        .runBatch(ctx.config, batches[b] as RunJob[])
        .then(
          (outcomes) => {
            results[b] = { outcomes, atMs: ctx.elapsedMs() };
          },
          (error: unknown) => {
            failure = { error };
          },
        )
        .finally(() => {
          inFlight--;
          signal.notify();
        });
    }
    if (inFlight === 0) break;
    await signal.wait();
    if (failure) throw (failure as { error: unknown }).error;
    stop ??= externalStop(ctx);
  }
  const outcomes: { outcome: JobOutcome; atMs: number }[] = [];
  for (const r of results) {
    if (!r) break;
    for (const outcome of r.outcomes) outcomes.push({ outcome, atMs: r.atMs });
  }
  return { outcomes, stop: outcomes.length < jobs.length ? (stop ?? "interrupted") : null };
}
