import { type CoveragePoint, isLateCopy, markerRisk, type ProtocolState } from "../../oracle/protocol-coverage.js";
import { WORKLOAD_STREAM_PREFIX } from "../../kafka/client/transactional-producer.js";
import { cutStreams, type Tape } from "../../sim/choice-tape.js";
import { linkStreamName } from "../../sim/network.js";
import type { Rng } from "../../sim/rng.js";
import type { JobOutcome, RunJob } from "../executor/run-job.js";
import type { SavedAim, SavedEntry, SavedGroup } from "./corpus-file.js";
import { SWARM_SCALES, SWARM_STREAM, type SwarmSetting } from "../run-shaping/swarm.js";
import { withLateDuplicate, withLateFirstCopy } from "../../sim/transmit-choices.js";
import type { LateCopyTarget } from "../run/late-copy-finder.js";

/** How a planned run is made, in percent of runs (the rest re-roll a whole run under a kept mix). */
const FRESH_PERCENT = 15;
const MUTATE_MIX_PERCENT = 20;
const FROM_STATE_PERCENT = 40;
/** markerRisk of the stale marker itself (every condition met). */
const MAX_MARKER_RISK = 4;
/** Each condition of a stale marker an arrival met multiplies its worth by this. */
const RISK_WEIGHT = 4;
/** A mix's weight grows with the cube of its mean novelty: strongly prefer the productive ones. */
const MIX_WEIGHT_POWER = 3;
/**
 * Percent of planned runs aimed at a late-copy target: AIM_PERCENT times the worth of the best
 * state to aim at (aimWorth, 1 while no run reached it), but never less than the floor.
 */
const AIM_PERCENT = 80;
const AIM_PERCENT_FLOOR = 10;
/** Under TCP, how much later than the next transaction's write an aimed first copy may arrive. */
const FIRST_COPY_JITTER_MS = 20;
/** Bounds on what the corpus keeps (oldest entries first are kept; later novelties replace nothing). */
const MAX_ENTRIES = 2_000;
const MAX_MIXES = 2_000;
/** Late-copy targets kept at once: the newest (each holds its run's tape, so older ones make room). */
const MAX_TARGETS = 2_000;

/** A fault mix (a tape's "swarm" stream) and what runs under it reached. */
interface Mix {
  prefix: number[];
  runs: number;
  /** Abstract state -> runs under this mix that reached it. */
  reached: Map<string, number>;
}

/** A kept tape: it reached an abstract state (or a count of one) no earlier run had. */
interface Entry {
  tape: Tape;
  mix: Mix;
  points: CoveragePoint[];
}

/** A run's tape and one of its late-copy targets. */
interface Aim {
  tape: Tape;
  target: LateCopyTarget;
  /**
   * Its run reached a stale marker itself. Such a target is not carried to a later campaign: an
   * aim at a copy sent after that stale marker would only replay it, a finding and not a search.
   */
  fromFinding: boolean;
}

/** The state a late-copy target aims at (a late copy at a leader of its release, over its wire), as a map key. */
const aimedState = (target: Pick<LateCopyTarget, "release" | "wire">) => `${target.release} ${target.wire}`;

/** What aiming at one group of targets (aimedState) paid: runs aimed there, and those where the late copy was applied. */
interface GroupPayoff {
  release: string;
  wire: string;
  aimed: number;
  paid: number;
}

/** How one planned run came about (for learn() and the strategy's statistics). */
export interface Plan {
  job: RunJob;
  mix: Mix | null;
  /** For an aimed run, its target (learn() tells what it paid, and follows up a miss). */
  aimedAt?: Pick<LateCopyTarget, "release" | "wire" | "stream" | "at">;
}

/** Coarse hit counts (AFL's buckets): reaching a state 8 times instead of once is also news. */
function bucket(count: number): number {
  return count <= 1 ? 1 : count <= 3 ? 2 : count <= 7 ? 3 : count <= 15 ? 4 : count <= 31 ? 5 : 6;
}

