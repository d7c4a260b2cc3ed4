import type { LoadedScenario } from "../../scenario/loader.js";
import type { CampaignTally, StopReason } from "../campaign/campaign-tally.js";
import type { RunExecutor } from "../executor/executor.js";
import type { JobOutcome } from "../executor/run-job.js";
import type { RunConfig } from "../run/run-seed.js";
import type { SearchOptions } from "./search-options.js";

/** What every strategy's driver works with. */
export interface SearchContext {
  loaded: LoadedScenario;
  options: SearchOptions;
  config: RunConfig;
  executor: RunExecutor;
  tally: CampaignTally;
  /** Wall-clock ms since the campaign started. */
  elapsedMs: () => number;
}

/** After a run was tallied: does it end the campaign (--stop-on-first, or the caller's done condition)? */
export function settledBy(ctx: SearchContext, outcome: JobOutcome): StopReason | null {
  if (ctx.options.stopOnFirst && ctx.tally.settled) return "stop-on-first";
  if (ctx.options.doneAfter?.(outcome)) return "done";
  return null;
}

/** Interrupt or time budget: checked before more work is dispatched. */
export function externalStop(ctx: SearchContext): StopReason | null {
  if (ctx.options.shouldStop?.()) return "interrupted";
  const budget = ctx.options.timeBudgetMs;
  if (budget !== undefined && budget !== null && ctx.elapsedMs() >= budget) return "time-budget";
  return null;
}
