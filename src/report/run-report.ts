import type { DeterminismReport } from "../fuzz/run/determinism-check.js";
import type { ShrunkReport } from "../fuzz/shrink/shrink-first-failure.js";
import type { CampaignResult, StrategyInfo } from "../fuzz/campaign/campaign.js";
import type { SeededViolation } from "../fuzz/campaign/seeded-violation.js";
import type { StopReason } from "../fuzz/campaign/campaign-tally.js";
import {
  countsAsFound,
  describeWhere,
  isModelFailure,
  MODEL_FAILURE_REASON_PREFIX,
} from "../fuzz/campaign/expectation.js";
import { scenarioArgument } from "../fuzz/search/replay-commands.js";
import { type Shard, shardRange } from "../fuzz/campaign/shard.js";
import type { CoverageSummary } from "../fuzz/campaign/protocol-coverage-summary.js";
import type { CampaignStatistics } from "../fuzz/campaign/statistics.js";
import { copyPlaceFields } from "../oracle/violation.js";
import type { Expectation } from "../scenario/schema.js";
import type { Tape } from "../sim/choice-tape.js";
import type { StepRecord } from "../scenario/script/script-driver.js";
import { TOOL_NAME, TOOL_VERSION } from "../version.js";

export const RUN_REPORT_SCHEMA_VERSION = 1;

export interface ReportedViolation {
  kind: string;
  seed: number;
  traceHash: string;
  summary: string;
  /** The causal chain as text: summary line, then one step per line. */
  explanation: string;
  steps: string[];
  atMs: number;
  partition?: string;
  broker?: string;
  brokerRelease?: string;
  transaction?: string;
  markerIssuedFor?: string;
  coordinatorBroker?: string;
  coordinatorRelease?: string;
  markerVersion?: number;
  leaderEpoch?: number;
  replay: string;
  /** Not allowed by the scenario's expectation: a failing result (JUnit, annotations, exit code). */
  unexpected: boolean;
  /** Tape strategies (coverage, exhaustive): the run's choice tape, on the first violation of each run. */
  tape?: Tape;
}

/** One clause of the expectation, judged: a test case in junit.xml. */
export interface ExpectationCheck {
  /** find: an expected kind was found in budget; nothing-unexpected: no violation outside the expectation; other. */
  clause: "find" | "nothing-unexpected" | "other";
  name: string;
  met: boolean;
  detail: string;
}

/** A shard and its slice of the campaign's seeds: firstSeed..lastSeed (completedSeeds: those that ran). */
export type ReportedShard = Shard & { firstSeed?: number; lastSeed?: number };

/** The slice of a shard's campaign its seeds come from. */
function shardSeeds(result: CampaignResult): { firstSeed: number; lastSeed: number } {
  const { start, end } = shardRange(result.seedStart, result.plannedSeeds, result.shard);
  return { firstSeed: start, lastSeed: end - 1 };
}

/** The `--json` object and run.json: stable keys, violations sorted by seed. */
export type { ShrunkReport } from "../fuzz/shrink/shrink-first-failure.js";

export interface RunReport {
  schemaVersion: number;
  tool: { name: string; version: string };
  scenario: string;
  scenarioHash: string;
  scenarioSource: string;
  mutant: string | null;
  strategy: StrategyInfo;
  /** This report covers one shard of the campaign (null: all of it, also after `eosfuzz merge`), with its slice of seeds. */
  shard: ReportedShard | null;
  seedStart: number;
  /** Runs the whole campaign planned (--seeds). */
  seedsPlanned: number;
  seedsRun: number;
  interrupted: boolean;
  /** The seeds that ran (run indices for coverage and exhaustive), as sorted inclusive ranges [first, last]. */
  completedSeeds: [number, number][];
  /** Why the campaign ended before its planned runs (null: it ran them all). */
  stoppedBy: StopReason | null;
  events: number;
  virtualTimeMs: number;
  expectation: Expectation;
  expectationMet: boolean;
  expectationReasons: string[];
  expectationChecks: ExpectationCheck[];
  violationsByKind: Record<string, number>;
  failingSeeds: number[];
  violations: ReportedViolation[];
  /** Scripted scenarios: the step log (of the first seed whose script failed, else of the first seed). */
  scriptSteps: StepRecord[] | null;
  /** What the sweep showed and what a clean result proves (wallMsToFirstHit is a timing). */
  statistics: CampaignStatistics;
  /** Abstract protocol states reached and never reached, and the scenario's coverage goals. */
  coverage: CoverageSummary;
  /** Failures of eosfuzz's own model (model-error, model-timeout): bugs in the tool, not in Kafka; any fails the run. */
  modelFailures: { violations: number; seeds: number[] };
  /** Seed files written by --save-failures (absent without it). */
  seedFiles?: string[];
  /** The run's first failure shrunk to its minimal schedule (absent with --no-shrink or no failure). */
  shrunk?: ShrunkReport;
  /** --check-determinism: seeds run twice and any whose traces differed. */
  determinism?: DeterminismReport;
  /** Wall-clock figures: the only non-deterministic part of the report (see WALL_CLOCK_FIELDS). */
  wallMs: number;
  eventsPerSecond: number;
  seedsPerSecond: number;
  /** When the run started (ISO 8601, UTC). */
  startedAt: string;
}