function pickWeighted<T>(rng: Rng, items: readonly T[], weight: (t: T) => number): T {
  const weights = items.map(weight);
  const total = weights.reduce((a, b) => a + b, 0);
  if (!(total > 0)) return items[rng.intBelow(items.length)] as T;
  let x = (rng.intBelow(1_000_000) / 1_000_000) * total;
  for (let i = 0; i < items.length - 1; i++) {
    x -= weights[i] as number;
    if (x < 0) return items[i] as T;
  }
  return items[items.length - 1] as T;
}

/**
 * What a re-roll from a kept state draws anew after that state began (everything else replays the
 * kept tape in full, so the rest of the run's decisions stay what they were):
 * - "all": every stream (the run as it stood then, continued with new choices);
 * - "clients": what the producers do next (which partitions, how many records, commit or abort,
 *   when), under the same network and broker faults;
 * - "link": for a marker arrival, what befalls the later messages on that copy's link (their
 *   delays, duplicates, losses), with the same workload.
 */
export type RerollScope = "all" | "clients" | "link";

/** The tape with the streams of `scope` cut where they stood at `positions` (replayed, they continue with new choices). */
export function rerollTape(
  tape: Readonly<Tape>,
  point: Pick<CoveragePoint, "from" | "link">,
  scope: RerollScope,
): Tape {
  const link = point.link ? linkStreamName(point.link.from, point.link.to) : null;
  // Trailing zeros stay (unlike the shrinker's cut): past the cut, the run draws fresh choices.
  return cutStreams(
    tape,
    point.from ?? {},
    (stream) => scope === "all" || (scope === "clients" ? stream.startsWith(WORKLOAD_STREAM_PREFIX) : stream === link),
  );
}

/** The scopes a re-roll from `point` may take: a marker arrival can also re-roll its link or the clients alone. */
function scopesFor(point: CoveragePoint): readonly RerollScope[] {
  return point.link ? ["all", "clients", "link"] : ["all"];
}

/** The same fault mix with one fault kind switched on, off, or to another rate. */
function mutateMix(rng: Rng, settings: readonly SwarmSetting[]): SwarmSetting[] {
  if (settings.length === 0) return [];
  const out = [...settings];
  const i = rng.intBelow(out.length);
  const current = out[i] as SwarmSetting;
  // Options: off, or one of the scales; pick one that differs from the current setting.
  const options = 1 + SWARM_SCALES;
  const now = current.on ? 1 + current.scale : 0;
  const pick = (now + 1 + rng.intBelow(options - 1)) % options;
  out[i] = pick === 0 ? { on: false } : { on: true, scale: pick - 1 };
  return out;
}

/**
 * The coverage-guided strategy's memory. Runs are swarm runs (each tape has its fault-mix draws in
 * stream "swarm"), starting from the scenario's own mix: a fresh run is the random strategy's run of
 * the same seed, except that under TCP every other fresh run, the first among them, raises the
 * marker requests' slow rate to where a late first copy is likeliest (lateFirstCopyMix in
 * swarm.ts). Feedback works at these levels:
 * - fault mixes: a mix is scored by the mean worth of what its runs reach (each abstract state
 *   counts 1/sqrt(number of runs that reached it), times 4 per condition of a stale marker it met:
 *   near misses count most); productive mixes are re-run with fresh choices after their prefix,
 *   or changed in one fault kind (hill climbing over mixes);
 * - tapes: a run that reaches a new abstract state, or a state more often than before (bucketed),
 *   is kept; a kept tape is re-rolled from the choice at which one of its rare states began (for a
 *   marker arrival, right after that copy was sent), keeping everything before it, in one of the
 *   scopes of RerollScope (every stream, the clients' streams, or the marker copy's link, each cut
 *   where it stood then; the other streams replay in full);
 * - aims: a run that had a late-copy target (late-copy-finder.ts) is replayed with a late duplicate
 *   of that marker copy, landing just after the next transaction wrote at its partition; aims go
 *   to the states (leader release x wire) where no late copy was applied yet, and grow rarer as
 *   those are reached.
 * Every run is a tape (prefix + continuation seed), so every finding replays exactly.
 */
