import { type CampaignResult, finishCampaign, type StrategyInfo } from "../fuzz/campaign/campaign.js";
import type { SeededViolation } from "../fuzz/campaign/seeded-violation.js";
import { mergeRanges, type StopReason, type TallyData } from "../fuzz/campaign/campaign-tally.js";
import type { PointTally } from "../fuzz/campaign/protocol-coverage-summary.js";
import type { ReleaseFlags } from "../kafka/release.js";
import { shardRange } from "../fuzz/campaign/shard.js";
import { strategyNamed } from "../fuzz/search/strategies.js";
import { TOOL_NAME, TOOL_VERSION } from "../version.js";
import { InputError } from "../common/input-error.js";
import type { LoadedScenario } from "../scenario/loader.js";
import { canonicalJson } from "../scenario/loader.js";
import type { StepRecord } from "../scenario/script/script-driver.js";
import { readRunReport } from "./read-run-report.js";
import { copyPlaceFields } from "../oracle/violation.js";
import type { ReportedViolation, RunReport } from "./run-report.js";

/** Most shard reports one merge takes. */
const MAX_REPORTS = 100_000;

export interface ShardReport {
  file: string;
  report: RunReport;
}

/**
 * Read one shard's run.json (validated as any run report, then as a shard report): a report of
 * eosfuzz, of this version (shards of another version ran another model: their results do not add
 * up with this version's judgement), whose seeds all lie in its own slice of the campaign.
 */
export function readShardReport(file: string): ShardReport {
  const report = readRunReport(file);
  if (report.tool.name !== TOOL_NAME)
    throw new InputError(
      file,
      "tool.name",
      `expected a run report of ${TOOL_NAME}, found one of ${JSON.stringify(report.tool.name)}`,
    );
  if (report.tool.version !== TOOL_VERSION)
    throw new InputError(
      file,
      "tool.version",
      `expected a shard run by ${TOOL_NAME} ${TOOL_VERSION}, this version (another version models Kafka differently, so its results do not add up with this one's: merge with the version that ran the shards), found ${JSON.stringify(report.tool.version)}`,
    );
  const shard = report.shard;
  if (!shard)
    throw new InputError(
      file,
      "shard",
      "expected a shard report (eosfuzz run --shard I/N --out DIR), found a report of a whole campaign",
    );
  for (const key of ["strategy", "seedsPlanned", "statistics", "coverage"] as const) {
    if (report[key] === undefined)
      throw new InputError(file, key, "expected the field a shard report of this version has, found none");
  }
  checkShardSeeds(file, report);
  return { file, report };
}

/** Every seed a shard reports lies in its slice, and it ran as many seeds as its ranges hold. */
function checkShardSeeds(file: string, report: RunReport): void {
  const shard = report.shard as NonNullable<RunReport["shard"]>;
  const { start, end } = shardRange(report.seedStart, report.seedsPlanned, shard);
  const slice = `its slice of shard ${shard.index}/${shard.count}: seeds ${start}..${end - 1}`;
  const outside = (seed: number) => seed < start || seed >= end;
  const ranges = report.completedSeeds ?? [];
  let ran = 0;
  for (const [i, [first, last]] of ranges.entries()) {
    if (first > last || outside(first) || outside(last))
      throw new InputError(file, `completedSeeds[${i}]`, `expected seeds in ${slice}, found ${first}..${last}`);
    ran += last - first + 1;
  }
  if (ran !== report.seedsRun)
    throw new InputError(
      file,
      "seedsRun",
      `expected the number of seeds in completedSeeds (${ran}), found ${report.seedsRun}`,
    );
  const ranSeed = (seed: number) => ranges.some(([first, last]) => seed >= first && seed <= last);
  for (const [i, seed] of report.failingSeeds.entries())
    if (!ranSeed(seed))
      throw new InputError(file, `failingSeeds[${i}]`, `expected a seed the shard ran (${slice}), found ${seed}`);
  for (const [i, v] of report.violations.entries())
    if (!ranSeed(v.seed))
      throw new InputError(file, `violations[${i}].seed`, `expected a seed the shard ran (${slice}), found ${v.seed}`);
}

function sameCampaign(a: RunReport, b: RunReport): string | null {
  const fields: (keyof RunReport)[] = ["scenario", "scenarioHash", "mutant", "seedStart", "seedsPlanned"];
  for (const f of fields)
    if (a[f] !== b[f])
      return `${f}: expected ${JSON.stringify(a[f])} as in the first report, found ${JSON.stringify(b[f])}`;
  if (a.strategy.name !== b.strategy.name) return `strategy: expected ${a.strategy.name}, found ${b.strategy.name}`;
  if (canonicalJson(a.strategy.runShaping ?? null) !== canonicalJson(b.strategy.runShaping ?? null))
    return "strategy.runShaping: the shards ran with different strategy parameters";
  if (a.shard?.count !== b.shard?.count) return `shard: expected shards of ${a.shard?.count}, found ${b.shard?.count}`;
  return null;
}

function seededViolation(v: ReportedViolation, mutant: string | null): SeededViolation {
  const suffix = mutant ? ` --mutant ${mutant}` : "";
  const out: SeededViolation = {
    kind: v.kind as SeededViolation["kind"],
    summary: v.summary,
    explanation: v.steps,
    atMs: v.atMs,
    seed: v.seed,
    traceHash: v.traceHash,
    replay: suffix && v.replay.endsWith(suffix) ? v.replay.slice(0, -suffix.length) : v.replay,
  };
  copyPlaceFields(v, out);
  if (v.tape !== undefined) out.tape = v.tape;
  return out;
}