/** Top-level fields that depend on the wall clock; everything else is a pure function of the run. */
export const WALL_CLOCK_FIELDS = ["wallMs", "eventsPerSecond", "seedsPerSecond", "startedAt"] as const;

/** The report without its wall-clock fields: equal for equal runs, whatever the machine or the day. */
export function deterministicPart(report: RunReport): Omit<RunReport, (typeof WALL_CLOCK_FIELDS)[number]> {
  const copy: Record<string, unknown> = { ...report };
  for (const field of WALL_CLOCK_FIELDS) delete copy[field];
  if (report.shrunk) copy.shrunk = { ...report.shrunk, timeMs: 0 };
  if (report.statistics)
    copy.statistics = {
      ...report.statistics,
      signatures: report.statistics.signatures.map((s) => ({ ...s, wallMsToFirstHit: null })),
    };
  return copy as Omit<RunReport, (typeof WALL_CLOCK_FIELDS)[number]>;
}

/** The command that runs one seed again; `scenario` as --scenario takes it (scenarioArgument). */
export function replayCommand(scenario: string, seed: number, mutant: string | null): string {
  return `eosfuzz run --scenario ${scenario} --seed-start ${seed} --seeds 1${mutant ? ` --mutant ${mutant}` : ""}`;
}

/** The seeds a report's runs covered, as a reader writes them: "100..199", "0..9, 20..29", or "none". */
export function seedsCovered(report: Pick<RunReport, "completedSeeds" | "seedStart" | "seedsRun">): string {
  const ranges = report.completedSeeds ?? [[report.seedStart, report.seedStart + report.seedsRun - 1]];
  if (ranges.length === 0 || report.seedsRun === 0) return "none";
  const shown = ranges.slice(0, 4).map(([a, b]) => (a === b ? `${a}` : `${a}..${b}`));
  return `${shown.join(", ")}${ranges.length > 4 ? ", ..." : ""}`;
}

function reportViolation(
  v: SeededViolation,
  scenario: string,
  mutant: string | null,
  unexpected: boolean,
): ReportedViolation {
  // `scenario`: as --scenario takes it (a file's path for a scenario of one's own).
  const out: ReportedViolation = {
    kind: v.kind,
    seed: v.seed,
    traceHash: v.traceHash,
    summary: v.summary,
    explanation: [v.summary, ...v.explanation].join("\n"),
    steps: v.explanation,
    atMs: v.atMs,
    replay: v.replay ? `${v.replay}${mutant ? ` --mutant ${mutant}` : ""}` : replayCommand(scenario, v.seed, mutant),
    unexpected,
  };
  copyPlaceFields(v, out);
  if (v.tape !== undefined) out.tape = v.tape;
  return out;
}

/**
 * The expectation clause by clause: each expected kind found in budget, and nothing unexpected.
 * Reasons the clauses do not cover (an interrupted run, goals added later) become failing checks.
 */
