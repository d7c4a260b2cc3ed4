import type { SearchOptions } from "./search-options.js";

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
