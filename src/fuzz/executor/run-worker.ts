import { isMainThread } from "node:worker_threads";
import type { RunConfig } from "../run/run-seed.js";
import { executeJob, type JobOutcome, type RunJob } from "./run-job.js";

/** One task for a worker thread: a batch of runs of one configuration. */
export interface WorkerTask {
  config: RunConfig;
  jobs: RunJob[];
  /**
   * Shared with the main thread: [0] the position in `jobs` of the run in progress (-1 before the
   * first), [1] the wall-clock ms at which it started. The main thread reads it to kill a run that
   * hangs past its bound, and to know which run was in progress when a worker died.
   */
  progress: SharedArrayBuffer;
}

export const PROGRESS_SLOTS = 2;

// process.exit() in a worker thread ends the thread without an error event, which the pool would
// only notice at the run's time bound; make it an error of the run in progress instead.
if (!isMainThread) {
  process.exit = ((code?: number) => {
    throw new Error(`process.exit(${code ?? ""}) called during a run`);
  }) as typeof process.exit;
}

/** Tinypool's entry point in the worker thread. */
export default function runTask(task: WorkerTask): JobOutcome[] {
  const progress = new Float64Array(task.progress);
  const outcomes: JobOutcome[] = [];
  for (let i = 0; i < task.jobs.length; i++) {
    progress[1] = Date.now();
    progress[0] = i;
    outcomes.push(executeJob(task.config, task.jobs[i] as RunJob));
  }
  progress[0] = task.jobs.length;
  return outcomes;
}
