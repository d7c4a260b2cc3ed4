import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { CampaignResult } from "../campaign/campaign.js";
import { failingSeedFiles, type SeedFileToWrite } from "../seeds/save-failures.js";
import { type ShrunkFailure, shrinkFirstFailure } from "../shrink/shrink-first-failure.js";

/** What a campaign does once its runs are done: shrink the first failure, name a seed file per failing seed. */
export interface AfterCampaignInput {
  campaign: CampaignResult;
  /** Shrink within this budget (null: no shrink). */
  shrinkBudgetMs: number | null;
  /** Name a seed file per failing seed in this directory (null: none). */
  saveDir: string | null;
  /** Name the shrunk failure's seed file in this directory (null: none). */
  shrunkDir: string | null;
  overrides: Partial<ReleaseFlags>;
  mutant: string | null;
}

export interface AfterCampaignOutput {
  shrunk: ShrunkFailure | null;
  failingSeedFiles: SeedFileToWrite[] | null;
}

/** Whether there is anything to do after the runs. */
export function hasAfterCampaignWork(input: AfterCampaignInput): boolean {
  return (input.shrinkBudgetMs !== null && !input.campaign.interrupted) || input.saveDir !== null;
}

/** The work after the runs, in this thread. */
export function afterCampaign(input: AfterCampaignInput): AfterCampaignOutput {
  const { campaign, saveDir, shrunkDir, overrides, mutant } = input;
  const shrunk =
    input.shrinkBudgetMs !== null && !campaign.interrupted
      ? shrinkFirstFailure(campaign, { budgetMs: input.shrinkBudgetMs, saveDir: shrunkDir, overrides, mutant })
      : null;
  return {
    shrunk,
    failingSeedFiles: saveDir === null ? null : failingSeedFiles(campaign, saveDir, { overrides, mutant }),
  };
}

/** The worker module (JavaScript: beside this file when built, else in dist/ when running from src). */
function workerFile(): string {
  const beside = fileURLToPath(new URL("./after-campaign-worker.js", import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL("../../../dist/fuzz/session/after-campaign-worker.js", import.meta.url));
  if (existsSync(built)) return built;
  throw new Error(`no worker module at ${beside} or ${built}: run "npm run build" first`);
}

/**
 * The work after the runs on a worker thread, so that this thread stays free to hear a signal:
 * shrinking and re-running failing seeds take seconds to minutes of synchronous work. Aborting
 * `signal` ends the worker at once and resolves null (nothing shrunk, no seed files).
 */
export function afterCampaignOnWorker(
  input: AfterCampaignInput,
  signal?: AbortSignal,
): Promise<AfterCampaignOutput | null> {
  if (signal?.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerFile(), { workerData: input });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener("abort", onAbort);
      fn();
    };
    const onAbort = () => {
      settle(() => resolve(null));
      void worker.terminate();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (output: AfterCampaignOutput) => settle(() => resolve(output)));
    worker.once("error", (error) => settle(() => reject(error)));
    worker.once("exit", (code) =>
      settle(() => reject(new Error(`the worker shrinking the first failure exited (code ${code}) without a result`))),
    );
  });
}
