import { type ReleaseFlags, type ReleaseName, releaseProfile } from "../../kafka/release.js";
import {
  GROUP_EVENT_POINTS,
  MARKER_DIMENSIONS,
  OFFSETS_MARKER_DIMENSIONS,
  MARKER_VALUES,
  OFFSETS_MARKER_VALUES,
  TRANSACTION_EVENT_POINTS,
  type ProtocolState,
  stateKey,
} from "../../oracle/protocol-coverage.js";
import type { CoverageGoal, Scenario } from "../../scenario/schema.js";

/** Seeds (runs) that reached one abstract state, and the first of them. */
export interface PointTally {
  seeds: number;
  firstSeed: number;
}

export interface GoalVerdict {
  name: string;
  /** The goal's pattern as text, e.g. `marker release=4.2.1 arrival=repeat leaderTxn=other`. */
  pattern: string;
  minSeeds: number;
  seeds: number;
  firstSeed: number | null;
  reached: boolean;
  /** False when no state the scenario can produce matches the pattern (a mistake in the goal). */
  possible: boolean;
}

export interface CoverageSummary {
  reached: { point: string; seeds: number; firstSeed: number }[];
  /** Size of the scenario's space of possible abstract states (see possibleCoveragePoints). */
  possible: number;
  neverReached: string[];
  goals: GoalVerdict[];
}

type NodeLike = { release: ReleaseName; overrides: Record<string, unknown> };

function flagsOf(node: NodeLike, global: Partial<ReleaseFlags>): Readonly<ReleaseFlags> {
  return releaseProfile(node.release, { ...(node.overrides as Partial<ReleaseFlags>), ...global }).flags;
}

/**
 * The abstract states a scenario could reach, by key (in key order): for each broker release (and
 * upgrade) and each coordinator that could send to it, the wire format the pair negotiates, the
 * epoch rules the leader can apply to it, times arrival x leader transaction x producer progress x
 * result; in a scenario with a consumer group (`processing`), the same at offsets partitions
 * (offsets-marker states: the group coordinator's release decides whether the TransactionVersion
 * reaches the log's check) and the group event points; plus the event points. Combinations ruled out by construction are left out: KAFKA-19999 only accepts, and
 * only with no open transaction; a repeat can't find its own transaction open (the first applied
 * marker closed it, and a transaction attempt writes nothing after EndTxn). A coarse
 * over-approximation: "never reached" lists what a sweep missed, some of which may be unreachable
 * in this scenario for deeper reasons.
 */