function addTally(map: Map<string, PointTally>, key: string, seeds: number, firstSeed: number): void {
  const t = map.get(key);
  if (t) {
    t.seeds += seeds;
    t.firstSeed = Math.min(t.firstSeed, firstSeed);
  } else {
    map.set(key, { seeds, firstSeed });
  }
}

/** What all shards together learned. Shards own disjoint runs, so counts add up exactly. */
function mergedTally(shards: readonly ShardReport[], goalCount: number): TallyData {
  const points = new Map<string, PointTally>();
  const goals: (PointTally | null)[] = Array.from({ length: goalCount }, () => null);
  const firstHitWallMs = new Map<string, number>();
  const violations: SeededViolation[] = [];
  const failingSeeds: number[] = [];
  let runs = 0;
  let events = 0;
  let virtualTimeMs = 0;
  for (const { report } of shards) {
    runs += report.seedsRun;
    events += report.events;
    virtualTimeMs += report.virtualTimeMs;
    failingSeeds.push(...report.failingSeeds);
    violations.push(...report.violations.map((v) => seededViolation(v, report.mutant)));
    for (const p of report.coverage.reached) addTally(points, p.point, p.seeds, p.firstSeed);
    report.coverage.goals.forEach((g, i) => {
      if (i >= goalCount || g.seeds === 0 || g.firstSeed === null) return;
      const t = goals[i];
      goals[i] = t
        ? { seeds: t.seeds + g.seeds, firstSeed: Math.min(t.firstSeed, g.firstSeed) }
        : { seeds: g.seeds, firstSeed: g.firstSeed };
    });
    for (const s of report.statistics.signatures) {
      if (s.wallMsToFirstHit === null) continue;
      firstHitWallMs.set(
        s.signature,
        Math.min(firstHitWallMs.get(s.signature) ?? Number.POSITIVE_INFINITY, s.wallMsToFirstHit),
      );
    }
  }
  violations.sort((a, b) => a.seed - b.seed);
  failingSeeds.sort((a, b) => a - b);
  const completedRanges = mergeRanges(shards.map(({ report }) => report.completedSeeds ?? []));
  return {
    runs,
    events,
    virtualTimeMs,
    violations,
    failingSeeds,
    points,
    goals,
    firstHitWallMs,
    scriptSteps: mergedScriptSteps(shards),
    completedRanges,
  };
}

/** As one campaign keeps them: the step log of the first run whose script failed, else of the first run. */
function mergedScriptSteps(shards: readonly ShardReport[]): StepRecord[] | null {
  const logs = shards.map((s) => s.report.scriptSteps).filter((steps): steps is StepRecord[] => steps !== null);
  return logs.find((steps) => steps.some((step) => !step.ok)) ?? logs[0] ?? null;
}

function mergedStrategy(first: RunReport, shards: readonly ShardReport[], runs: number): StrategyInfo {
  const infos = shards.map(({ report }) => report.strategy);
  return strategyNamed(first.strategy.name).mergeShards?.(first.strategy, infos, runs) ?? first.strategy;
}

/**
 * Merge the run.json of every shard of one campaign into the report the unsharded campaign would
 * have written (timings aside): totals add up, violations and failing seeds are re-sorted by seed,
 * coverage and goal tallies add up, and the expectation (with its `find` budgets and the coverage
 * goals, which no single shard can judge) is evaluated once over everything.
 */
export function mergeShardReports(
  shards: readonly ShardReport[],
  loaded: LoadedScenario,
  overrides: Partial<ReleaseFlags> = {},
): { result: CampaignResult; wallMs: number; mutant: string | null; startedAt: Date } {
  if (shards.length === 0) throw new InputError("merge", "", "expected at least one run.json");
  if (shards.length > MAX_REPORTS)
    throw new InputError("merge", "", `expected at most ${MAX_REPORTS} reports, found ${shards.length}`);
  const first = shards[0] as ShardReport;
  const count = first.report.shard?.count ?? 0;
  const byIndex = new Map<number, ShardReport>();
  for (const s of shards) {
    const problem = sameCampaign(first.report, s.report);
    if (problem) throw new InputError(s.file, "", `not a shard of the same campaign as ${first.file}: ${problem}`);
    const index = s.report.shard?.index ?? -1;
    const other = byIndex.get(index);
    if (other)
      throw new InputError(
        s.file,
        "shard",
        `expected each shard once, found shard ${index}/${count} also in ${other.file}`,
      );
    byIndex.set(index, s);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new InputError(
      "merge",
      "",
      `expected all ${count} shards, missing shard${missing.length > 1 ? "s" : ""} ${missing.slice(0, 10).join(", ")}${missing.length > 10 ? ", ..." : ""}`,
    );
  const ordered = [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i) as ShardReport);
  if (loaded.contentHash !== first.report.scenarioHash)
    throw new InputError(
      first.file,
      "scenarioHash",
      `expected the content hash of ${loaded.source} (${loaded.contentHash}), found ${first.report.scenarioHash}`,
    );
  const tally = mergedTally(ordered, (loaded.scenario.coverage?.goals ?? []).length);
  const stoppedBy: StopReason | null = ordered.map((s) => s.report.stoppedBy).find((x) => x !== null) ?? null;
  const r = first.report;
  const result = finishCampaign(loaded, tally, {
    seedStart: r.seedStart,
    plannedSeeds: r.seedsPlanned,
    shard: null,
    stoppedBy,
    strategy: mergedStrategy(r, ordered, tally.runs),
    overrides,
    bugProbabilities: r.statistics.clean.seedsNeeded.map((x) => x.perSeedProbability),
  });
  const startedAt = new Date(Math.min(...ordered.map((s) => Date.parse(s.report.startedAt) || 0)));
  return { result, wallMs: Math.max(...ordered.map((s) => s.report.wallMs)), mutant: r.mutant, startedAt };
}
