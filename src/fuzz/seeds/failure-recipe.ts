import type { ReleaseFlags } from "../../kafka/release.js";
import { contentHash, type LoadedScenario } from "../../scenario/loader.js";
import type { Tape } from "../../sim/choice-tape.js";
import { runConfigFor } from "../campaign/campaign.js";
import { scenarioWithSwarm, SWARM_STREAM } from "../run-shaping/swarm.js";
import type { RunConfig, RunInput, RunShaping } from "../run/run-seed.js";

/** How to run one run of a campaign again: its config (with the strategy's shaping) and its input. */
export interface RunRecipe {
  config: RunConfig;
  input: RunInput;
}

/** A run of a campaign: its seed, and its tape when the strategy's runs are tapes (coverage, exhaustive). */
export interface CampaignRun {
  seed: number;
  tape?: Readonly<Tape> | undefined;
}

export function recipeFor(
  loaded: LoadedScenario,
  overrides: Partial<ReleaseFlags>,
  shaping: RunShaping | null | undefined,
  run: CampaignRun,
): RunRecipe {
  const base = runConfigFor(loaded, overrides);
  return { config: shaping ? { ...base, shaping } : base, input: run.tape ? { tape: run.tape } : { seed: run.seed } };
}

/**
 * The same run without strategy shaping, for tools that take a scenario and a tape (seed files,
 * the shrinker): a swarm run's fault-mix draws become the scenario's fault rates (the result has
 * the same trace hash). Null for PCT, whose delivery policy is not a scenario property.
 */
export function standaloneRun(
  loaded: LoadedScenario,
  overrides: Partial<ReleaseFlags>,
  shaping: RunShaping | null | undefined,
  tape: Readonly<Tape>,
): { loaded: LoadedScenario; tape: Tape } | null {
  if (shaping?.pct) return null;
  if (!shaping?.swarm) return { loaded, tape: { ...tape } };
  const { [SWARM_STREAM]: draws, ...rest } = tape;
  const scenario = scenarioWithSwarm(loaded.scenario, runConfigFor(loaded, overrides).spec, draws ?? []);
  return {
    loaded: { scenario, source: `${loaded.source} (fault rates of a swarm run)`, contentHash: contentHash(scenario) },
    tape: rest,
  };
}
