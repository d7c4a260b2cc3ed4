import { InputError } from "../../common/input-error.js";
import type { StrategyInfo } from "../campaign/campaign.js";
import type { Shard } from "../campaign/shard.js";
import { STRATEGY_NAMES, type StrategyName } from "../campaign/strategy-names.js";
import type { StopReason } from "../campaign/campaign-tally.js";
import type { PctParams } from "../run-shaping/pct.js";
import type { RunConfig } from "../run/run-seed.js";
import { runCoverageStrategy } from "./coverage-search.js";
import { runExhaustiveStrategy } from "./exhaustive-search.js";
import { pctConfig, pctStrategyInfo } from "./pct-setup.js";
import { campaignReplayCommand, seedReplayCommand } from "./replay-commands.js";
import type { SearchContext } from "./search-context.js";
import type { SearchOptions } from "./search-options.js";
import { runSeedStrategy } from "./seed-search.js";

/** What a strategy is asked to allow before anything runs. */
export interface StrategyChecked {
  shard: Shard | null;
  /** `--corpus FILE`, when given. */
  corpusFile?: string | undefined;
}

/**
 * A search strategy: how a campaign chooses its runs. Everything the rest of eosfuzz needs to know
 * of one strategy is here (the CLI, the campaign session, replay commands, shard merges ask the
 * registry), so a new strategy is one more entry in STRATEGIES.
 */
export interface SearchStrategy {
  readonly name: StrategyName;
  /** What it searches, in a few words. */
  readonly description: string;
  /**
   * seeds: every run is an independent seed, so a campaign can resume after any prefix of its runs
   * and a run replays from its seed. tapes: a run depends on the runs before it (coverage) or on the
   * search order (exhaustive); it replays from its tape or by running the campaign again.
   */
  readonly runs: "seeds" | "tapes";
  /** The campaign's run count is known before it starts (a progress bar with an ETA). */
  readonly countsRuns: boolean;
  /** The most runs when none are asked for (absent: the scenario's seeds, or a mutant's budget). */
  readonly defaultRuns?: number;
  /** Options that do not go with this strategy: one InputError line. */
  check(options: StrategyChecked): void;
  /** The config every run of the campaign uses: the scenario's, shaped by the strategy. */
  shape(base: RunConfig, options: SearchOptions): RunConfig;
  /** Run the campaign's runs into ctx.tally; why it stopped early (null: it did not) and what it did. */
  search(ctx: SearchContext): Promise<{ stop: StopReason | null; info: StrategyInfo }>;
  /** The command that runs run `run` of this campaign again. */
  replay(scenario: string, options: SearchOptions, run: number): string;
  /** The strategy info of a campaign merged from shards (absent: the first shard's, as it is). */
  mergeShards?(first: StrategyInfo, shards: readonly StrategyInfo[], runs: number): StrategyInfo;
}

/** Default schedule limit of an exhaustive search (--seeds). */
const EXHAUSTIVE_MAX_SCHEDULES = 200_000;

/** Only the coverage strategy keeps a corpus. */
function refuseCorpus(name: StrategyName, options: StrategyChecked): void {
  if (options.corpusFile !== undefined)
    throw new InputError(
      "--corpus",
      "",
      `expected --strategy coverage (only the coverage strategy keeps a corpus), found --strategy ${name}`,
    );
}

/** The info of a strategy that has nothing to add to its description. */
function described(s: { name: StrategyName; description: string }): StrategyInfo {
  return { name: s.name, summary: `${s.name}: ${s.description}` };
}

/** random, swarm and pct: independent seeds, replayed by seed with the strategy's flags. */
function seedStrategy(
  s: Pick<SearchStrategy, "name" | "description" | "shape"> & {
    replayFlags: (options: SearchOptions) => string;
    info: (ctx: SearchContext) => StrategyInfo;
  },
): SearchStrategy {
  return {
    name: s.name,
    description: s.description,
    runs: "seeds",
    countsRuns: true,
    check: (options) => refuseCorpus(s.name, options),
    shape: s.shape,
    async search(ctx) {
      const stop = await runSeedStrategy(ctx);
      return { stop, info: s.info(ctx) };
    },
    replay: (scenario, options, run) => seedReplayCommand(scenario, run, s.replayFlags(options)),
  };
}

