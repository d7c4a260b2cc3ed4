import { join, resolve } from "node:path";
import { BUILTIN_SCENARIO_DIR, type LoadedScenario } from "../../scenario/loader.js";
import type { SearchOptions } from "./search-options.js";

/** A word as a POSIX shell reads it: as it is when it has no special character, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * What `--scenario` takes to run this scenario again: its name when it is the built-in scenario of
 * that name, else the file it was loaded from (a scenario of one's own is no built-in: its name
 * alone would not find it). A scenario given as YAML text has no file: its name is all there is.
 */
export function scenarioArgument(loaded: Pick<LoadedScenario, "scenario" | "source" | "settings">): string {
  // Settings given with --set follow the scenario, so that the command runs the same scenario again.
  const settings = (loaded.settings ?? []).map((s) => ` --set ${shellWord(s)}`).join("");
  const name = loaded.scenario.name;
  if (loaded.source === "(inline scenario)") return name + settings;
  const source = resolve(loaded.source);
  const builtin = [".yaml", ".yml"].some((ext) => resolve(join(BUILTIN_SCENARIO_DIR, name + ext)) === source);
  return (builtin ? name : shellWord(loaded.source)) + settings;
}

export function seedReplayCommand(scenario: string, seed: number, flags: string): string {
  return `eosfuzz run --scenario ${scenario}${flags} --seed-start ${seed} --seeds 1`;
}

/**
 * A coverage run depends on the runs before it: running the same campaign again reaches it. Its
 * tape is also in the report, and `--save-failures` turns it into a seed file that `eosfuzz replay`
 * replays alone.
 */
export function campaignReplayCommand(scenario: string, options: SearchOptions, run: number): string {
  const base = `eosfuzz run --scenario ${scenario} --strategy ${options.strategy}`;
  const shard = options.shard ? ` --shard ${options.shard.index}/${options.shard.count}` : "";
  const seeds = options.shard ? options.seeds : run - options.seedStart + 1;
  return `${base} --seed-start ${options.seedStart} --seeds ${seeds}${shard}`;
}