export class CoverageCorpus {
  private readonly entries: Entry[] = [];
  private readonly mixes: Mix[] = [];
  private readonly mixByPrefix = new Map<string, Mix>();
  /** Key of an abstract state -> the state and the runs that reached it (every state a learned run reached). */
  private readonly seenRuns = new Map<string, { state: ProtocolState; runs: number }>();
  /**
   * The same for this campaign's own runs (not the tapes a corpus file brought): what aimWorth
   * counts as found already. A campaign reports its own findings, so a bug an earlier campaign
   * found is not a reason to aim elsewhere before this one has found it.
   */
  private readonly ownRuns = new Map<string, { state: ProtocolState; runs: number }>();
  /** aimedState -> what aiming there paid, in this campaign and those before it (a corpus file's). */
  private readonly payoff = new Map<string, GroupPayoff>();
  private readonly features = new Set<string>();
  fresh = 0;
  /** Fresh runs under lateFirstCopyMix (the others are the random strategy's). */
  freshLateFirstCopy = 0;
  mutated = 0;
  /** Tapes taken from a corpus file at the start. */
  imported = 0;
  /** Runs re-rolled from a kept state, per scope. */
  readonly rerolled: Record<RerollScope, number> = { all: 0, clients: 0, link: 0 };
  /** Runs that replayed a former run with a late duplicate of one marker copy. */
  aimed = 0;
  /** Late-copy targets not tried yet, oldest first. */
  private readonly aims: Aim[] = [];

  /** The scenario's own fault mix (every fault kind on at its rate): where the search starts. */
  private readonly scenarioMix: number[];
  /** The mix of lateFirstCopyMix, or null where the scenario's own mix is where a late copy is likeliest. */
  private readonly lateFirstCopyMix: number[] | null;

  constructor(
    private readonly swarm: {
      decode: (tape: readonly number[]) => SwarmSetting[];
      encode: (settings: readonly SwarmSetting[]) => number[];
      /** lateFirstCopyMix of the scenario (null: fresh runs are the random strategy's, all of them). */
      lateFirstCopy: readonly SwarmSetting[] | null;
    },
  ) {
    this.scenarioMix = swarm.encode(swarm.decode([]).map(() => ({ on: true, scale: 0 })));
    this.lateFirstCopyMix = swarm.lateFirstCopy ? swarm.encode(swarm.lateFirstCopy) : null;
  }

  get size(): number {
    return this.entries.length;
  }

  plan(rng: Rng, index: number): Plan {
    const job: RunJob = {
      index,
      input: { tape: { [SWARM_STREAM]: this.scenarioMix }, continueSeed: index },
      recordTape: true,
      coveragePositions: true,
    };
    if (this.mixes.length > 0 && this.aims.length > 0) {
      const worth = this.aimWorth();
      const best = Math.max(...worth.values());
      if (rng.intBelow(100) < Math.max(AIM_PERCENT_FLOOR, Math.round(AIM_PERCENT * best))) {
        const aimed = this.aimLateCopy(rng, worth, index);
        if (aimed) return aimed;
      }
    }
    const roll = rng.intBelow(100);
    if (this.mixes.length === 0 || roll < FRESH_PERCENT) {
      // The scenario's mix with fresh choices: the same run as the random strategy's seed `index`;
      // or, every other time and first, that run with the marker requests' slow rate raised to where
      // a late first copy is likeliest: a cold search's first run cannot learn, so it starts there.
      const lateFirstCopy = this.fresh++ % 2 === 0 ? this.lateFirstCopyMix : null;
      if (lateFirstCopy === null) return { job, mix: null };
      this.freshLateFirstCopy++;
      return { job: { ...job, input: { tape: { [SWARM_STREAM]: lateFirstCopy }, continueSeed: index } }, mix: null };
    }
    this.mutated++;
    const mix = pickWeighted(rng, this.mixes, (m) => this.mixScore(m) ** MIX_WEIGHT_POWER);
    if (roll < FRESH_PERCENT + MUTATE_MIX_PERCENT) {
      return {
        job: {
          ...job,
          input: {
            tape: { [SWARM_STREAM]: this.swarm.encode(mutateMix(rng, this.swarm.decode(mix.prefix))) },
            continueSeed: index,
          },
        },
        mix: null,
      };
    }
    const kept = this.entries.filter((e) => e.mix === mix);
    if (kept.length > 0 && roll < FRESH_PERCENT + MUTATE_MIX_PERCENT + FROM_STATE_PERCENT) {
      const entry = pickWeighted(rng, kept, (e) => this.novelty(e.points));
      const point = pickWeighted(rng, entry.points, (p) => this.rarity(p.key));
      if (point.from) {
        const scopes = scopesFor(point);
        const scope = scopes[rng.intBelow(scopes.length)] as RerollScope;
        this.rerolled[scope]++;
        return { job: { ...job, input: { tape: rerollTape(entry.tape, point, scope), continueSeed: index } }, mix };
      }
    }
    return { job: { ...job, input: { tape: { [SWARM_STREAM]: mix.prefix }, continueSeed: index } }, mix };
  }

