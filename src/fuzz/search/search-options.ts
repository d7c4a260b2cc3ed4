import type { ReleaseFlags } from "../../kafka/release.js";
import type { JobOutcome } from "../executor/run-job.js";
import type { PctScope } from "../run-shaping/pct.js";
import type { CorpusStore } from "./corpus-file.js";
import type { Shard } from "../campaign/shard.js";
import type { StrategyName } from "../campaign/strategy-names.js";

export interface SearchOptions {
  strategy: StrategyName;
  /** Runs to make (for exhaustive: the most schedules to run before giving up). */
  seeds: number;
  seedStart: number;
  shard: Shard | null;
  /** Flag overrides applied to every node (mutants). */
  overrides?: Partial<ReleaseFlags>;
  /** PCT: bug depth d (d - 1 change points) and which messages it schedules. */
  pctDepth?: number;
  pctScope?: PctScope;
  /** Exhaustive: the most deviations from the simplest schedule. */
  depth?: number;
  /** Exhaustive: prune states already expanded (default true; off only to check the pruning). */
  pruneRepeats?: boolean;
  /** Stop dispatching runs after this much wall-clock time. */
  timeBudgetMs?: number | null;
  /** Stop at the first unexpected violation, or once every expected kind has been found. */
  stopOnFirst?: boolean;
  /** Checked after each run (in campaign order): true ends the campaign there, done (a caught mutant). */
  doneAfter?: (outcome: JobOutcome) => boolean;
  /** Per-seed probabilities the clean-run statistics are given for. */
  bugProbabilities?: readonly number[];
  /** Checked between batches: true stops the campaign (Ctrl-C). */
  shouldStop?: () => boolean;
  /**
   * `run --resume`: the outcomes of the campaign's first runs, in campaign order, from an
   * interrupted run. They are tallied as if just run and the campaign continues after them
   * (random, swarm and pct only: their runs are independent of one another).
   */
  resumeFrom?: readonly JobOutcome[];
  /** Coverage: the corpus to start from and to leave the campaign's kept tapes in (`--corpus FILE`). */
  corpus?: CorpusStore;
  /** Called after each run is tallied, in campaign order, with the number of runs tallied so far. */
  onOutcome?: (outcome: JobOutcome, done: number) => void;
}
