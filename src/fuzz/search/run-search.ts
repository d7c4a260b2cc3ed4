import type { LoadedScenario } from "../../scenario/loader.js";
import { type CampaignResult, finishCampaign, runConfigFor, type StrategyInfo } from "../campaign.js";
import { CampaignTally, type ReplayInfo, type StopReason } from "../campaign-tally.js";
import type { RunExecutor } from "../executor/executor.js";
import type { JobOutcome } from "../executor/run-job.js";
import type { RunConfig } from "../run-seed.js";
import { runCoverageStrategy } from "./coverage-search.js";
import { runExhaustiveStrategy } from "./exhaustive-search.js";
import { pctConfig, pctStrategyInfo } from "./pct-setup.js";
import { campaignReplayCommand, replayFlags, seedReplayCommand } from "./replay-commands.js";
import type { SearchContext } from "./search-context.js";
import type { SearchOptions } from "./search-options.js";
import { runSeedStrategy } from "./seed-search.js";

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
  let stoppedBy: StopReason | null;
  let strategy: StrategyInfo;
  if (options.resumeFrom && (options.strategy === "coverage" || options.strategy === "exhaustive")) {
    throw new Error(`a ${options.strategy} search cannot resume: each run depends on all the runs before it`);
  }
  switch (options.strategy) {
    case "coverage": {
      const r = await runCoverageStrategy(ctx);
      stoppedBy = r.stop;
      strategy = r.info;
      break;
    }
    case "exhaustive": {
      const r = await runExhaustiveStrategy(ctx);
      stoppedBy = r.stop;
      strategy = r.info;
      break;
    }
    default:
      stoppedBy = await runSeedStrategy(ctx);
      strategy = seedStrategyInfo(options, config, tally.runs);
  }
  if (config.shaping) strategy = { ...strategy, runShaping: config.shaping };
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
  return configFor(runConfigFor(loaded, options.overrides), options);
}

function configFor(base: RunConfig, options: SearchOptions): RunConfig {
  switch (options.strategy) {
    case "swarm":
      return { ...base, shaping: { swarm: true } };
    case "pct":
      return pctConfig(base, options.pctDepth ?? 3, options.pctScope ?? "markers");
    case "coverage":
      return { ...base, shaping: { swarm: true } };
    default:
      return base;
  }
}

function seedStrategyInfo(options: SearchOptions, config: RunConfig, runs: number): StrategyInfo {
  if (options.strategy === "swarm") {
    return {
      name: "swarm",
      summary:
        "swarm: each seed first draws which of the scenario's fault kinds are on and at what multiple of their rates",
    };
  }
  if (options.strategy === "pct" && config.shaping?.pct) return pctStrategyInfo(config.shaping.pct, runs);
  return { name: "random", summary: "random: each seed draws delays and faults at the scenario's rates" };
}

function replayInfo(loaded: LoadedScenario, options: SearchOptions, outcome: JobOutcome, seed: number): ReplayInfo {
  const scenario = loaded.scenario.name;
  if (options.strategy === "coverage" || options.strategy === "exhaustive") {
    return outcome.tape
      ? { replay: campaignReplayCommand(scenario, options, seed), tape: outcome.tape }
      : { replay: campaignReplayCommand(scenario, options, seed) };
  }
  return { replay: seedReplayCommand(scenario, seed, replayFlags(options)) };
}
