import type { RunConfig } from "../run/run-seed.js";
import { executeJob, type JobOutcome, type RunJob } from "./run-job.js";

/** Runs batches of jobs somewhere (this thread or a pool of workers). */
export interface RunExecutor {
  /** How many runs can proceed at once (for how much work to keep in flight). */
  readonly parallelism: number;
  /**
   * Batches worth dispatching before the first comes back: a pool keeps twice its workers busy (none
   * idles while results are tallied); this thread runs a batch to its end as it is dispatched, so a
   * second one would only run seeds that a stop (--stop-on-first, a find budget) may not need.
   */
  readonly maxInFlight: number;
  /**
   * Run a batch; outcomes come back in job order. A run that hangs past its bound or takes its
   * worker down comes back as a model-timeout outcome; the others still run.
   */
  runBatch(config: RunConfig, jobs: readonly RunJob[]): Promise<JobOutcome[]>;
  close(): Promise<void>;
}

/** `--workers 0`: every run in the calling thread (no protection against a hanging run). */
export class InProcessExecutor implements RunExecutor {
  readonly parallelism = 1;
  readonly maxInFlight = 1;

  async runBatch(config: RunConfig, jobs: readonly RunJob[]): Promise<JobOutcome[]> {
    return jobs.map((job) => executeJob(config, job));
  }

  async close(): Promise<void> {}
}
