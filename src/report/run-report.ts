import type { CampaignResult, SeededViolation } from "../fuzz/campaign.js";
import type { Expectation } from "../scenario/schema.js";
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
  replay: string;
}

/** The `--json` object and run.json: stable keys, violations sorted by seed. */
export interface RunReport {
  schemaVersion: number;
  tool: { name: string; version: string };
  scenario: string;
  scenarioHash: string;
  scenarioSource: string;
  mutant: string | null;
  seedStart: number;
  seedsRun: number;
  interrupted: boolean;
  events: number;
  virtualTimeMs: number;
  expectation: Expectation;
  expectationMet: boolean;
  expectationReasons: string[];
  violationsByKind: Record<string, number>;
  failingSeeds: number[];
  violations: ReportedViolation[];
  /** Wall-clock figures: the only non-deterministic part of the report. */
  wallMs: number;
  eventsPerSecond: number;
  seedsPerSecond: number;
}

export function replayCommand(scenario: string, seed: number, mutant: string | null): string {
  return `eosfuzz run --scenario ${scenario} --seed-start ${seed} --seeds 1${mutant ? ` --mutant ${mutant}` : ""}`;
}

function reportViolation(v: SeededViolation, scenario: string, mutant: string | null): ReportedViolation {
  const out: ReportedViolation = {
    kind: v.kind,
    seed: v.seed,
    traceHash: v.traceHash,
    summary: v.summary,
    explanation: [v.summary, ...v.explanation].join("\n"),
    steps: v.explanation,
    atMs: v.atMs,
    replay: replayCommand(scenario, v.seed, mutant),
  };
  if (v.partition !== undefined) out.partition = v.partition;
  if (v.broker !== undefined) out.broker = v.broker;
  if (v.brokerRelease !== undefined) out.brokerRelease = v.brokerRelease;
  if (v.transaction !== undefined) out.transaction = v.transaction;
  if (v.markerIssuedFor !== undefined) out.markerIssuedFor = v.markerIssuedFor;
  return out;
}

export function buildRunReport(result: CampaignResult, wallMs: number, mutant: string | null = null): RunReport {
  const name = result.scenario.scenario.name;
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
    seedStart: result.seedStart,
    seedsRun: result.seedsRun,
    interrupted: result.interrupted,
    events: result.events,
    virtualTimeMs: result.virtualTimeMs,
    expectation: result.scenario.scenario.expect,
    expectationMet: result.verdict.met && !result.interrupted,
    expectationReasons: result.interrupted ? ["interrupted before the seed budget was run", ...result.verdict.reasons] : result.verdict.reasons,
    violationsByKind: Object.fromEntries(Object.entries(byKind).sort(([a], [b]) => a.localeCompare(b))),
    failingSeeds: result.failingSeeds,
    violations: [...result.violations].sort((a, b) => a.seed - b.seed).map((v) => reportViolation(v, name, mutant)),
    wallMs: Math.round(wallMs),
    eventsPerSecond: Math.round(result.events / seconds),
    seedsPerSecond: Math.round((result.seedsRun / seconds) * 10) / 10,
  };
}