export function expectationChecks(result: CampaignResult): ExpectationCheck[] {
  const expect = result.scenario.scenario.expect;
  const { verdict, seedStart } = result;
  const checks: ExpectationCheck[] = [];
  const where = expect.where ? ` ${describeWhere(expect.where)}` : "";
  const findAny = expect.findAny ?? [];
  // A shard sees one slice of the seeds: what it found is said, the clause is judged by merge over all shards.
  if (result.shard && !expect.clean) {
    const sought = [...expect.find.map((k) => [k]), ...(findAny.length > 0 ? [findAny] : [])];
    for (const kinds of sought) {
      const first = result.violations.find((v) => kinds.some((k) => countsAsFound(expect, k, v)));
      const what = kinds.length === 1 ? kinds[0] : `any of ${kinds.join(", ")}`;
      checks.push({
        clause: "find",
        name: `finds ${what} within ${expect.within ?? result.plannedSeeds} seeds${where} (judged over all shards by eosfuzz merge)`,
        met: true,
        detail: first
          ? `this shard found it first at seed ${first.seed}`
          : `not found in this shard's ${result.seedsRun} seeds`,
      });
    }
  }
  for (const kind of expect.clean || result.shard ? [] : expect.find) {
    const budget = expect.within ?? result.seedsRun;
    const first = verdict.found[kind] ?? null;
    const met = first !== null && first - seedStart < budget;
    const detail =
      first === null
        ? `not found in ${result.seedsRun} seeds`
        : `first found at seed ${first} (${first - seedStart + 1} seeds in)`;
    checks.push({ clause: "find", name: `finds ${kind} within ${budget} seeds${where}`, met, detail });
  }
  if (!expect.clean && !result.shard && findAny.length > 0) {
    const budget = expect.within ?? result.seedsRun;
    const seeds = findAny.map((k) => verdict.found[k] ?? null).filter((s): s is number => s !== null);
    const first = seeds.length > 0 ? Math.min(...seeds) : null;
    const met = first !== null && first - seedStart < budget;
    const detail =
      first === null
        ? `none found in ${result.seedsRun} seeds`
        : `first found at seed ${first} (${first - seedStart + 1} seeds in)`;
    checks.push({
      clause: "find",
      name: `finds any of ${findAny.join(", ")} within ${budget} seeds${where}`,
      met,
      detail,
    });
  }
  // Model failures are not protocol findings: they have their own line (and fail the run all the same).
  const protocolUnexpected = verdict.unexpected.filter((v) => !isModelFailure(v.kind));
  const unexpected = protocolUnexpected.length;
  const kinds = [...new Set(protocolUnexpected.map((v) => v.kind))].join(", ");
  checks.push({
    clause: "nothing-unexpected",
    name:
      expect.clean || expect.find.length + findAny.length === 0
        ? "no violation of any kind"
        : "no violation the expectation does not allow",
    met: unexpected === 0,
    detail:
      unexpected === 0
        ? `none in ${result.seedsRun} seeds`
        : `${unexpected} unexpected (${kinds}), first at seed ${protocolUnexpected[0]?.seed}`,
  });
  const covered = (reason: string) => reason.startsWith("expected ") || reason.startsWith("unexpected ");
  for (const reason of verdict.reasons.filter((r) => !covered(r))) {
    const model = reason.startsWith(MODEL_FAILURE_REASON_PREFIX);
    checks.push({
      clause: "other",
      name: model ? "the model runs without failing (model-error, model-timeout)" : reason,
      met: false,
      detail: reason,
    });
  }
  if (result.interrupted)
    checks.push({
      clause: "other",
      name: "runs its whole seed budget",
      met: false,
      detail: `interrupted after ${result.seedsRun} seeds`,
    });
  return checks;
}

/** A run's tape is kept on its first violation only (the others of the same run would repeat it). */
function withTapeOncePerRun(violations: ReportedViolation[]): ReportedViolation[] {
  let last = -1;
  for (const v of violations) {
    if (v.seed === last) delete v.tape;
    last = v.seed;
  }
  return violations;
}

function modelFailuresOf(violations: readonly SeededViolation[]): RunReport["modelFailures"] {
  const failures = violations.filter((v) => isModelFailure(v.kind));
  return { violations: failures.length, seeds: [...new Set(failures.map((v) => v.seed))].sort((a, b) => a - b) };
}

export function buildRunReport(
  result: CampaignResult,
  wallMs: number,
  mutant: string | null = null,
  startedAt: Date = new Date(Date.now() - wallMs),
): RunReport {
  const name = result.scenario.scenario.name;
  const scenarioArg = scenarioArgument(result.scenario);
  const unexpected = new Set(result.verdict.unexpected);
  const byKind: Record<string, number> = {};
  for (const v of result.violations) byKind[v.kind] = (byKind[v.kind] ?? 0) + 1;
  const seconds = Math.max(wallMs, 1) / 1000;
  return {
    schemaVersion: RUN_REPORT_SCHEMA_VERSION,
    tool: { name: TOOL_NAME, version: TOOL_VERSION },
    scenario: name,
    scenarioHash: result.scenario.contentHash,
    scenarioSource: result.scenario.source,
    mutant,
    strategy: result.strategy,
    shard: result.shard ? { ...result.shard, ...shardSeeds(result) } : null,
    seedStart: result.seedStart,
    seedsPlanned: result.plannedSeeds,
    seedsRun: result.seedsRun,
    interrupted: result.interrupted,
    completedSeeds: result.completedRanges,
    stoppedBy: result.stoppedBy,
    events: result.events,
    virtualTimeMs: result.virtualTimeMs,
    expectation: result.scenario.scenario.expect,
    expectationMet: result.verdict.met && !result.interrupted,
    expectationReasons: result.interrupted
      ? ["interrupted before the seed budget was run", ...result.verdict.reasons]
      : result.verdict.reasons,
    expectationChecks: expectationChecks(result),
    violationsByKind: Object.fromEntries(Object.entries(byKind).sort(([a], [b]) => a.localeCompare(b))),
    failingSeeds: result.failingSeeds,
    violations: withTapeOncePerRun(
      [...result.violations]
        .sort((a, b) => a.seed - b.seed)
        .map((v) => reportViolation(v, scenarioArg, mutant, unexpected.has(v))),
    ),
    scriptSteps: result.scriptSteps,
    statistics: result.statistics,
    coverage: result.coverage,
    modelFailures: modelFailuresOf(result.violations),
    wallMs: Math.round(wallMs),
    eventsPerSecond: Math.round(result.events / seconds),
    seedsPerSecond: Math.round((result.seedsRun / seconds) * 10) / 10,
    startedAt: startedAt.toISOString(),
  };
}