  /**
   * A former run replayed with a late duplicate of one marker copy, aimed just after the next
   * transaction wrote at its partition. First the state to aim at, by its worth (aimWorth); then a
   * target of that state, the oldest untried first.
   */
  private aimLateCopy(rng: Rng, worth: ReadonlyMap<string, number>, index: number): Plan | null {
    const aimed = pickWeighted(rng, [...worth.keys()], (state) => worth.get(state) ?? 0);
    const i = this.aims.findIndex((a) => aimedState(a.target) === aimed);
    const { tape, target } = this.aims[i] as Aim;
    const aimedAt = { release: target.release, wire: target.wire, stream: target.stream, at: target.at };
    this.aims.splice(i, 1);
    const choices =
      target.how === "first-copy"
        ? withLateFirstCopy(tape[target.stream] ?? [], target.at, target.faults, this.firstCopyDelay(rng, target))
        : withLateDuplicate(tape[target.stream] ?? [], target.at, target.faults, target.delayMs);
    if (!choices) return null;
    this.mutated++;
    this.aimed++;
    return {
      job: {
        index,
        input: { tape: { ...tape, [target.stream]: choices }, continueSeed: index },
        recordTape: true,
        coveragePositions: true,
      },
      mix: null,
      aimedAt,
    };
  }

  /**
   * Under TCP, when the slowed first copy should arrive: just after the next transaction wrote in
   * the run without it (up to FIRST_COPY_JITTER_MS later), within the link's slow range. The
   * re-send after the request timeout completes the transaction about as early as the fast copy
   * did in most runs, since the producer's next transaction does not wait for its markers:
   * measured on kip-1228-gap (8 seeds, 46 targets), aiming at the write itself made a stale
   * marker in 23 of 46 aimed runs, aiming a request timeout (200 ms) later in 15.
   */
  private firstCopyDelay(rng: Rng, target: LateCopyTarget): number {
    const wanted = target.delayMs + rng.intBelow(FIRST_COPY_JITTER_MS + 1);
    return Math.max(target.faults.delay.slowMinMs, Math.min(target.faults.delay.slowMaxMs, wanted));
  }

  /**
   * For each state the late-copy targets aim at (a late copy at a leader of one release, over one
   * wire, while the next transaction is open: see aimedState), what aiming there is still worth,
   * from 1 down: divided by the square of one plus this campaign's runs where such a copy was
   * applied (the stale marker itself) and by one plus its runs that reached the state at all (a
   * leader that keeps rejecting late copies, as KIP-1228 leaders do, is aimed at less and less);
   * and times what aims at the group paid so far, (paid + 1) / (aimed + 1), in this campaign and
   * the ones before it whose corpus file it started from. That last factor is 1 while the group
   * was never aimed at; it is what lets a warm campaign aim where aims paid off from its first run.
   */
  private aimWorth(): Map<string, number> {
    const aimedAt = new Map<string, LateCopyTarget>();
    for (const { target } of this.aims) {
      const aimed = aimedState(target);
      if (!aimedAt.has(aimed)) aimedAt.set(aimed, target);
    }
    const out = new Map<string, number>();
    for (const [aimed, target] of aimedAt) {
      let reached = 0;
      let applied = 0;
      for (const { state, runs } of this.ownRuns.values()) {
        if (!isLateCopy(state, target)) continue;
        reached += runs;
        if (state.kind === "marker" && state.arrival.result === "applied") applied += runs;
      }
      const paid = this.payoff.get(aimed);
      const prior = paid ? (paid.paid + 1) / (paid.aimed + 1) : 1;
      out.set(aimed, prior / ((1 + applied) ** 2 * (1 + reached)));
    }
    return out;
  }

