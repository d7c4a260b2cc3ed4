import type { ReleaseFlags } from "../../kafka/release.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import { type CampaignResult, finishCampaign, runConfigFor } from "../campaign/campaign.js";
import { CampaignTally } from "../campaign/campaign-tally.js";
import { outcomeOf } from "../executor/run-job.js";
import { type RunResult, runSeed } from "../run/run-seed.js";
import { randomStrategyInfo } from "./strategies.js";

export interface CampaignOptions {
  seeds: number;
  seedStart: number;
  /** Flag overrides applied to every node (mutants). */
  overrides?: Partial<ReleaseFlags>;
  /** Called after each seed, in seed order. */
  onSeed?: (result: RunResult, done: number) => void;
  /** Checked between seeds: true stops the campaign early (interrupt, time budget). */
  shouldStop?: () => boolean;
  /** Checked after each seed: true ends the campaign there, done rather than interrupted (a killed mutant). */
  doneAfter?: (result: RunResult) => boolean;
}

/** Run seeds seedStart .. seedStart+seeds-1 one after another in this thread and judge the expectation. */
export function runCampaign(loaded: LoadedScenario, options: CampaignOptions): CampaignResult {
  const config = runConfigFor(loaded, options.overrides);
  const tally = new CampaignTally(loaded.scenario, () => ({ replay: "" }));
  let interrupted = false;
  for (let i = 0; i < options.seeds; i++) {
    if (options.shouldStop?.()) {
      interrupted = true;
      break;
    }
    const result = runSeed(config, { seed: options.seedStart + i });
    tally.add(outcomeOf(result, options.seedStart + i), 0);
    options.onSeed?.(result, tally.runs);
    if (options.doneAfter?.(result)) break;
  }
  for (const v of tally.violations) delete v.replay;
  return finishCampaign(loaded, tally, {
    seedStart: options.seedStart,
    plannedSeeds: options.seeds,
    shard: null,
    stoppedBy: interrupted ? "interrupted" : null,
    strategy: randomStrategyInfo(),
    overrides: options.overrides ?? {},
  });
}
