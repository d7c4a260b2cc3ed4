import type { Violation } from "../oracle/violation.js";
import type { LoadedScenario } from "../scenario/loader.js";
import { toClusterSpec } from "../scenario/to-cluster-spec.js";
import type { ReleaseFlags } from "../kafka/release.js";
import type { StepRecord } from "../scenario/script-driver.js";
import { evaluateExpectation, type ExpectationVerdict } from "./expectation.js";
import { type RunConfig, type RunResult, runSeed } from "./run-seed.js";

/** A violation with the seed and trace hash that reproduce it. */
export interface SeededViolation extends Violation {
  seed: number;
  traceHash: string;
}

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

export interface CampaignResult {
  scenario: LoadedScenario;
  seedStart: number;
  seedsRun: number;
  events: number;
  virtualTimeMs: number;
  violations: SeededViolation[];
  /** Seeds with at least one violation, in order. */
  failingSeeds: number[];
  verdict: ExpectationVerdict;
  interrupted: boolean;
  /** Scripted scenarios: the step log of the first seed whose script failed, else of the first seed. */
  scriptSteps: StepRecord[] | null;
}

export function runConfigFor(loaded: LoadedScenario, overrides: Partial<ReleaseFlags> = {}): RunConfig {
  return { scenario: loaded.scenario.name, spec: toClusterSpec(loaded.scenario, overrides), script: loaded.scenario.script ?? null };
}

/** Run seeds seedStart .. seedStart+seeds-1 one after another and judge the expectation. */
export function runCampaign(loaded: LoadedScenario, options: CampaignOptions): CampaignResult {
  const config = runConfigFor(loaded, options.overrides);
  const violations: SeededViolation[] = [];
  const failingSeeds: number[] = [];
  let events = 0;
  let virtualTimeMs = 0;
  let seedsRun = 0;
  let interrupted = false;
  let scriptSteps: StepRecord[] | null = null;
  let scriptFailed = false;
  for (let i = 0; i < options.seeds; i++) {
    if (options.shouldStop?.()) {
      interrupted = true;
      break;
    }
    const seed = options.seedStart + i;
    const result = runSeed(config, { seed });
    seedsRun++;
    events += result.stats.events;
    virtualTimeMs += result.stats.virtualTimeMs;
    if (result.violations.length > 0) failingSeeds.push(seed);
    for (const v of result.violations) violations.push({ ...v, seed, traceHash: result.traceHash });
    if (result.script && !scriptFailed && (scriptSteps === null || !result.script.completed)) {
      scriptSteps = result.script.steps;
      scriptFailed = !result.script.completed;
    }
    options.onSeed?.(result, seedsRun);
    if (options.doneAfter?.(result)) break;
  }
  const verdict = evaluateExpectation(loaded.scenario.expect, violations, options.seedStart, seedsRun);
  return { scenario: loaded, seedStart: options.seedStart, seedsRun, events, virtualTimeMs, violations, failingSeeds, verdict, interrupted, scriptSteps };
}
