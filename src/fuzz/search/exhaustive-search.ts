import type { StrategyInfo } from "../campaign/campaign.js";
import type { StopReason } from "../campaign/campaign-tally.js";
import type { Tape } from "../../sim/choice-tape.js";
import type { RunJob, VisitedChoice } from "../executor/run-job.js";
import { runJobsInOrder } from "./job-batches.js";
import { externalStop, type SearchContext, settledBy } from "./search-context.js";

/** One choice made differently from the simplest schedule: tape[stream][index] = option. */
interface Deviation {
  stream: string;
  index: number;
  option: number;
}

/** A schedule: the simplest tape (all zeros) with these deviations. */
interface ScheduleNode {
  deviations: readonly Deviation[];
  /** Choices the run makes (over all streams) up to and including its last deviation: children deviate after it. */
  from: number;
}

const BATCH = 16;

function tapeOf(node: ScheduleNode): Tape {
  const tape: Tape = {};
  for (const d of node.deviations) {
    const stream = tape[d.stream] ?? [];
    while (stream.length <= d.index) stream.push(0);
    stream[d.index] = d.option;
    tape[d.stream] = stream;
  }
  return tape;
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : "s"}`;
}

/** Runs per call of the executor within a level: their choice points are expanded, then dropped. */
const CHUNK = 1_024;

/**
 * The next level, built as a level's runs come back in order: each run's later choice points, each
 * state once (pruned when an earlier run, or an earlier level, expanded the same fingerprint). The
 * points of a run are dropped once expanded, so a level of 100,000 runs never holds millions of
 * them; additions to the level under construction can be taken back (a level that ends the search).
 */
class Expansion {
  private readonly expanded = new Set<string>();
  private addedThisLevel: string[] = [];
  private prunedBefore = 0;
  private next: ScheduleNode[] = [];
  pruned = 0;

  constructor(private readonly prune: boolean) {}

  get states(): number {
    return this.expanded.size;
  }

  /** The children of `node`, whose run went through `points` after `node.from`. */
  expand(node: ScheduleNode, points: readonly VisitedChoice[]): void {
    // The run is the simplest schedule after node.from, so each later choice can deviate.
    points.forEach((point, k) => {
      const seen = this.expanded.has(point.fingerprint);
      if (seen && this.prune) {
        this.pruned++;
        return;
      }
      if (!seen) {
        this.expanded.add(point.fingerprint);
        this.addedThisLevel.push(point.fingerprint);
      }
      for (let option = 1; option < point.options; option++) {
        this.next.push({
          deviations: [...node.deviations, { stream: point.stream, index: point.index, option }],
          from: node.from + k + 1,
        });
      }
    });
  }

  /** The level built: the next one to run. */
  commit(): ScheduleNode[] {
    const next = this.next;
    this.next = [];
    this.addedThisLevel = [];
    this.prunedBefore = this.pruned;
    return next;
  }

  /** Forget the level under construction, as if none of its runs had been expanded. */
  rollBack(): void {
    for (const fingerprint of this.addedThisLevel) this.expanded.delete(fingerprint);
    this.addedThisLevel = [];
    this.next = [];
    this.pruned = this.prunedBefore;
  }
}

/**
 * Run one level's schedules in campaign order, a chunk at a time: tally each run, and (with an
 * expansion, below the last level) expand its choice points. Stops at the first run that settles
 * the campaign, or when the executor stops (time budget, Ctrl-C).
 */
async function runLevel(
  ctx: SearchContext,
  level: readonly ScheduleNode[],
  firstIndex: number,
  expansion: Expansion | null,
): Promise<{ tallied: number; counterexample: boolean; stop: StopReason | null }> {
  let tallied = 0;
  let counterexample = false;
  for (let start = 0; start < level.length; start += CHUNK) {
    const external = start > 0 ? externalStop(ctx) : null;
    if (external) return { tallied, counterexample, stop: external };
    const nodes = level.slice(start, start + CHUNK);
    const jobs: RunJob[] = nodes.map((node, i) => ({
      index: firstIndex + start + i,
      input: { tape: tapeOf(node) },
      recordTape: true,
      ...(expansion ? { choicePointsFrom: node.from } : {}),
    }));
    const run = await runJobsInOrder(ctx, jobs, BATCH);
    for (const [i, { outcome, atMs }] of run.outcomes.entries()) {
      ctx.tally.add(outcome, atMs);
      tallied++;
      counterexample ||= outcome.violations.length > 0;
      const settled = settledBy(ctx, outcome);
      if (settled) return { tallied, counterexample, stop: settled };
      if (!expansion) continue;
      if (!outcome.choicePoints)
        throw new Error(`schedule ${firstIndex + start + i} came back without its choice points`);
      expansion.expand(nodes[i] as ScheduleNode, outcome.choicePoints);
    }
    if (run.stop) return { tallied, counterexample, stop: run.stop };
  }
  return { tallied, counterexample, stop: null };
}

/**
 * Exhaustive search for small scopes: every schedule that deviates from the simplest one (every
 * choice 0: no fault, shortest delay) in at most `depth` choices, each deviation taking every
 * other option of its choice (delay bounding, Emmi, Qadeer and Rakamaric 2011, on the choice
 * tape). Breadth first by number of deviations, so the first counterexample found has the fewest.
 * Repeats are pruned by state hashing: before each choice a run fingerprints its state (the trace
 * so far and how far ahead each pending event is due); a state already expanded with at least as
 * much deviation budget left is not expanded again.
 */
export async function runExhaustiveStrategy(
  ctx: SearchContext,
): Promise<{ stop: StopReason | null; info: StrategyInfo }> {
  const depth = ctx.options.depth ?? 4;
  const maxSchedules = ctx.options.seeds;
  const expansion = new Expansion(ctx.options.pruneRepeats ?? true);
  let level: ScheduleNode[] = [{ deviations: [], from: 0 }];
  let schedules = 0;
  let depthCompleted = -1;
  let counterexampleDeviations: number | null = null;
  let stop: StopReason | null = null;
  for (let d = 0; d <= depth && level.length > 0 && stop === null; d++) {
    const run = await runLevel(ctx, level, schedules, d < depth ? expansion : null);
    schedules += run.tallied;
    if (run.counterexample) counterexampleDeviations = d;
    // A level that ends the search expands nothing: what it began to expand is taken back.
    if (run.stop || run.counterexample) {
      expansion.rollBack();
      stop = run.stop ?? "counterexample";
      break;
    }
    depthCompleted = d;
    if (d === depth) break;
    const next = expansion.commit();
    if (schedules + next.length > maxSchedules) {
      stop = "schedule-limit";
      break;
    }
    level = next;
  }
  const pruned = expansion.pruned;
  const exhaustive = stop === null && (depthCompleted === depth || level.length === 0);
  const states = expansion.states;
  const counted = `${plural(schedules, "schedule")}, ${plural(states, "distinct state")}, ${plural(pruned, "repeat")} pruned`;
  let summary: string;
  if (counterexampleDeviations !== null)
    summary = `exhaustive: first counterexample at ${plural(counterexampleDeviations, "deviation")} from the simplest schedule (${counted})`;
  else if (exhaustive)
    summary = `exhaustive: clean up to ${plural(depth, "deviation")} from the simplest schedule (${counted})`;
  else if (stop === "schedule-limit")
    summary = `exhaustive search incomplete: more than ${plural(maxSchedules, "schedule")} (--seeds) needed for ${plural(depthCompleted + 1, "deviation")}; clean up to ${plural(Math.max(0, depthCompleted), "deviation")} (${counted})`;
  else summary = `exhaustive search stopped (${stop}) after ${depthCompleted + 1} complete level(s) (${counted})`;
  return {
    stop: stop === "counterexample" ? null : stop,
    info: {
      name: "exhaustive",
      summary,
      exhaustive: {
        exhaustive,
        depth,
        depthCompleted,
        schedules,
        states,
        prunedBranches: pruned,
        counterexampleDeviations,
      },
    },
  };
}