  /** Learn from a run, in campaign order. */
  learn(plan: Plan, outcome: JobOutcome): void {
    const tape = outcome.tape ?? {};
    const paid = plan.aimedAt ? this.paidOff(plan.aimedAt, outcome.coverage) : false;
    // A missed aim's copy, found again as a target of the aimed run itself, goes first in line: the
    // slowed copy delayed its own transaction's completion, so the next transaction wrote later
    // than in the run the aim was taken from, and this target is timed on the aimed run instead.
    // Measured on kip-1228-gap (seeds 500-539, v1 targets): a first aim gave the stale marker in
    // 57 of 114 runs; of the 57 misses, 54 offered the same copy again, and aimed anew 40 of 54.
    const again = (t: LateCopyTarget) =>
      plan.aimedAt !== undefined && !paid && t.stream === plan.aimedAt.stream && t.at === plan.aimedAt.at;
    const followUps: Aim[] = [];
    const fromFinding = outcome.coverage.some((p) => markerRisk(p.state) === MAX_MARKER_RISK);
    for (const target of outcome.lateCopies ?? []) {
      if (again(target)) followUps.push({ tape, target, fromFinding });
      else this.aims.push({ tape, target, fromFinding });
    }
    if (this.aims.length > MAX_TARGETS) this.aims.splice(0, this.aims.length - MAX_TARGETS);
    this.aims.unshift(...followUps);
    if (this.aims.length > MAX_TARGETS) this.aims.splice(MAX_TARGETS);
    const mix = plan.mix ?? this.mixFor(this.swarm.encode(this.swarm.decode(tape[SWARM_STREAM] ?? [])));
    for (const p of outcome.coverage) {
      const own = this.ownRuns.get(p.key);
      if (own) own.runs++;
      else this.ownRuns.set(p.key, { state: p.state, runs: 1 });
    }
    if (plan.aimedAt) {
      const at = plan.aimedAt;
      const key = aimedState(at);
      const group = this.payoff.get(key) ?? { release: at.release, wire: at.wire, aimed: 0, paid: 0 };
      group.aimed++;
      if (paid) group.paid++;
      this.payoff.set(key, group);
    }
    this.absorb(tape, mix, outcome.coverage, false);
  }

  /** Whether an aimed run reached what it aimed at: a late copy applied at a leader of that release, over that wire. */
  private paidOff(at: Pick<LateCopyTarget, "release" | "wire">, points: readonly CoveragePoint[]): boolean {
    return points.some(
      (p) => isLateCopy(p.state, at) && p.state.kind === "marker" && p.state.arrival.result === "applied",
    );
  }

  /**
   * Start from the late-copy targets and aim payoffs a former campaign left (a corpus file): the
   * targets go first in line (oldest), the payoffs add to this campaign's.
   */
  importAims(aims: readonly SavedAim[], groups: readonly SavedGroup[]): void {
    const imported: Aim[] = [];
    for (const { tape, targets } of aims)
      for (const target of targets) imported.push({ tape, target, fromFinding: false });
    this.aims.unshift(...imported);
    if (this.aims.length > MAX_TARGETS) this.aims.splice(0, this.aims.length - MAX_TARGETS);
    for (const g of groups) {
      const key = aimedState(g);
      const group = this.payoff.get(key) ?? { release: g.release, wire: g.wire, aimed: 0, paid: 0 };
      group.aimed += g.aimed;
      group.paid += g.paid;
      this.payoff.set(key, group);
    }
  }

