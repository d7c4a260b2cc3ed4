import type { ViolationKind } from "../../oracle/violation.js";
import type { StepRecord } from "../../scenario/script/script-driver.js";
import type { Tape } from "../../sim/choice-tape.js";
import type { Scenario } from "../../scenario/schema.js";
import type { SeededViolation } from "./seeded-violation.js";
import type { JobOutcome } from "../executor/run-job.js";
import { countsAsFound, isUnexpected } from "./expectation.js";
import { goalMatches, type PointTally } from "./protocol-coverage-summary.js";
import { signatureOf } from "./statistics.js";

/** How to replay a run, and its tape when the strategy's runs are tapes. */
export interface ReplayInfo {
  replay: string;
  tape?: Tape;
}

/** Why a campaign ended before its planned runs. */
export type StopReason = "time-budget" | "stop-on-first" | "done" | "interrupted" | "counterexample" | "schedule-limit";

/** What a campaign learned, however it was gathered (one tally, or shard reports merged). */
export interface TallyData {
  readonly runs: number;
  readonly events: number;
  readonly virtualTimeMs: number;
  readonly violations: SeededViolation[];
  readonly failingSeeds: number[];
  /** Abstract state -> runs that reached it. */
  readonly points: ReadonlyMap<string, PointTally>;
  /** Per coverage goal of the scenario: runs that reached a matching state. */
  readonly goals: readonly (PointTally | null)[];
  /** Signature -> wall-clock ms at which its first hit came in. */
  readonly firstHitWallMs: ReadonlyMap<string, number>;
  /** Scripted scenarios: the step log of the first run whose script failed, else of the first run. */
  readonly scriptSteps: StepRecord[] | null;
  /** The seeds (run indices for tape strategies) tallied, as sorted inclusive ranges [first, last]. */
  readonly completedRanges: [number, number][];
}

/** Add one seed to sorted inclusive ranges, extending the last range when it is the next seed. */
export function addToRanges(ranges: [number, number][], seed: number): void {
  const last = ranges[ranges.length - 1];
  if (last && last[1] + 1 === seed) last[1] = seed;
  else ranges.push([seed, seed]);
}

/** Ranges of several sources (shards) as one sorted list, adjacent and overlapping ranges joined. */
export function mergeRanges(lists: readonly (readonly [number, number][])[]): [number, number][] {
  const all = lists
    .flat()
    .map(([a, b]) => [a, b] as [number, number])
    .sort((x, y) => x[0] - y[0]);
  const out: [number, number][] = [];
  for (const [a, b] of all) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/**
 * Everything a campaign learns, fed one run at a time in campaign order (so the totals never
 * depend on which worker finished first): totals, violations, failing seeds, coverage tallies,
 * goal tallies, and the wall-clock time of each signature's first hit.
 */
export class CampaignTally implements TallyData {
  runs = 0;
  events = 0;
  virtualTimeMs = 0;
  readonly violations: SeededViolation[] = [];
  readonly failingSeeds: number[] = [];
  readonly points = new Map<string, PointTally>();
  readonly goals: (PointTally | null)[];
  readonly firstHitWallMs = new Map<string, number>();
  scriptSteps: StepRecord[] | null = null;
  readonly completedRanges: [number, number][] = [];
  private scriptFailed = false;
  /** Set when --stop-on-first's condition was met by the last run added. */
  settled = false;
  private readonly foundKinds = new Set<ViolationKind>();

  constructor(
    private readonly scenario: Scenario,
    private readonly replayFor: (outcome: JobOutcome, seed: number) => ReplayInfo,
    /** Called after each run is added, with the number added so far (progress, determinism checks). */
    private readonly onAdded: ((outcome: JobOutcome, runs: number) => void) | null = null,
  ) {
    this.goals = (scenario.coverage?.goals ?? []).map(() => null);
  }

  /** Add one run's outcome; receivedAtMs is when its result came in (wall clock since start). */
  add(outcome: JobOutcome, receivedAtMs: number): void {
    const seed = outcome.seed ?? outcome.index;
    this.runs++;
    addToRanges(this.completedRanges, seed);
    this.events += outcome.events;
    this.virtualTimeMs += outcome.virtualTimeMs;
    if (outcome.violations.length > 0) {
      this.failingSeeds.push(seed);
      const info = this.replayFor(outcome, seed);
      for (const v of outcome.violations) {
        const seeded: SeededViolation = { ...v, seed, traceHash: outcome.traceHash, replay: info.replay };
        if (info.tape) seeded.tape = info.tape;
        this.violations.push(seeded);
        const signature = signatureOf(v);
        if (!this.firstHitWallMs.has(signature)) this.firstHitWallMs.set(signature, Math.round(receivedAtMs));
      }
    }
    for (const p of outcome.coverage) {
      const t = this.points.get(p.key);
      if (t) t.seeds++;
      else this.points.set(p.key, { seeds: 1, firstSeed: seed });
    }
    if (outcome.script && !this.scriptFailed && (this.scriptSteps === null || !outcome.script.completed)) {
      this.scriptSteps = outcome.script.steps;
      this.scriptFailed = !outcome.script.completed;
    }
    (this.scenario.coverage?.goals ?? []).forEach((goal, i) => {
      if (!outcome.coverage.some((p) => goalMatches(goal, p.state))) return;
      const t = this.goals[i];
      if (t) t.seeds++;
      else this.goals[i] = { seeds: 1, firstSeed: seed };
    });
    this.checkSettled(outcome);
    this.onAdded?.(outcome, this.runs);
  }

  /** --stop-on-first: an unexpected violation, or everything the scenario expects has been found. */
  private checkSettled(outcome: JobOutcome): void {
    const expect = this.scenario.expect;
    const findAny = expect.findAny ?? [];
    for (const v of outcome.violations) {
      if (isUnexpected(expect, v)) this.settled = true;
      for (const kind of [...expect.find, ...findAny]) if (countsAsFound(expect, kind, v)) this.foundKinds.add(kind);
    }
    const sought = expect.find.length > 0 || findAny.length > 0;
    const allFound =
      expect.find.every((k) => this.foundKinds.has(k)) &&
      (findAny.length === 0 || findAny.some((k) => this.foundKinds.has(k)));
    if (sought && allFound) this.settled = true;
  }
}
