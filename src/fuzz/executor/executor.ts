import type { RunConfig } from "../run-seed.js";
import { executeJob, type JobOutcome, type RunJob } from "./run-job.js";

/** Runs batches of jobs somewhere (this thread or a pool of workers). */
export interface RunExecutor {
  /** How many runs can proceed at once (for how much work to keep in flight). */
  readonly parallelism: number;
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

  async runBatch(config: RunConfig, jobs: readonly RunJob[]): Promise<JobOutcome[]> {
    return jobs.map((job) => executeJob(config, job));
  }

  async close(): Promise<void> {}
}
