/**
 * eosfuzz as a library, for people's own test suites:
 *
 *   import { loadScenario, runSeed, runCampaign, replay } from "eosfuzz";
 *
 * runCampaign runs random seeds in this thread; planCampaign + runCampaignSession run any strategy,
 * on workers, with what `eosfuzz run` does around a campaign (resume, corpus, shrinking, seed files).
 *
 * Every run is a pure function of (scenario, seed | tape). Bad input throws InputError (one line).
 */
import { type CampaignOptions, type CampaignResult, runConfigFor } from "./fuzz/campaign.js";
import { planCampaign, runCampaignInThread } from "./fuzz/campaign-session.js";
import {
  type RunConfig,
  type RunInput,
  type RunOptions,
  type RunResult,
  runSeed as runSeedOf,
} from "./fuzz/run-seed.js";
import { type LoadedScenario, loadScenario } from "./scenario/loader.js";

export { TOOL_VERSION } from "./version.js";
export { InputError } from "./scenario/input-error.js";
export { VIOLATION_KINDS, type Violation, type ViolationKind } from "./oracle/violation.js";
export { RELEASE_NAMES, type ReleaseFlags, type ReleaseName } from "./kafka/release.js";
export type { Scenario, Expectation } from "./scenario/schema.js";
export type { Script, ScriptStep } from "./scenario/script/script-schema.js";
export type { StepRecord, ScriptRun } from "./scenario/script/script-driver.js";
export type { LoadedScenario } from "./scenario/loader.js";
export type { CampaignOptions, CampaignResult, SeededViolation } from "./fuzz/campaign.js";
export type { RunConfig, RunInput, RunOptions, RunResult } from "./fuzz/run-seed.js";
export type { ExpectationVerdict } from "./fuzz/expectation.js";
export { replay, replaySeed, type ReplayResult, type ReplayStatus, type Divergence } from "./fuzz/replay.js";
export {
  readSeedFile,
  parseSeedFile,
  buildSeedFile,
  renderSeedFile,
  type SeedFile,
  type LoadedSeedFile,
} from "./fuzz/seed-file.js";
export { failingSeedFiles, type SeedFileToWrite } from "./fuzz/save-failures.js";
export { regress, type RegressResult, type RegressRow, type RegressOptions } from "./fuzz/regress.js";
export { builtinScenarioNames, parseScenario, contentHash } from "./scenario/loader.js";
export { runConfigFor } from "./fuzz/campaign.js";
export { loadScenario } from "./scenario/loader.js";
export {
  planCampaign,
  runCampaignSession,
  runCampaignInThread,
  CampaignError,
  type CampaignSessionOptions,
  type CampaignHooks,
  type CampaignPlan,
  type CampaignSessionResult,
} from "./fuzz/campaign-session.js";
export type { ShrunkFailure, ShrunkReport } from "./fuzz/shrink-first-failure.js";
export { STRATEGIES, STRATEGY_NAMES, type SearchStrategy, type StrategyName } from "./fuzz/search/strategies.js";
export { MUTANTS, EQUIVALENT_MUTANTS, findMutant, withMutant, killsMutant, type Mutant } from "./fuzz/mutants.js";

function scenarioOf(scenario: LoadedScenario | string): LoadedScenario {
  return typeof scenario === "string" ? loadScenario(scenario) : scenario;
}

/** One run of a scenario: from a seed number, or from a recorded choice tape. */
export function runSeed(
  scenario: LoadedScenario | string | RunConfig,
  input: RunInput,
  options: RunOptions = {},
): RunResult {
  const config = typeof scenario === "object" && "spec" in scenario ? scenario : runConfigFor(scenarioOf(scenario));
  return runSeedOf(config, input, options);
}

/**
 * Seeds seedStart .. seedStart+seeds-1 (default: the scenario's own budget from 0), judged against the
 * scenario's expectation, in this thread. runCampaignSession runs the other strategies, on workers.
 */
export function runCampaign(scenario: LoadedScenario | string, options: Partial<CampaignOptions> = {}): CampaignResult {
  const { onSeed, shouldStop, doneAfter, ...campaign } = options;
  return runCampaignInThread(planCampaign({ scenario, ...campaign }), { onSeed, shouldStop, doneAfter }).campaign;
}