  /**
   * The late-copy targets not aimed at yet most worth carrying to a later campaign, at most `max`
   * (none of a run that reached a stale marker itself: see Aim.fromFinding):
   * those of the groups whose aims paid best ((paid + 1) / (aimed + 1)), in the order they would be
   * aimed at within a group (follow-ups of missed aims first). Targets of one run share its tape.
   */
  exportAims(max: number): SavedAim[] {
    const payoff = (t: LateCopyTarget) => {
      const g = this.payoff.get(aimedState(t));
      return g ? (g.paid + 1) / (g.aimed + 1) : 1;
    };
    const chosen = this.aims
      .map((a, i) => ({ a, i, worth: payoff(a.target) }))
      .filter(({ a }) => !a.fromFinding)
      .sort((x, y) => y.worth - x.worth || x.i - y.i)
      .slice(0, max);
    const out: SavedAim[] = [];
    const byTape = new Map<Tape, SavedAim>();
    for (const { a } of chosen) {
      let saved = byTape.get(a.tape);
      if (!saved) {
        saved = { tape: a.tape, targets: [] };
        byTape.set(a.tape, saved);
        out.push(saved);
      }
      saved.targets.push(a.target);
    }
    return out;
  }

  /** What aiming at each group paid, this campaign's and the imported together, in the order first met. */
  exportGroups(): SavedGroup[] {
    return [...this.payoff.values()].map((g) => ({ ...g }));
  }

  /**
   * Start from the tapes a former campaign kept (a corpus file), in their order: each is learned
   * as if it had just run under its mix and kept (it was kept for what it reached), so the first
   * plans already build on them.
   */
  importEntries(saved: readonly SavedEntry[]): void {
    for (const e of saved)
      this.absorb(e.tape, this.mixFor(this.swarm.encode(this.swarm.decode(e.mix))), e.points, true);
    this.imported += saved.length;
  }

  /** The kept tapes most worth carrying to a later campaign, most novel first (ties: oldest first), at most `max`. */
  exportEntries(max: number): SavedEntry[] {
    return this.entries
      .map((e, i) => ({ e, i, worth: this.novelty(e.points) }))
      .sort((a, b) => b.worth - a.worth || a.i - b.i)
      .slice(0, max)
      .map(({ e }) => ({ mix: e.mix.prefix, tape: e.tape, points: e.points }));
  }

  /** Count what a run reached and keep its tape when it reached something new (or `keep`). */
  private absorb(tape: Tape, mix: Mix | null, points: readonly CoveragePoint[], keep: boolean): void {
    for (const p of points) {
      const seen = this.seenRuns.get(p.key);
      if (seen) seen.runs++;
      else this.seenRuns.set(p.key, { state: p.state, runs: 1 });
    }
    if (!mix) return;
    mix.runs++;
    for (const p of points) mix.reached.set(p.key, (mix.reached.get(p.key) ?? 0) + 1);
    let novel = false;
    for (const p of points) {
      const feature = `${p.key}#${bucket(p.count)}`;
      if (!this.features.has(feature)) {
        this.features.add(feature);
        novel = true;
      }
    }
    if ((novel || keep) && this.entries.length < MAX_ENTRIES && points.length > 0)
      this.entries.push({ tape, mix, points: [...points] });
  }

  private mixFor(prefix: number[]): Mix | null {
    const key = prefix.join(",");
    let mix = this.mixByPrefix.get(key);
    if (!mix) {
      if (this.mixes.length >= MAX_MIXES) return null;
      mix = { prefix, runs: 0, reached: new Map() };
      this.mixByPrefix.set(key, mix);
      this.mixes.push(mix);
    }
    return mix;
  }

  /** What a state a learned run reached is worth: rarer is better, and closer to a stale marker is much better. */
  private rarity(key: string): number {
    const seen = this.seenRuns.get(key);
    return RISK_WEIGHT ** (seen ? markerRisk(seen.state) : 0) / Math.sqrt(seen?.runs ?? 1);
  }

  private novelty(points: readonly CoveragePoint[]): number {
    return points.reduce((sum, p) => sum + this.rarity(p.key), 0);
  }

  /** Mean novelty of a run under this mix. */
  private mixScore(mix: Mix): number {
    if (mix.runs === 0) return 0;
    let sum = 0;
    for (const [key, runs] of mix.reached) sum += runs * this.rarity(key);
    return sum / mix.runs;
  }
}
