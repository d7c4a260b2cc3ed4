import { join } from "node:path";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { CampaignResult } from "../campaign/campaign.js";
import { recipeFor, standaloneRun } from "./failure-recipe.js";
import { runSeed } from "../run/run-seed.js";
import { NO_TRACE_HASH } from "../executor/run-job.js";
import { buildSeedFile, renderSeedFile, seedFileName, seedFileStem } from "./seed-file.js";

/** Bound on seed files from one campaign: past that, the scenario is failing everywhere. */
export const MAX_SEED_FILES_PER_RUN = 1_000;

export interface SeedFileToWrite {
  path: string;
  content: string;
  seed: number;
  kinds: string[];
}

/**
 * One seed file per distinct failing seed of a campaign. Each failing seed is run again with its
 * tape and trace recorded (campaigns keep neither); the re-run must give the campaign's trace hash.
 */
export function failingSeedFiles(
  result: CampaignResult,
  dir: string,
  options: { overrides?: Partial<ReleaseFlags>; mutant?: string | null } = {},
): SeedFileToWrite[] {
  const overrides = options.overrides ?? {};
  const mutant = options.mutant ?? null;
  const shaping = result.strategy.runShaping ?? null;
  const firstOf = new Map<number, CampaignResult["violations"][number]>();
  for (const v of result.violations) if (!firstOf.has(v.seed)) firstOf.set(v.seed, v);
  return result.failingSeeds.slice(0, MAX_SEED_FILES_PER_RUN).flatMap((seed) => {
    const failure = firstOf.get(seed);
    if (!failure || failure.traceHash === NO_TRACE_HASH) return []; // a run that never finished has no trace to save
    const recipe = recipeFor(result.scenario, overrides, shaping, failure);
    const run = runSeed(recipe.config, recipe.input, { recordTape: true, recordTrace: true });
    if (run.traceHash !== failure.traceHash) {
      throw new Error(
        `run ${seed} of ${result.scenario.scenario.name} gave trace ${run.traceHash} on its re-run, ${failure.traceHash} in the campaign: the model is not deterministic`,
      );
    }
    // A swarm run is saved as a plain run of the scenario with its fault rates (the same trace);
    // a PCT run keeps its shaping, which replay applies. A seed alone reproduces only a random run.
    const standalone = standaloneRun(result.scenario, overrides, shaping, run.tape ?? {});
    const loaded = standalone?.loaded ?? result.scenario;
    const savedSeed = shaping || failure.tape ? null : seed;
    const path = join(dir, seedFileName(seedFileStem(loaded), savedSeed, mutant, run.traceHash));
    const seedFile = buildSeedFile({
      loaded,
      overrides,
      mutant,
      seed: savedSeed,
      run: standalone ? { ...run, tape: standalone.tape } : run,
      path,
      ...(standalone ? {} : { shaping: shaping ?? undefined }),
    });
    return [{ path, content: renderSeedFile(seedFile), seed, kinds: [...new Set(run.violations.map((v) => v.kind))] }];
  });
}
