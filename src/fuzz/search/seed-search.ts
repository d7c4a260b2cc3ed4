import type { StopReason } from "../campaign/campaign-tally.js";
import type { JobOutcome, RunJob } from "../executor/run-job.js";
import { externalStop, type SearchContext, settledBy } from "./search-context.js";
import { shardRange } from "../campaign/shard.js";
import { Signal } from "./signal.js";

/** Most seeds per worker task: small enough to stop soon after a time budget or Ctrl-C. */
const MAX_BATCH = 50;

/**
 * random, swarm and pct: every seed is an independent run, so seeds go to the executor in fixed
 * batches, several in flight, and results are tallied strictly in seed order as the contiguous
 * prefix grows. The tallied set is therefore the same for any number of workers; a stop (time
 * budget, Ctrl-C, --stop-on-first) ends the campaign after a contiguous range of seeds.
 */
export async function runSeedStrategy(ctx: SearchContext): Promise<StopReason | null> {
  const { start, end } = shardRange(ctx.options.seedStart, ctx.options.seeds, ctx.options.shard);
  const total = end - start;
  const maxInFlight = ctx.executor.maxInFlight;
  // One batch at a time (this thread): batches of one seed cost nothing and stop right after the
  // seed that settles the campaign.
  const batchSize =
    maxInFlight === 1 ? 1 : Math.max(1, Math.min(MAX_BATCH, Math.ceil(total / (ctx.executor.parallelism * 8))));
  const arrived = new Map<number, { outcome: JobOutcome; atMs: number }>();
  const signal = new Signal();
  let next = start;
  let nextToTally = start;
  let inFlight = 0;
  let failure: { error: unknown } | null = null;
  let stop: StopReason | null = null;
  for (const outcome of ctx.options.resumeFrom ?? []) {
    if (stop !== null) break;
    if (outcome.index !== nextToTally)
      throw new Error(`resumed results out of order: run ${outcome.index} where ${nextToTally} was due`);
    ctx.tally.add(outcome, 0);
    nextToTally++;
    stop = settledBy(ctx, outcome);
  }
  next = nextToTally;

  // The first batches grow from one seed, doubling up to batchSize: a campaign whose first seeds
  // already fail (--stop-on-first, a find budget) stops after a few runs, not after maxInFlight
  // full batches. Batch boundaries never change which seeds are tallied.
  let rampSize = 1;
  const dispatch = () => {
    const size = Math.min(batchSize, rampSize);
    rampSize *= 2;
    const jobs: RunJob[] = [];
    for (let seed = next; seed < Math.min(end, next + size); seed++) jobs.push({ index: seed, input: { seed } });
    next += jobs.length;
    inFlight++;
    ctx.executor
      .runBatch(ctx.config, jobs)
      .then(
        (outcomes) => {
          const atMs = ctx.elapsedMs();
          for (const outcome of outcomes) arrived.set(outcome.index, { outcome, atMs });
        },
        (error: unknown) => {
          failure = { error };
        },
      )
      .finally(() => {
        inFlight--;
        signal.notify();
      });
  };

  for (;;) {
    while (stop === null && next < end && inFlight < maxInFlight) dispatch();
    if (inFlight === 0) break;
    await signal.wait();
    if (failure) throw (failure as { error: unknown }).error;
    while (stop !== "stop-on-first" && stop !== "done" && arrived.has(nextToTally)) {
      const { outcome, atMs } = arrived.get(nextToTally) as { outcome: JobOutcome; atMs: number };
      arrived.delete(nextToTally);
      ctx.tally.add(outcome, atMs);
      nextToTally++;
      stop = settledBy(ctx, outcome) ?? stop;
    }
    stop ??= externalStop(ctx);
  }
  return stop;
}
