import { join } from "node:path";
import type { LoadedScenario } from "../scenario/loader.js";
import { type ConfirmOptions, type ConfirmResult, confirm } from "./confirm.js";
import { modelRunOfDrawnSeed } from "./plan/model-run.js";

export interface RandomRun {
  seed: number;
  result: ConfirmResult;
  dir: string;
}

/**
 * eosfuzz confirm --random: schedules drawn from the scenario's faults (one seed each, as drawn by
 * the caller: random, so the set of runs is not reproducible, though each seed's schedule is), each
 * played as drawn (not shrunk) on a fresh real cluster and judged by the same oracle.
 */
export async function confirmRandom(
  scenario: LoadedScenario,
  seeds: readonly number[],
  options: ConfirmOptions,
): Promise<RandomRun[]> {
  const out: RandomRun[] = [];
  for (const [i, seed] of seeds.entries()) {
    const dir = join(options.outDir, `run-${i + 1}-seed-${seed}`);
    options.log?.(`run ${i + 1} of ${seeds.length}: ${scenario.scenario.name} seed ${seed}`);
    const result = await confirm(modelRunOfDrawnSeed(scenario, seed), { ...options, outDir: dir });
    out.push({ seed, result, dir });
  }
  return out;
}
