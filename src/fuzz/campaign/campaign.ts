import type { ReleaseFlags } from "../../kafka/release.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import type { StepRecord } from "../../scenario/script/script-driver.js";
import { toClusterSpec } from "../../scenario/to-cluster-spec.js";
import type { StopReason, TallyData } from "./campaign-tally.js";
import type { SeededViolation } from "./seeded-violation.js";
import { evaluateExpectation, type ExpectationVerdict } from "./expectation.js";
import { type CoverageSummary, goalFailures, summarizeCoverage } from "./protocol-coverage-summary.js";
import type { RunConfig, RunShaping } from "../run/run-seed.js";
import { type Shard, shardRange } from "./shard.js";
import type { StrategyName } from "./strategy-names.js";
import { type CampaignStatistics, campaignStatistics } from "./statistics.js";

/** What a strategy did and what its result means. */
export interface StrategyInfo {
  name: StrategyName;
  /** One line for humans: what was searched and what it guarantees. */
  summary: string;
  /** How each run was shaped (what a saved tape needs to replay); absent for plain runs. */
  runShaping?: RunShaping;
  pct?: {
    depth: number;
    scope: string;
    messagesPerRun: number;
    chains: number;
    perRunBound: number;
    missProbabilityBound: number;
  };
  /** aimedRuns: runs aimed at a late marker copy, counted among mutatedRuns. */
  coverage?: { corpus: number; generations: number; freshRuns: number; mutatedRuns: number; aimedRuns?: number };
  exhaustive?: {
    exhaustive: boolean;
    depth: number;
    depthCompleted: number;
    schedules: number;
    states: number;
    prunedBranches: number;
    counterexampleDeviations: number | null;
  };
}

export interface CampaignResult {
  scenario: LoadedScenario;
  seedStart: number;
  /** Runs the campaign planned (for a shard: the whole campaign's). */
  plannedSeeds: number;
  shard: Shard | null;
  seedsRun: number;
  events: number;
  virtualTimeMs: number;
  violations: SeededViolation[];
  /** Seeds with at least one violation, in order. */
  failingSeeds: number[];
  verdict: ExpectationVerdict;
  interrupted: boolean;
  stoppedBy: StopReason | null;
  strategy: StrategyInfo;
  statistics: CampaignStatistics;
  coverage: CoverageSummary;
  /** Scripted scenarios: the step log of the first seed whose script failed, else of the first seed. */
  scriptSteps: StepRecord[] | null;
  /** The seeds (run indices for tape strategies) that ran, as sorted inclusive ranges. */
  completedRanges: [number, number][];
}

export function runConfigFor(loaded: LoadedScenario, overrides: Partial<ReleaseFlags> = {}): RunConfig {
  return {
    scenario: loaded.scenario.name,
    spec: toClusterSpec(loaded.scenario, overrides),
    script: loaded.scenario.script ?? null,
  };
}

export interface FinishParams {
  seedStart: number;
  plannedSeeds: number;
  shard: Shard | null;
  stoppedBy: StopReason | null;
  strategy: StrategyInfo;
  overrides: Partial<ReleaseFlags>;
  bugProbabilities?: readonly number[];
}

/**
 * Judge a tallied campaign: the expectation (for a shard, only what one slice can decide: nothing
 * unexpected; `find` and coverage goals are judged when the shards are merged), coverage goals,
 * statistics.
 */
export function finishCampaign(loaded: LoadedScenario, tally: TallyData, p: FinishParams): CampaignResult {
  const s = loaded.scenario;
  const start = shardRange(p.seedStart, p.plannedSeeds, p.shard).start;
  const coverage = summarizeCoverage(s, tally.points, tally.goals, p.overrides);
  const verdict = judge(loaded, tally, p.seedStart, p.shard, coverage);
  const statistics = campaignStatistics(
    tally.violations,
    tally.runs,
    (seed) => seed - start + 1,
    tally.firstHitWallMs,
    p.bugProbabilities,
  );
  return {
    scenario: loaded,
    seedStart: p.seedStart,
    plannedSeeds: p.plannedSeeds,
    shard: p.shard,
    seedsRun: tally.runs,
    events: tally.events,
    virtualTimeMs: tally.virtualTimeMs,
    violations: tally.violations,
    failingSeeds: tally.failingSeeds,
    verdict,
    interrupted: p.stoppedBy === "interrupted",
    stoppedBy: p.stoppedBy,
    strategy: p.strategy,
    statistics,
    coverage,
    scriptSteps: tally.scriptSteps,
    completedRanges: tally.completedRanges,
  };
}

function judge(
  loaded: LoadedScenario,
  tally: TallyData,
  seedStart: number,
  shard: Shard | null,
  coverage: CoverageSummary,
): ExpectationVerdict {
  const expect = loaded.scenario.expect;
  if (shard) return evaluateExpectation(expect, tally.violations, seedStart, tally.runs, { judgeFinds: false });
  const verdict = evaluateExpectation(expect, tally.violations, seedStart, tally.runs);
  const goals = goalFailures(coverage.goals, tally.runs);
  return goals.length === 0 ? verdict : { ...verdict, met: false, reasons: [...verdict.reasons, ...goals] };
}
