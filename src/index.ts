/**
 * eosfuzz as a library, for people's own test suites:
 *
 *   import { loadScenario, runSeed, runCampaign, replay } from "eosfuzz";
 *
 * runCampaign runs random seeds in this thread, synchronously; runCampaignAsync runs any strategy on
 * worker threads, with a timeout; planCampaign + runCampaignSession add what `eosfuzz run` does
 * around a campaign (resume, corpus, shrinking, seed files).
 *
 * Every run is a pure function of (scenario, seed | tape). Bad input throws InputError (one line).
 */
import { type CampaignResult, runConfigFor } from "./fuzz/campaign/campaign.js";
import type { CampaignOptions } from "./fuzz/search/run-campaign.js";
import { availableParallelism } from "node:os";
import {
  type CampaignSessionOptions,
  planCampaign,
  runCampaignInThread,
  runCampaignSession,
} from "./fuzz/session/campaign-session.js";
import {
  type RunConfig,
  type RunInput,
  type RunOptions,
  type RunResult,
  runSeed as runSeedOf,
} from "./fuzz/run/run-seed.js";
import { type LoadedScenario, loadScenario } from "./scenario/loader.js";

export { TOOL_VERSION } from "./version.js";
export { InputError } from "./common/input-error.js";
export { VIOLATION_KINDS, type Violation, type ViolationKind } from "./oracle/violation.js";
export { RELEASE_NAMES, type ReleaseFlags, type ReleaseName } from "./kafka/release.js";
export type { Scenario, Expectation } from "./scenario/schema.js";
export type { Script, ScriptStep } from "./scenario/script/script-schema.js";
export type { StepRecord, ScriptRun } from "./scenario/script/script-driver.js";
export type { LoadedScenario } from "./scenario/loader.js";
export type { CampaignResult } from "./fuzz/campaign/campaign.js";
export type { SeededViolation } from "./fuzz/campaign/seeded-violation.js";
export type { CampaignOptions } from "./fuzz/search/run-campaign.js";
export type { RunConfig, RunInput, RunOptions, RunResult } from "./fuzz/run/run-seed.js";
export type { ExpectationVerdict } from "./fuzz/campaign/expectation.js";
export { replay, replaySeed, type ReplayResult, type ReplayStatus, type Divergence } from "./fuzz/seeds/replay.js";
export {
  readSeedFile,
  parseSeedFile,
  buildSeedFile,
  renderSeedFile,
  type SeedFile,
  type LoadedSeedFile,
} from "./fuzz/seeds/seed-file.js";
export { failingSeedFiles, type SeedFileToWrite } from "./fuzz/seeds/save-failures.js";
export { regress, type RegressResult, type RegressRow, type RegressOptions } from "./fuzz/catalogue/regress.js";
export { builtinScenarioNames, parseScenario, contentHash } from "./scenario/loader.js";
export { runConfigFor } from "./fuzz/campaign/campaign.js";
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
} from "./fuzz/session/campaign-session.js";
export type { ShrunkFailure, ShrunkReport } from "./fuzz/shrink/shrink-first-failure.js";
export { STRATEGIES, type SearchStrategy } from "./fuzz/search/strategies.js";
export { STRATEGY_NAMES, type StrategyName } from "./fuzz/campaign/strategy-names.js";
export {
  MUTANTS,
  EQUIVALENT_MUTANTS,
  findMutant,
  withMutant,
  killsMutant,
  type Mutant,
} from "./fuzz/catalogue/mutants.js";

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

/** Options of runCampaignAsync: a campaign's (strategy, seeds, ...), where it runs, and how long it may take. */
export interface AsyncCampaignOptions extends Omit<CampaignSessionOptions, "scenario" | "resumeFrom"> {
  /** Worker threads (default: the cores, at most 4; 0: in this thread). */
  workers?: number;
  /** Stop starting runs after this many wall-clock ms: the result is then `timedOut`, interrupted after the runs in flight. */
  timeoutMs?: number;
  /** Aborting stops the campaign the same way (after the runs in flight). */
  signal?: AbortSignal;
}

/** A campaign run by runCampaignAsync: its result, and whether it was stopped by its timeout. */
export interface AsyncCampaignResult {
  result: CampaignResult;
  /** The expectation held over the whole campaign. */
  expectationMet: boolean;
  /** timeoutMs ran out before the campaign did: `result` covers the seeds that finished. */
  timedOut: boolean;
  wallMs: number;
}

/** The default number of workers of runCampaignAsync: every core, at most 4 (a test suite runs beside it). */
export function defaultAsyncWorkers(): number {
  return Math.min(4, availableParallelism());
}

/**
 * A campaign of any strategy on worker threads, without blocking this thread: the asynchronous
 * counterpart of runCampaign, for test suites and services. With timeoutMs it stops starting runs
 * when the time is up and says so (`timedOut`).
 */
export async function runCampaignAsync(
  scenario: LoadedScenario | string,
  options: AsyncCampaignOptions = {},
): Promise<AsyncCampaignResult> {
  const { timeoutMs, signal, ...campaign } = options;
  const plan = planCampaign({ scenario, ...campaign, workers: campaign.workers ?? defaultAsyncWorkers() });
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? null
      : setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  if (signal?.aborted) controller.abort();
  try {
    const session = await runCampaignSession(plan, { signal: controller.signal });
    return {
      result: session.campaign,
      expectationMet: session.expectationMet,
      timedOut: timedOut && session.interrupted,
      wallMs: session.wallMs,
    };
  } finally {
    if (timer) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
