import { join } from "node:path";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { CampaignResult } from "../campaign/campaign.js";
import { recipeFor, standaloneRun } from "../seeds/failure-recipe.js";
import { runSeed } from "../run/run-seed.js";
import { renderSeedFile, seedFileName, seedFileStem } from "../seeds/seed-file.js";
import { type ShrinkSummary, shrinkOne, shrunkSeedFile } from "./shrink-seed.js";
import { targetOf } from "./shrink.js";

/** Kinds a shrink makes no sense for: a hung seed cannot be re-run safely in this thread. */
const NOT_SHRUNK = new Set(["model-timeout"]);

/** A shrink as the run report carries it (sizes, story, tape); timeMs is its only wall-clock field. */
export type ShrunkReport = Omit<ShrinkSummary, "scenario"> & {
  scenario: string;
  scenarioHash: string;
  savedTo: string | null;
};

export interface ShrunkFailure {
  summary: ShrinkSummary;
  report: ShrunkReport;
  /** Where the shrunk tape's seed file goes (with a save directory), and what it holds: the caller writes it. */
  seedFile: { path: string; content: string } | null;
}

/**
 * A campaign shrinks its first failure (the first violation in seed order) so the user reads the
 * minimal schedule at once. With a save directory the shrunk tape gets a seed file beside the others.
 */
export function shrinkFirstFailure(
  result: CampaignResult,
  options: { budgetMs: number; saveDir: string | null; overrides?: Partial<ReleaseFlags>; mutant?: string | null },
): ShrunkFailure | null {
  const first = result.violations.find((v) => !NOT_SHRUNK.has(v.kind));
  if (!first) return null;
  const overrides = options.overrides ?? {};
  const mutant = options.mutant ?? null;
  const shaping = result.strategy.runShaping ?? null;
  const recipe = recipeFor(result.scenario, overrides, shaping, first);
  const run = runSeed(recipe.config, recipe.input, { recordTape: true });
  // The shrinker re-runs a scenario and a tape: a swarm run becomes a run of the scenario with its
  // fault rates; a PCT run's delivery policy is no scenario property, so it is not shrunk.
  const standalone = standaloneRun(result.scenario, overrides, shaping, run.tape ?? {});
  if (!standalone) return null;
  const summary = shrinkOne({
    scenario: standalone.loaded,
    overrides,
    tape: standalone.tape,
    seed: shaping || first.tape ? null : first.seed,
    target: targetOf(first),
    budgetMs: options.budgetMs,
  });
  let seedFile: ShrunkFailure["seedFile"] = null;
  if (options.saveDir !== null) {
    const path = join(options.saveDir, seedFileName(seedFileStem(summary.scenario), null, mutant, summary.traceHash));
    seedFile = { path, content: renderSeedFile(shrunkSeedFile(summary, overrides, mutant, path)) };
  }
  const { scenario, ...rest } = summary;
  return {
    summary,
    report: {
      ...rest,
      scenario: scenario.scenario.name,
      scenarioHash: scenario.contentHash,
      savedTo: seedFile?.path ?? null,
    },
    seedFile,
  };
}
