import type { SearchOptions } from "./search-options.js";

/** The flags that make a seed replay under the same strategy (random needs none). */
export function replayFlags(options: Pick<SearchOptions, "strategy" | "pctDepth" | "pctScope">): string {
  switch (options.strategy) {
    case "swarm":
      return " --strategy swarm";
    case "pct":
      return ` --strategy pct --pct-depth ${options.pctDepth ?? 3} --pct-scope ${options.pctScope ?? "markers"}`;
    default:
      return "";
  }
}

export function seedReplayCommand(scenario: string, seed: number, flags: string): string {
  return `eosfuzz run --scenario ${scenario}${flags} --seed-start ${seed} --seeds 1`;
}

/**
 * A tape strategy's run depends on the runs before it (coverage) or on the search order
 * (exhaustive): running the same campaign again reaches it. Its tape is also in the report, and
 * `--save-failures` turns it into a seed file that `eosfuzz replay` replays alone.
 */
export function campaignReplayCommand(scenario: string, options: SearchOptions, run: number): string {
  const base = `eosfuzz run --scenario ${scenario} --strategy ${options.strategy}`;
  if (options.strategy === "exhaustive") return `${base} --depth ${options.depth ?? 4}`;
  const shard = options.shard ? ` --shard ${options.shard.index}/${options.shard.count}` : "";
  const seeds = options.shard ? options.seeds : run - options.seedStart + 1;
  return `${base} --seed-start ${options.seedStart} --seeds ${seeds}${shard}`;
}
