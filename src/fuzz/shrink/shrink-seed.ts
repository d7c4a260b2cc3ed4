import { dirname, join } from "node:path";
import type { ReleaseFlags } from "../../kafka/release.js";
import { renderStory } from "../../oracle/story.js";
import type { Violation } from "../../oracle/violation.js";
import { InputError } from "../../common/input-error.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import { contentHash } from "../../scenario/loader.js";
import type { Tape } from "../../sim/choice-tape.js";
import { checkDeterminism, describeDivergence } from "../run/determinism-check.js";
import { runConfigFor } from "../campaign/campaign.js";
import { runSeed } from "../run/run-seed.js";
import { buildSeedFile, type LoadedSeedFile, type SeedFile, seedFileName } from "../seeds/seed-file.js";
import {
  type RunSize,
  type ScenarioReduction,
  type ShrinkTarget,
  matchesTarget,
  shrinkFailure,
  targetOf,
} from "./shrink.js";

/** Default wall-clock budget of a shrink (the bar: under 10 s on one core). */
export const DEFAULT_SHRINK_BUDGET_MS = 10_000;

/** What a shrink reports: sizes before and after, the reduction, the story, and where it was saved. */
export interface ShrinkSummary {
  kind: string;
  broker: string | null;
  /** The seed of the original failure (null when it was a tape). */
  seed: number | null;
  before: RunSize;
  after: RunSize;
  reduction: ScenarioReduction | null;
  runs: number;
  stoppedBy: "fixpoint" | "budget";
  /** Wall clock spent (the only non-deterministic field). */
  timeMs: number;
  traceHash: string;
  tape: Tape;
  violation: { summary: string; partition?: string; broker?: string; transaction?: string; markerIssuedFor?: string };
  /** The minimal counterexample as numbered protocol steps. */
  story: string[];
  /** Re-running the shrunk tape twice gave the same trace, event for event. */
  deterministic: boolean;
  determinismProblem: string[];
  /** The scenario the tape replays under (the original, or a reduced copy). */
  scenario: LoadedScenario;
}

export interface ShrinkInput {
  scenario: LoadedScenario;
  overrides: Partial<ReleaseFlags>;
  tape: Readonly<Tape>;
  seed: number | null;
  target: ShrinkTarget;
  budgetMs: number;
}

/** The reduced scenario keeps its name (with a note) so reports and regress still group it. */
function reducedLoaded(
  original: LoadedScenario,
  reduced: LoadedScenario["scenario"],
  changed: boolean,
): LoadedScenario {
  if (!changed) return original;
  const scenario = {
    ...reduced,
    description: `${original.scenario.description.trim()} (reduced by eosfuzz shrink)`.trim(),
  };
  return {
    scenario,
    source: `${original.source} (reduced)`,
    contentHash: contentHash(scenario),
    reducedFrom: original.reducedFrom ?? original.contentHash,
  };
}

/** Shrink one failure and check that the result replays deterministically. */
export function shrinkOne(input: ShrinkInput): ShrinkSummary {
  const result = shrinkFailure(input.scenario.scenario, input.overrides, input.tape, input.target, {
    budgetMs: input.budgetMs,
  });
  const scenario = reducedLoaded(input.scenario, result.scenario, result.reduction !== null);
  const config = runConfigFor(scenario, input.overrides);
  const verdict = checkDeterminism(config, { tape: result.tape });
  const run = runSeed(config, { tape: result.tape }, { recordTrace: true });
  const v = run.violations.find((x) => matchesTarget(x, input.target)) as Violation;
  const violation: ShrinkSummary["violation"] = { summary: v.summary };
  for (const key of ["partition", "broker", "transaction", "markerIssuedFor"] as const)
    if (v[key] !== undefined) violation[key] = v[key];
  return {
    kind: input.target.kind,
    broker: input.target.broker ?? null,
    seed: input.seed,
    before: result.original,
    after: result.after,
    reduction: result.reduction,
    runs: result.runs,
    stoppedBy: result.stoppedBy,
    timeMs: result.timeMs,
    traceHash: result.traceHash,
    tape: result.tape,
    violation,
    story: renderStory(run.trace ?? [], v),
    deterministic: verdict.deterministic,
    determinismProblem: verdict.deterministic ? [] : describeDivergence(verdict),
    scenario,
  };
}

/** A seed file for a shrunk failure (tape only, no seed), next to `nearPath` unless told otherwise. */
export function shrunkSeedFile(
  summary: ShrinkSummary,
  overrides: Partial<ReleaseFlags>,
  mutant: string | null,
  path: string,
): SeedFile {
  const run = runSeed(runConfigFor(summary.scenario, overrides), { tape: summary.tape }, { recordTrace: true });
  return buildSeedFile({
    loaded: summary.scenario,
    overrides,
    mutant,
    seed: null,
    run: { ...run, tape: summary.tape },
    path,
  });
}

export function defaultShrunkPath(nearPath: string, summary: ShrinkSummary, mutant: string | null): string {
  return join(dirname(nearPath), seedFileName(summary.scenario.scenario.name, null, mutant, summary.traceHash));
}

/** Shrink the first recorded violation of a seed file. */
export function shrinkSeedFile(loaded: LoadedSeedFile, budgetMs: number): ShrinkSummary {
  const first = loaded.seedFile.violations[0];
  if (!first) throw new Error("a seed file has at least one violation");
  if (loaded.seedFile.shaping) {
    throw new InputError(
      loaded.file,
      "shaping",
      "expected a seed file the shrinker can re-run, found a PCT run (its delivery policy is not part of the scenario): replay it with eosfuzz replay",
    );
  }
  const target = targetOf(first);
  return shrinkOne({
    scenario: loaded.scenario,
    overrides: loaded.seedFile.overrides as Partial<ReleaseFlags>,
    tape: loaded.seedFile.tape,
    seed: loaded.seedFile.seed,
    target,
    budgetMs,
  });
}
