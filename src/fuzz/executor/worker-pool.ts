import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Tinypool } from "tinypool";
import type { RunConfig } from "../run/run-seed.js";
import type { RunExecutor } from "./executor.js";
import { type JobOutcome, type RunJob, unfinishedOutcome } from "./run-job.js";
import { PROGRESS_SLOTS, type WorkerTask } from "./run-worker.js";

export interface PoolOptions {
  workers: number;
  /** A run still going after this long is killed (its worker is terminated) and reported. */
  seedTimeoutMs: number;
  /** The worker module (default: run-worker.js next to this file, or dist/ when running from src). */
  workerFile?: string;
  /** Describes a job for messages, e.g. the command that replays it. */
  describeJob?: (job: RunJob) => string;
  /** Heap limit of each worker thread; a run that needs more takes its worker down (reported, campaign goes on). */
  maxHeapMb?: number;
}

/** Default heap limit per worker: far above what one run needs (tens of MB), far below a runaway. */
const DEFAULT_MAX_HEAP_MB = 4_096;

/** Worker modules must be JavaScript: Node 20 cannot load .ts in a worker thread. */
export function defaultWorkerFile(): string {
  const beside = fileURLToPath(new URL("./run-worker.js", import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL("../../../dist/fuzz/executor/run-worker.js", import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`no worker module at ${beside} or ${built}: run "npm run build" first`);
}

interface Attempt {
  done: JobOutcome[];
  failed: { job: RunJob; timedOut: boolean; message: string } | null;
}

/**
 * Runs batches on a tinypool of worker threads. A hung run is detected through the progress slots
 * its worker shares and killed by aborting its task (tinypool terminates that worker); a worker
 * that dies is attributed to the run it was executing. Either way that run becomes a
 * model-timeout outcome and the rest of the batch is run again on a fresh worker (runs are pure,
 * so re-running gives the same results).
 */
export class PoolExecutor implements RunExecutor {
  readonly parallelism: number;
  readonly maxInFlight: number;
  private readonly pool: Tinypool;

  constructor(private readonly options: PoolOptions) {
    if (!(options.workers >= 1)) throw new RangeError(`workers: ${options.workers}`);
    this.parallelism = options.workers;
    this.maxInFlight = 2 * options.workers;
    this.pool = new Tinypool({
      filename: options.workerFile ?? defaultWorkerFile(),
      minThreads: options.workers,
      maxThreads: options.workers,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? DEFAULT_MAX_HEAP_MB },
    });
  }

  async runBatch(config: RunConfig, jobs: readonly RunJob[]): Promise<JobOutcome[]> {
    const outcomes: JobOutcome[] = [];
    let remaining = [...jobs];
    // Each failed attempt settles one job, so this ends after at most jobs.length + 1 attempts.
    for (let attempt = 0; attempt <= jobs.length && remaining.length > 0; attempt++) {
      const result = await this.attempt(config, remaining);
      outcomes.push(...result.done);
      if (!result.failed) break;
      const { job, timedOut, message } = result.failed;
      outcomes.push(this.unfinished(job, timedOut, message));
      remaining = remaining.filter((j) => j !== job);
    }
    return outcomes.sort((a, b) => a.index - b.index);
  }

  private unfinished(job: RunJob, timedOut: boolean, message: string): JobOutcome {
    const what = this.options.describeJob?.(job) ?? `run ${job.index}`;
    const bound = `${this.options.seedTimeoutMs} ms`;
    return timedOut
      ? unfinishedOutcome(job, `${what} did not finish within ${bound}; its worker was terminated`, [
          `the run was still going after ${bound} of wall-clock time (--seed-timeout); the model may loop without advancing virtual time`,
        ])
      : unfinishedOutcome(job, `${what} took its worker thread down: ${message.split("\n")[0]}`, [
          "the worker thread died while executing this run (out of memory, or an error outside the model's own error handling)",
        ]);
  }

  private async attempt(config: RunConfig, jobs: RunJob[]): Promise<Attempt> {
    const progress = new SharedArrayBuffer(PROGRESS_SLOTS * Float64Array.BYTES_PER_ELEMENT);
    const view = new Float64Array(progress);
    view[0] = -1;
    const controller = new AbortController();
    let timedOutAt: number | null = null;
    const pollMs = Math.max(5, Math.min(250, Math.floor(this.options.seedTimeoutMs / 4)));
    const monitor = setInterval(() => {
      const running = view[0] as number;
      if (
        timedOutAt === null &&
        running >= 0 &&
        running < jobs.length &&
        Date.now() - (view[1] as number) > this.options.seedTimeoutMs
      ) {
        timedOutAt = running;
        controller.abort();
      }
    }, pollMs);
    try {
      const task: WorkerTask = { config, jobs, progress };
      const done = (await this.pool.run(task, { signal: controller.signal })) as JobOutcome[];
      return { done, failed: null };
    } catch (error) {
      const at = timedOutAt ?? (view[0] as number);
      const job = at >= 0 && at < jobs.length ? jobs[at] : undefined;
      if (!job) throw error; // not attributable to a run: the pool itself failed
      return {
        done: [],
        failed: { job, timedOut: timedOutAt !== null, message: (error as Error).message ?? String(error) },
      };
    } finally {
      clearInterval(monitor);
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
