import chalk from "chalk";
import { GROUP_EVENT_POINTS, parseStateKey } from "../oracle/protocol-coverage.js";
import type { RunReport } from "./run-report.js";

const n = (x: number) => x.toLocaleString("en-US");

export function percent(p: number): string {
  const x = p * 100;
  return `${x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(1) : x.toPrecision(2)}%`;
}

function seconds(ms: number | null): string {
  return ms === null ? "" : `, ${(ms / 1000).toFixed(1)} s`;
}

/**
 * What a clean result proves when the runs were no random sample: an enumeration (exhaustive)
 * ran every schedule within its bound, so a confidence computed for random draws means nothing
 * there; it says what was enumerated instead. Null for sampling strategies.
 */
export function cleanClaim(r: RunReport): string | null {
  const x = r.strategy.exhaustive;
  if (!x) return null;
  const bound = `at most ${n(x.depth)} deviation${x.depth === 1 ? "" : "s"} from the simplest schedule`;
  return x.exhaustive
    ? `every schedule with ${bound} was run (${n(x.schedules)} schedules, ${n(x.states)} distinct states): a bug reachable within that bound would have shown`
    : `the enumeration of schedules with ${bound} was cut short (complete up to ${n(x.depthCompleted)} deviation${x.depthCompleted === 1 ? "" : "s"}, ${n(x.schedules)} schedules): beyond that nothing is proved`;
}

/** Strategy, statistics and coverage lines of the terminal summary. */
export function renderSearchSummary(r: RunReport): string[] {
  const out: string[] = [];
  out.push(`  strategy: ${r.strategy.summary}`);
  if (r.shard)
    out.push(
      `  shard ${r.shard.index}/${r.shard.count} of seeds ${r.seedStart}..${r.seedStart + r.seedsPlanned - 1} (merge the shards' run.json with eosfuzz merge)`,
    );
  if (r.stoppedBy && r.stoppedBy !== "interrupted")
    out.push(`  stopped by ${r.stoppedBy} after ${n(r.seedsRun)} of ${n(r.seedsPlanned)} runs`);
  for (const s of r.statistics.signatures) {
    out.push(
      `  ${chalk.yellow(s.signature)}: ${n(s.seeds)} of ${n(r.seedsRun)} runs (${percent(s.fractionOfSeeds)}), first at run ${s.firstSeed} (${n(s.seedsToFirstHit)} runs in${seconds(s.wallMsToFirstHit)})`,
    );
  }
  const c = r.statistics.clean;
  const needed = c.seedsNeeded.map((x) => `${percent(x.perSeedProbability)} needs ${n(x.seeds)}`).join(", ");
  const claim = r.statistics.signatures.length === 0 ? "no violation" : "no other violation";
  out.push(
    `  ${claim} in ${n(c.seedsRun)} runs: ${cleanClaim(r) ?? `any bug hit by >= ${percent(c.largestMissedPerSeedProbability)} of runs would have shown (95% confidence); seeds for 95%: ${needed}`}`,
  );
  const cov = r.coverage;
  out.push(
    `  coverage: ${cov.reached.length} abstract protocol states reached, ${cov.neverReached.length} of ${cov.possible} possible never reached`,
  );
  out.push(...offsetsCoverageLines(cov.reached));
  for (const g of cov.goals) {
    const mark = g.reached ? chalk.green("reached") : chalk.red("NOT reached");
    out.push(
      `    goal "${g.name}": ${mark} (${n(g.seeds)} run${g.seeds === 1 ? "" : "s"}${g.firstSeed !== null ? `, first ${g.firstSeed}` : ""})`,
    );
  }
  return out;
}

/**
 * The group side of coverage, named: how many marker arrival states at __consumer_offsets were
 * reached, each applied late copy over a newer transaction's pending offsets (the stale marker at
 * an offsets partition) and each rejected one (the check that held), and the group events.
 */
function offsetsCoverageLines(reached: RunReport["coverage"]["reached"]): string[] {
  const out: string[] = [];
  const runs = (k: number) => `${n(k)} run${k === 1 ? "" : "s"}`;
  const offsets = reached.filter((p) => parseStateKey(p.point)?.kind === "offsets-marker");
  if (offsets.length > 0)
    out.push(`    at __consumer_offsets: ${offsets.length} marker arrival states of the group coordinator`);
  for (const p of offsets) {
    const state = parseStateKey(p.point);
    if (state?.kind !== "offsets-marker" || state.arrival.pending !== "other" || state.arrival.arrival !== "repeat")
      continue;
    const what = state.arrival.result === "applied" ? "applied" : "rejected";
    out.push(`      late copy ${what} over a newer transaction's pending offsets: ${p.point} (${runs(p.seeds)})`);
  }
  const groupEvents = reached.filter((p) => {
    const state = parseStateKey(p.point);
    return state?.kind === "event" && (GROUP_EVENT_POINTS as readonly string[]).includes(state.event);
  });
  if (groupEvents.length > 0)
    out.push(
      `    group events: ${groupEvents.map((p) => `${p.point.slice("event ".length)} (${runs(p.seeds)})`).join(", ")}`,
    );
  return out;
}
