import type { LoadedScenario } from "../../scenario/loader.js";
import { type CampaignResult, finishCampaign, runConfigFor } from "../campaign/campaign.js";
import { CampaignTally, type ReplayInfo } from "../campaign/campaign-tally.js";
import type { RunExecutor } from "../executor/executor.js";
import type { JobOutcome } from "../executor/run-job.js";
import type { RunConfig } from "../run/run-seed.js";
import type { SearchContext } from "./search-context.js";
import type { SearchOptions } from "./search-options.js";
import { scenarioArgument } from "./replay-commands.js";
import { strategyNamed } from "./strategies.js";

/** One campaign of any strategy on any executor; the result does not depend on the worker count. */
export async function runSearch(
  loaded: LoadedScenario,
  options: SearchOptions,
  executor: RunExecutor,
  elapsedMs: () => number,
): Promise<CampaignResult> {
  const config = searchConfig(loaded, options);
  const tally = new CampaignTally(
    loaded.scenario,
    (outcome, seed) => replayInfo(loaded, options, outcome, seed),
    options.onOutcome ?? null,
  );
  const ctx: SearchContext = { loaded, options, config, executor, tally, elapsedMs };
  const search = strategyNamed(options.strategy);
  if (options.resumeFrom && search.runs === "tapes") {
    throw new Error(`a ${options.strategy} search cannot resume: each run depends on all the runs before it`);
  }
  const { stop: stoppedBy, info } = await search.search(ctx);
  const strategy = config.shaping ? { ...info, runShaping: config.shaping } : info;
  return finishCampaign(loaded, tally, {
    seedStart: options.seedStart,
    plannedSeeds: options.seeds,
    shard: options.shard,
    stoppedBy,
    strategy,
    overrides: options.overrides ?? {},
    ...(options.bugProbabilities ? { bugProbabilities: options.bugProbabilities } : {}),
  });
}

/** The config every run of a campaign uses: the scenario's, shaped by the strategy. */
export function searchConfig(loaded: LoadedScenario, options: SearchOptions): RunConfig {
  return strategyNamed(options.strategy).shape(runConfigFor(loaded, options.overrides), options);
}

function replayInfo(loaded: LoadedScenario, options: SearchOptions, outcome: JobOutcome, seed: number): ReplayInfo {
  const strategy = strategyNamed(options.strategy);
  const replay = strategy.replay(scenarioArgument(loaded), options, seed);
  return strategy.runs === "tapes" && outcome.tape ? { replay, tape: outcome.tape } : { replay };
}
