import { join } from "node:path";
import type { ReleaseFlags } from "../kafka/release.js";
import type { CampaignResult } from "./campaign.js";
import { runConfigFor } from "./campaign.js";
import { runSeed } from "./run-seed.js";
import { buildSeedFile, renderSeedFile, seedFileName } from "./seed-file.js";

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
export function failingSeedFiles(result: CampaignResult, dir: string, options: { overrides?: Partial<ReleaseFlags>; mutant?: string | null } = {}): SeedFileToWrite[] {
  const overrides = options.overrides ?? {};
  const mutant = options.mutant ?? null;
  const config = runConfigFor(result.scenario, overrides);
  const hashes = new Map(result.violations.map((v) => [v.seed, v.traceHash]));
  return result.failingSeeds.slice(0, MAX_SEED_FILES_PER_RUN).map((seed) => {
    const run = runSeed(config, { seed }, { recordTape: true, recordTrace: true });
    if (run.traceHash !== hashes.get(seed)) {
      throw new Error(`seed ${seed} of ${result.scenario.scenario.name} gave trace ${run.traceHash} on its re-run, ${hashes.get(seed)} in the campaign: the model is not deterministic`);
    }
    const path = join(dir, seedFileName(result.scenario.scenario.name, seed, mutant, run.traceHash));
    const seedFile = buildSeedFile({ loaded: result.scenario, overrides, mutant, seed, run, path });
    return { path, content: renderSeedFile(seedFile), seed, kinds: [...new Set(run.violations.map((v) => v.kind))] };
  });
}