const random = seedStrategy({
  name: "random",
  description: "each seed draws delays and faults at the scenario's rates",
  shape: (base) => base,
  replayFlags: () => "",
  info: () => described(random),
});

const swarm = seedStrategy({
  name: "swarm",
  description: "each seed first draws which of the scenario's fault kinds are on and at what multiple of their rates",
  shape: (base) => ({ ...base, shaping: { swarm: true } }),
  replayFlags: () => " --strategy swarm",
  info: () => described(swarm),
});

const pct: SearchStrategy = {
  ...seedStrategy({
    name: "pct",
    description: "probabilistic concurrency testing: d - 1 priority change points per run over the scoped messages",
    shape: (base, options) => pctConfig(base, options.pctDepth ?? 3, options.pctScope ?? "markers"),
    replayFlags: (options) =>
      ` --strategy pct --pct-depth ${options.pctDepth ?? 3} --pct-scope ${options.pctScope ?? "markers"}`,
    info: (ctx) => pctStrategyInfo(ctx.config.shaping?.pct as PctParams, ctx.tally.runs),
  }),
  // Its bound depends on the run count: restated for all the shards' runs together.
  mergeShards: (first, _shards, runs) =>
    first.runShaping?.pct ? { ...pctStrategyInfo(first.runShaping.pct, runs), runShaping: first.runShaping } : first,
};

const coverage: SearchStrategy = {
  name: "coverage",
  description: "coverage-guided: swarm runs, then runs re-rolled from kept tapes that reached new protocol states",
  runs: "tapes",
  countsRuns: true,
  check: () => {},
  shape: (base) => ({ ...base, shaping: { swarm: true } }),
  search: runCoverageStrategy,
  replay: campaignReplayCommand,
  mergeShards(first, shards) {
    const sum = (f: "corpus" | "generations" | "freshRuns" | "mutatedRuns" | "aimedRuns") =>
      shards.reduce((a, s) => a + (s.coverage?.[f] ?? 0), 0);
    const counts = {
      corpus: sum("corpus"),
      generations: sum("generations"),
      freshRuns: sum("freshRuns"),
      mutatedRuns: sum("mutatedRuns"),
      aimedRuns: sum("aimedRuns"),
    };
    return {
      ...first,
      summary: `coverage-guided, ${shards.length} independent shards: ${counts.freshRuns} fresh swarm runs, ${counts.mutatedRuns} re-rolled from ${counts.corpus} kept tapes (${counts.aimedRuns} aimed a late marker copy)`,
      coverage: counts,
    };
  },
};

const exhaustive: SearchStrategy = {
  name: "exhaustive",
  description: "every schedule within --depth deviations from the simplest one, repeated states pruned",
  runs: "tapes",
  // --seeds only bounds the schedules: how many there are is found out on the way.
  countsRuns: false,
  defaultRuns: EXHAUSTIVE_MAX_SCHEDULES,
  check(options) {
    if (options.shard)
      throw new InputError(
        "--shard",
        "",
        "expected no --shard with --strategy exhaustive (an exhaustive search of a small scope runs whole on one machine)",
      );
    refuseCorpus("exhaustive", options);
  },
  shape: (base) => base,
  search: runExhaustiveStrategy,
  // The search order is fixed by the depth alone: the whole search again reaches the run.
  replay: (scenario, options) =>
    `eosfuzz run --scenario ${scenario} --strategy exhaustive --depth ${options.depth ?? 4}`,
};

/** Every strategy by name. */
export const STRATEGIES: { readonly [N in StrategyName]: SearchStrategy } = {
  random,
  swarm,
  pct,
  coverage,
  exhaustive,
};

export function strategyNamed(name: StrategyName): SearchStrategy {
  return STRATEGIES[name];
}

/** The info of a plain random campaign (the library's in-thread campaigns). */
export function randomStrategyInfo(): StrategyInfo {
  return described(random);
}

/** The strategies a campaign of which can be resumed (its runs do not depend on one another). */
export function resumableStrategyNames(): StrategyName[] {
  return STRATEGY_NAMES.filter((name) => STRATEGIES[name].runs === "seeds");
}
