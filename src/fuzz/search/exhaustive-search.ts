import type { StrategyInfo } from "../campaign.js";
import type { StopReason } from "../campaign-tally.js";
import type { Tape } from "../../sim/choice-tape.js";
import type { RunJob } from "../executor/run-job.js";
import { runJobsInOrder } from "./job-batches.js";
import { type SearchContext, settledBy } from "./search-context.js";

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
  const prune = ctx.options.pruneRepeats ?? true;
  const expanded = new Set<string>();
  let level: ScheduleNode[] = [{ deviations: [], from: 0 }];
  let schedules = 0;
  let pruned = 0;
  let depthCompleted = -1;
  let counterexampleDeviations: number | null = null;
  let stop: StopReason | null = null;
  for (let d = 0; d <= depth && level.length > 0 && stop === null; d++) {
    const jobs: RunJob[] = level.map((node, i) => ({
      index: schedules + i,
      input: { tape: tapeOf(node) },
      recordTape: true,
      ...(d < depth ? { choicePointsFrom: node.from } : {}),
    }));
    const run = await runJobsInOrder(ctx, jobs, BATCH);
    let tallied = 0;
    for (const { outcome, atMs } of run.outcomes) {
      ctx.tally.add(outcome, atMs);
      tallied++;
      stop = settledBy(ctx, outcome);
      if (stop) break;
    }
    schedules += tallied;
    const counterexample = run.outcomes.slice(0, tallied).some(({ outcome }) => outcome.violations.length > 0);
    if (counterexample) counterexampleDeviations = d;
    if (run.stop || stop) {
      stop ??= run.stop;
      break;
    }
    if (counterexample) {
      stop = "counterexample";
      break;
    }
    depthCompleted = d;
    if (d === depth) break;
    const next: ScheduleNode[] = [];
    for (const [i, node] of level.entries()) {
      const points = run.outcomes[i]?.outcome.choicePoints;
      if (!points) throw new Error(`schedule ${schedules - level.length + i} came back without its choice points`);
      // The run is the simplest schedule after node.from, so each later choice can deviate.
      points.forEach((point, k) => {
        if (prune && expanded.has(point.fingerprint)) {
          pruned++;
          return;
        }
        expanded.add(point.fingerprint);
        for (let option = 1; option < point.options; option++) {
          next.push({
            deviations: [...node.deviations, { stream: point.stream, index: point.index, option }],
            from: node.from + k + 1,
          });
        }
      });
    }
    if (schedules + next.length > maxSchedules) {
      stop = "schedule-limit";
      break;
    }
    level = next;
  }
  const exhaustive = stop === null && (depthCompleted === depth || level.length === 0);
  const states = expanded.size;
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