export function possibleCoveragePoints(
  s: Scenario,
  global: Partial<ReleaseFlags> = {},
): ReadonlyMap<string, ProtocolState> {
  const upgradeTargets = (id: string) => s.faults.upgrades.filter((u) => u.node === id).map((u) => u.release);
  const expand = (nodes: Scenario["cluster"]["brokers"]) =>
    nodes.flatMap((n) => [n, ...upgradeTargets(n.id).map((release) => ({ ...n, release }))]);
  const brokers = expand(s.cluster.brokers);
  // Every broker is a coordinator too: any broker's coordinator may send to any broker's leader.
  const coordinators = brokers;
  const tvs = [...new Set([s.workload.transactionVersion, s.cluster.transactionVersion])];
  const states = new Map<string, ProtocolState>();
  const add = (state: ProtocolState) => states.set(stateKey(state), state);
  for (const b of brokers) {
    const bf = flagsOf(b, global);
    for (const c of coordinators) {
      const cf = flagsOf(c, global);
      const version = cf.markerVersionDiscovery
        ? Math.min(cf.maxWriteTxnMarkersVersion, bf.maxWriteTxnMarkersVersion)
        : cf.maxWriteTxnMarkersVersion;
      if (version > bf.maxWriteTxnMarkersVersion) continue; // refused at the broker: an event, not an arrival
      for (const tv of tvs) {
        const seen = version >= 2 && cf.fillMarkerTransactionVersion ? tv : 0;
        const wire = version < 2 ? "v1" : `v${version}-tv${seen}`;
        for (const rule of rulesFor(bf, seen)) addArrivals(add, b.release, wire, rule);
        addArrivals(add, b.release, wire, "unchecked", "not-leader");
        if (!s.processing) continue;
        // The group coordinator's write carries the TransactionVersion only if its release passes it on.
        for (const rule of rulesFor(bf, bf.groupCoordinatorPassesTransactionVersion ? seen : 0))
          addArrivals(add, b.release, wire, rule, "leader", "offsets");
        addArrivals(add, b.release, wire, "unchecked", "not-leader", "offsets");
      }
    }
  }
  for (const event of TRANSACTION_EVENT_POINTS) add({ kind: "event", event });
  if (s.processing) for (const event of GROUP_EVENT_POINTS) add({ kind: "event", event });
  return new Map([...states].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function rulesFor(flags: Readonly<ReleaseFlags>, tvSeen: number): string[] {
  if (!flags.markerProducerEpochCheck) return ["unchecked"];
  if (!flags.strictMarkerEpochForTv2 || tvSeen < 2) return ["legacy"];
  return flags.equalEpochNoOpenTxnTolerance ? ["strict-tv2", "kafka-19999-equal-epoch"] : ["strict-tv2"];
}

/**
 * The arrivals of one (release, wire, rule): at a leader (as judged) or at a broker that no longer
 * leads the partition (refused unjudged: NOT_LEADER_OR_FOLLOWER), before or after a leader change;
 * at a data partition, or (`offsets`) at an offsets partition, where the producer's pending offsets
 * stand for its open transaction and the marker's result (COMMIT completes them, ABORT discards
 * them) is a dimension. A repeat can't find its own transaction open or its offsets pending (its
 * first applied marker decided them, and TxnOffsetCommit comes before EndTxn).
 */
function addArrivals(
  add: (state: ProtocolState) => void,
  release: ReleaseName,
  wire: string,
  rule: string,
  role: "leader" | "not-leader" = "leader",
  at: "data" | "offsets" = "data",
): void {
  const markers = at === "data" ? (["COMMIT"] as const) : OFFSETS_MARKER_VALUES.marker;
  for (const arrival of MARKER_VALUES.arrival) {
    for (const held of MARKER_VALUES.leaderTxn) {
      for (const producer of MARKER_VALUES.producer) {
        for (const result of MARKER_VALUES.result) {
          if (role === "not-leader" && result === "applied") continue;
          if (rule === "kafka-19999-equal-epoch" && (held !== "none" || result !== "applied")) continue;
          if (arrival === "repeat" && held === "same") continue;
          if (role === "leader" && rule === "unchecked" && result === "rejected") continue;
          for (const marker of markers) {
            for (const leader of MARKER_VALUES.leader) {
              const common = { release, wire, arrival, producer, rule, result, role, leader };
              add(
                at === "data"
                  ? { kind: "marker", arrival: { ...common, leaderTxn: held } }
                  : { kind: "offsets-marker", arrival: { ...common, pending: held === "same" ? "own" : held, marker } },
              );
            }
          }
        }
      }
    }
  }
}

export function goalPattern(goal: CoverageGoal): string {
  if (goal.event) return stateKey({ kind: "event", event: goal.event });
  // The fields in the order of the state's key.
  const [kind, m, order] = goal.offsetsMarker
    ? (["offsets-marker", goal.offsetsMarker, OFFSETS_MARKER_DIMENSIONS] as const)
    : (["marker", goal.marker ?? {}, MARKER_DIMENSIONS] as const);
  const fields = m as Readonly<Record<string, string | undefined>>;
  const parts = order.filter((d) => fields[d] !== undefined).map((d) => `${d}=${String(fields[d])}`);
  return `${kind} ${parts.join(" ")}`.trim();
}

/** Whether a reached state matches a goal: its event, or every field its (offsets-)marker pattern gives. */
export function goalMatches(goal: CoverageGoal, state: ProtocolState): boolean {
  if (goal.event) return state.kind === "event" && state.event === goal.event;
  const pattern =
    state.kind === "marker" ? goal.marker : state.kind === "offsets-marker" ? goal.offsetsMarker : undefined;
  if (!pattern || state.kind === "event") return false;
  const arrival = state.arrival as unknown as Readonly<Record<string, string>>;
  return Object.entries(pattern).every(([k, v]) => v === undefined || arrival[k] === v);
}

/**
 * Reached states, the possible ones never reached, and each declared goal's verdict. goalTallies[i]
 * counts the seeds that reached any state matching goal i (kept per run, so it is exact).
 */
export function summarizeCoverage(
  s: Scenario,
  points: ReadonlyMap<string, PointTally>,
  goalTallies: readonly (PointTally | null)[],
  global: Partial<ReleaseFlags> = {},
): CoverageSummary {
  const possible = possibleCoveragePoints(s, global);
  const possibleStates = [...possible.values()];
  const reachedKeys = [...points.keys()].sort();
  const goals = (s.coverage?.goals ?? []).map((goal, i): GoalVerdict => {
    const t = goalTallies[i] ?? null;
    return {
      name: goal.name,
      pattern: goalPattern(goal),
      minSeeds: goal.minSeeds,
      seeds: t?.seeds ?? 0,
      firstSeed: t?.firstSeed ?? null,
      reached: (t?.seeds ?? 0) >= goal.minSeeds,
      possible: possibleStates.some((state) => goalMatches(goal, state)),
    };
  });
  return {
    reached: reachedKeys.map((point) => ({ point, ...(points.get(point) as PointTally) })),
    possible: possible.size,
    neverReached: [...possible.keys()].filter((k) => !points.has(k)),
    goals,
  };
}

/** One line per unreached goal, naming it (these fail the run). */
export function goalFailures(goals: readonly GoalVerdict[], seedsRun: number): string[] {
  return goals
    .filter((g) => !g.reached)
    .map((g) => {
      const how =
        g.seeds === 0
          ? `never reached in ${seedsRun} seeds`
          : `reached in ${g.seeds} seed${g.seeds > 1 ? "s" : ""}, needs ${g.minSeeds}`;
      const why = g.possible ? "" : " (no state this scenario can produce matches it)";
      return `coverage goal "${g.name}" (${g.pattern}) ${how}${why}`;
    });
}
