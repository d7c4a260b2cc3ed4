import { join } from "node:path";
import type { CampaignResult } from "../fuzz/campaign.js";
import { recipeFor, standaloneRun } from "../fuzz/failure-recipe.js";
import { runSeed } from "../fuzz/run-seed.js";
import { renderSeedFile } from "../fuzz/seed-file.js";
import { type ShrinkSummary, shrinkOne, shrunkSeedFile } from "../fuzz/shrink-seed.js";
import { seedFileName } from "../fuzz/seed-file.js";
import type { ReleaseFlags } from "../kafka/release.js";
import type { ShrunkReport } from "../report/run-report.js";
import { writeFileAtomic } from "../common/write-files.js";

/** Kinds a shrink makes no sense for: a hung seed cannot be re-run safely in this thread. */
const NOT_SHRUNK = new Set(["model-timeout"]);

/**
 * `run` shrinks its first failure (the first violation in seed order) so the user reads the
 * minimal schedule at once. With --save-failures the shrunk tape is saved beside the others.
 */
export function shrinkFirstFailure(
  result: CampaignResult,
  options: { budgetMs: number; saveDir: string | null; overrides?: Partial<ReleaseFlags>; mutant?: string | null },
): { summary: ShrinkSummary; report: ShrunkReport; savedTo: string | null } | null {
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
    target: first.broker !== undefined ? { kind: first.kind, broker: first.broker } : { kind: first.kind },
    budgetMs: options.budgetMs,
  });
  let savedTo: string | null = null;
  if (options.saveDir !== null) {
    savedTo = join(options.saveDir, seedFileName(summary.scenario.scenario.name, null, mutant, summary.traceHash));
    writeFileAtomic(savedTo, renderSeedFile(shrunkSeedFile(summary, overrides, mutant, savedTo)));
  }
  const { scenario, ...rest } = summary;
  return {
    summary,
    report: { ...rest, scenario: scenario.scenario.name, scenarioHash: scenario.contentHash, savedTo },
    savedTo,
  };
}
