import type { PartitionKey } from "../kafka/common/types.js";
import { Errors } from "../kafka/common/errors.js";
import { isConsumerOffsetsPartition } from "../kafka/coordinator/group/group-partitioning.js";
import type {
  BatchAppended,
  GhostObserver,
  GroupAnswer,
  LeaderChangeSeen,
  MarkerOutcome,
  MarkerSend,
  TxnDecision,
} from "../kafka/ghost.js";
import { isReleaseName, type ReleaseName } from "../kafka/release.js";

/**
 * The values of the closed dimensions of a marker arrival (release, wire and rule are open-ended):
 * possibleCoveragePoints enumerates them, and a key read back from a file must hold one of them.
 */
export const MARKER_VALUES = {
  arrival: ["first", "repeat"],
  leaderTxn: ["none", "same", "other"],
  producer: ["current", "moved-on"],
  result: ["applied", "rejected"],
  role: ["leader", "not-leader"],
  leader: ["same", "new"],
} as const;

type ValueOf<D extends keyof typeof MARKER_VALUES> = (typeof MARKER_VALUES)[D][number];

/**
 * An abstract protocol state at the moment a marker reaches a partition leader: the dimensions
 * that decide whether a marker can be stale (marker arrival x leader producer state x release x
 * transaction version), with what the leader did.
 */
export interface MarkerArrival {
  /** Release of the leader that judged the marker. */
  release: ReleaseName;
  /** How the marker travelled: `v1` (no TransactionVersion field) or `v2-tvN` (N as the leader read it). */
  wire: string;
  /** `first`: no marker of this transaction was applied at this partition before; `repeat`: one was. */
  arrival: ValueOf<"arrival">;
  /** The producer's open transaction at this partition: none, the marker's own, or another one. */
  leaderTxn: ValueOf<"leaderTxn">;
  /** `moved-on`: the producer had already begun a newer transaction when the marker arrived. */
  producer: ValueOf<"producer">;
  /** The producer-epoch rule that judged it (partition-log's MarkerEpochRule). */
  rule: string;
  result: ValueOf<"result">;
  /** `not-leader`: the broker it reached did not lead the partition (NOT_LEADER_OR_FOLLOWER, judged nothing). */
  role: ValueOf<"role">;
  /** `new`: the partition's leadership moved between the marker's first send and this arrival. */
  leader: ValueOf<"leader">;
}

export const MARKER_DIMENSIONS = [
  "release",
  "wire",
  "arrival",
  "leaderTxn",
  "producer",
  "rule",
  "result",
  "role",
  "leader",
] as const satisfies readonly (keyof MarkerArrival)[];

/**
 * The closed dimensions of a marker arrival at a `__consumer_offsets` partition, where KafkaApis
 * hands the marker to the group coordinator (GroupCoordinatorService.completeTransaction): what
 * the producer had pending there replaces the open transaction of a data partition, and the
 * marker's own result tells completing (COMMIT) from discarding (ABORT) those offsets.
 */
export const OFFSETS_MARKER_VALUES = {
  arrival: MARKER_VALUES.arrival,
  pending: ["none", "own", "other"],
  producer: MARKER_VALUES.producer,
  marker: ["COMMIT", "ABORT"],
  result: MARKER_VALUES.result,
  role: MARKER_VALUES.role,
  leader: MARKER_VALUES.leader,
} as const;

/**
 * A marker arrival at an offsets partition's leader: the same dimensions as MarkerArrival, save
 * that the producer's pending transactional offsets (OffsetMetadataManager's pending store, written
 * by TxnOffsetCommit) stand for its open transaction, and the marker's result is named.
 */
export interface OffsetsMarkerArrival {
  release: ReleaseName;
  wire: string;
  arrival: (typeof OFFSETS_MARKER_VALUES.arrival)[number];
  /** The producer's pending offsets at the partition: none, of the marker's own transaction, or of another (newer) one. */
  pending: (typeof OFFSETS_MARKER_VALUES.pending)[number];
  producer: (typeof OFFSETS_MARKER_VALUES.producer)[number];
  rule: string;
  /** The marker's result: applied, a COMMIT completes the pending offsets and an ABORT discards them. */
  marker: (typeof OFFSETS_MARKER_VALUES.marker)[number];
  result: (typeof OFFSETS_MARKER_VALUES.result)[number];
  role: (typeof OFFSETS_MARKER_VALUES.role)[number];
  leader: (typeof OFFSETS_MARKER_VALUES.leader)[number];
}

export const OFFSETS_MARKER_DIMENSIONS = [
  "release",
  "wire",
  "arrival",
  "pending",
  "producer",
  "rule",
  "marker",
  "result",
  "role",
  "leader",
] as const satisfies readonly (keyof OffsetsMarkerArrival)[];

/** Other protocol situations worth reaching, named by event. */
export const TRANSACTION_EVENT_POINTS = [
  "coordinator-initiated-abort",
  "marker-request-refused",
  "marker-sending-abandoned",
  "producer-outcome-unknown",
] as const;

/**
 * Group situations worth reaching (only runs with a consumer group can): a TxnOffsetCommit refused
 * by KIP-447's fence (ClassicGroup.validateOffsetCommit: the committer's generation is not the
 * group's, or the member is gone), and an OffsetFetch with require_stable answered
 * UNSTABLE_OFFSET_COMMIT while a transaction held pending offsets.
 */
export const GROUP_EVENT_POINTS = [
  "txn-offset-commit-illegal-generation",
  "txn-offset-commit-unknown-member",
  "offset-fetch-unstable",
] as const;

export const EVENT_POINTS = [...TRANSACTION_EVENT_POINTS, ...GROUP_EVENT_POINTS] as const;

export type EventPoint = (typeof EVENT_POINTS)[number];

/** An abstract protocol state a run can reach: a marker arrival (at a data or an offsets partition), or an event point. */
export type ProtocolState =
  | { kind: "marker"; arrival: MarkerArrival }
  | { kind: "offsets-marker"; arrival: OffsetsMarkerArrival }
  | { kind: "event"; event: EventPoint };

/**
 * The key of a state, as reports, corpus files and results logs spell it: `event <name>`,
 * `marker@<release> wire=.. arrival=.. leaderTxn=.. producer=.. rule=.. result=.. role=.. leader=..` (the dimensions
 * after the release in MARKER_DIMENSIONS order; built once per marker arrival: no intermediate
 * arrays on the hot path), or `offsets-marker@<release> ..` (OFFSETS_MARKER_DIMENSIONS order).
 */
export function stateKey(state: ProtocolState): string {
  if (state.kind === "event") return `event ${state.event}`;
  if (state.kind === "offsets-marker") {
    const o = state.arrival;
    return `offsets-marker@${o.release} wire=${o.wire} arrival=${o.arrival} pending=${o.pending} producer=${o.producer} rule=${o.rule} marker=${o.marker} result=${o.result} role=${o.role} leader=${o.leader}`;
  }
  const m = state.arrival;
  return `marker@${m.release} wire=${m.wire} arrival=${m.arrival} leaderTxn=${m.leaderTxn} producer=${m.producer} rule=${m.rule} result=${m.result} role=${m.role} leader=${m.leader}`;
}

/**
 * The state a key read back from a file spells (corpus files and results logs keep keys): the
 * inverse of stateKey, null when no state spells the key exactly so.
 */
export function parseStateKey(key: string): ProtocolState | null {
  const state = key.startsWith("event ") ? eventState(key.slice("event ".length)) : arrivalState(key);
  return state !== null && stateKey(state) === key ? state : null;
}

function eventState(name: string): ProtocolState | null {
  const event = EVENT_POINTS.find((e) => e === name);
  return event === undefined ? null : { kind: "event", event };
}

/** The closed dimensions' values, looked up by any dimension's name. */
const CLOSED_VALUES: Partial<Record<keyof MarkerArrival, readonly string[]>> = MARKER_VALUES;
const OFFSETS_CLOSED_VALUES: Partial<Record<keyof OffsetsMarkerArrival, readonly string[]>> = OFFSETS_MARKER_VALUES;

function arrivalState(key: string): ProtocolState | null {
  const match = /^(marker|offsets-marker)@(\S+) (.*)$/.exec(key);
  if (!match || !isReleaseName(match[2] as string)) return null;
  const fields: Record<string, string> = { release: match[2] as string };
  for (const part of (match[3] as string).split(" ")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields[part.slice(0, eq)] = part.slice(eq + 1);
  }
  const valid = (dims: readonly string[], closed: Partial<Record<string, readonly string[]>>) =>
    dims.every((d) => {
      const value = fields[d];
      const allowed = closed[d];
      return value !== undefined && value !== "" && (allowed === undefined || allowed.includes(value));
    });
  if (match[1] === "offsets-marker")
    return valid(OFFSETS_MARKER_DIMENSIONS, OFFSETS_CLOSED_VALUES)
      ? { kind: "offsets-marker", arrival: fields as unknown as OffsetsMarkerArrival }
      : null;
  return valid(MARKER_DIMENSIONS, CLOSED_VALUES)
    ? { kind: "marker", arrival: fields as unknown as MarkerArrival }
    : null;
}

/** How a marker request travelled, as a key spells it: `v1`, or `v2-tvN` with N the TransactionVersion the leader read. */
export function markerWire(requestVersion: number, transactionVersionSeen: number): string {
  return requestVersion < 2 ? "v1" : `v${requestVersion}-tv${transactionVersionSeen}`;
}

/**
 * Whether a state is a late marker copy at a leader of `at.release`, over `at.wire`: a repeat of its
 * transaction's marker, after the producer moved on, while its next transaction was open at the
 * partition (whatever the rule and the result). Applied, it is the stale marker.
 */
export function isLateCopy(state: ProtocolState, at: { release: string; wire: string }): boolean {
  if (state.kind !== "marker") return false;
  const m = state.arrival;
  return (
    m.release === at.release &&
    m.wire === at.wire &&
    m.arrival === "repeat" &&
    m.leaderTxn === "other" &&
    m.producer === "moved-on"
  );
}

/**
 * How close a marker arrival came to a stale marker (0 to 4): it was a repeat of its transaction's
 * marker, the producer had moved on to a newer transaction, that transaction's records were open at
 * the partition, and the leader applied it. All four is the stale-marker violation itself; three
 * is a near miss (too early, too late, or rejected by the KIP-1228 check). At an offsets partition
 * the newer transaction's pending offsets stand for its open records. Events count 0.
 */
export function markerRisk(state: ProtocolState): number {
  if (state.kind === "event") return 0;
  const m = state.arrival;
  const otherOpen = state.kind === "marker" ? state.arrival.leaderTxn === "other" : state.arrival.pending === "other";
  return (
    Number(m.arrival === "repeat") +
    Number(m.producer === "moved-on") +
    Number(otherOpen) +
    Number(m.result === "applied")
  );
}

/** Each choice stream's position: a tape cut there replays a run up to that moment. */
export type StreamPositions = Record<string, number>;

/** One abstract state reached by a run: how often, and where on the tape it began. */
export interface CoveragePoint {
  state: ProtocolState;
  /** stateKey(state), kept: maps and files hold points by key. */
  key: string;
  count: number;
  /**
   * Where the situation first reached began, when positions are recorded: for a marker arrival,
   * when that copy was sent (its delay already drawn), else when it was reached. A tape cut there
   * and continued with new choices re-rolls what happens while the message is in flight.
   */
  from: StreamPositions | null;
  /** For a marker arrival: the link its copy travelled (client -> server), so a search can re-roll that link alone. */
  link: { from: string; to: string } | null;
}

/** Bound on distinct points one run records (the vocabulary is far smaller; this guards a bug). */
const MAX_POINTS_PER_RUN = 10_000;

/**
 * Records which abstract protocol states a run reached, from the ghost feed alone. It keeps its own
 * view of open transactions per (partition, producer id) and of which transaction each
 * transactional.id began last; it never touches the model.
 */
export class ProtocolCoverageRecorder implements GhostObserver {
  private readonly points = new Map<string, CoveragePoint>();
  /** `${partition}|${producerId}` -> ghost transaction whose records are open there. */
  private readonly openTxn = new Map<string, string>();
  /** `${partition}|${ghostTxn}`: a marker of that transaction was applied at that partition. */
  private readonly appliedAt = new Set<string>();
  /** transactional.id -> the transaction attempt begun last. */
  private readonly latestBegun = new Map<string, string>();
  /** Network correlation id of a marker request copy -> stream positions when it was sent, and its link. */
  private readonly sentAt = new Map<number, { positions: StreamPositions; link: { from: string; to: string } }>();
  /** Each partition's leader epoch, as the controller last set it. */
  private readonly leaderEpochs = new Map<PartitionKey, number>();
  /** Marker id -> each partition's leader epoch when the marker was first sent. */
  private readonly epochsAtFirstSend = new Map<number, Map<PartitionKey, number>>();

  /** positions: null when a run does not need them (only the coverage strategy does; they cost a copy per marker). */
  constructor(private readonly positions: (() => StreamPositions) | null) {}

  /** Reached points sorted by key (deterministic order for reports and workers). */
  reached(): CoveragePoint[] {
    return [...this.points.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  private hit(state: ProtocolState, sent?: { positions: StreamPositions; link: { from: string; to: string } }): void {
    const key = stateKey(state);
    const point = this.points.get(key);
    if (point) {
      point.count++;
      return;
    }
    if (this.points.size >= MAX_POINTS_PER_RUN)
      throw new Error(`more than ${MAX_POINTS_PER_RUN} coverage points in one run`);
    this.points.set(key, {
      state,
      key,
      count: 1,
      from: sent?.positions ?? this.positions?.() ?? null,
      link: sent?.link ?? null,
    });
  }

  txnBegun(e: { ghostTxn: string; producer: string; transactionalId: string; atMs: number }): void {
    this.latestBegun.set(e.transactionalId, e.ghostTxn);
  }

  batchAppended(e: BatchAppended): void {
    const b = e.batch;
    if (b.control !== null || !b.isTransactional || b.ghostTxn === null) return;
    const slot = `${e.partition}|${b.producerId}`;
    if (!this.openTxn.has(slot)) this.openTxn.set(slot, b.ghostTxn);
  }

  txnDecided(e: TxnDecision): void {
    if (e.initiator === "coordinator") this.hit({ kind: "event", event: "coordinator-initiated-abort" });
  }

  txnCompleted(): void {}

  markerSent(e: MarkerSend): void {
    if (!this.epochsAtFirstSend.has(e.markerId))
      this.epochsAtFirstSend.set(e.markerId, new Map(e.partitions.map((p) => [p, this.leaderEpochs.get(p) ?? 0])));
    if (this.positions && !this.sentAt.has(e.correlationId))
      this.sentAt.set(e.correlationId, { positions: this.positions(), link: { from: e.coordinator, to: e.broker } });
  }

  markerApplied(e: MarkerOutcome): void {
    const slot = `${e.partition}|${e.producerId}`;
    const txn = e.ghostTxn ?? `marker#${e.markerId}`;
    const open = this.openTxn.get(slot);
    const applied = e.errorCode === 0;
    const release = e.brokerRelease;
    const wire = markerWire(e.requestVersion, e.transactionVersionSeen);
    const appliedKey = `${e.partition}|${txn}`;
    const arrival = this.appliedAt.has(appliedKey) ? "repeat" : "first";
    const held = open === undefined ? "none" : open === e.ghostTxn ? "same" : "other";
    const producer =
      this.latestBegun.get(e.transactionalId) === e.ghostTxn || e.ghostTxn === null ? "current" : "moved-on";
    const rule = e.rule;
    const result = applied ? "applied" : "rejected";
    const role = e.leaderEpoch < 0 || e.errorCode === Errors.NOT_LEADER_OR_FOLLOWER ? "not-leader" : "leader";
    const leader =
      (this.leaderEpochs.get(e.partition) ?? 0) > (this.epochsAtFirstSend.get(e.markerId)?.get(e.partition) ?? 0)
        ? "new"
        : "same";
    // An offsets partition's marker is the group coordinator's: its own states. A data partition's keeps its key.
    const state: ProtocolState = isConsumerOffsetsPartition(e.partition)
      ? {
          kind: "offsets-marker",
          arrival: {
            release,
            wire,
            arrival,
            pending: held === "same" ? "own" : held,
            producer,
            rule,
            marker: e.result,
            result,
            role,
            leader,
          },
        }
      : { kind: "marker", arrival: { release, wire, arrival, leaderTxn: held, producer, rule, result, role, leader } };
    this.hit(state, this.sentAt.get(e.correlationId));
    if (!applied) return;
    this.appliedAt.add(appliedKey);
    if (e.completed) this.openTxn.delete(slot);
  }

  /**
   * A TxnOffsetCommit written leaves the producer's offsets pending at the offsets partition (its
   * open transaction there, as a data batch opens one at a data partition); refusals by KIP-447's
   * fence and unstable offset fetches are event points.
   */
  groupRequestAnswered(e: GroupAnswer): void {
    if (e.api === "TxnOffsetCommit") {
      if (e.errorCode === Errors.NONE && e.ghostTxn !== null) {
        const slot = `${e.partition}|${e.producerId}`;
        if (!this.openTxn.has(slot)) this.openTxn.set(slot, e.ghostTxn);
      }
      if (e.errorCode === Errors.ILLEGAL_GENERATION)
        this.hit({ kind: "event", event: "txn-offset-commit-illegal-generation" });
      if (e.errorCode === Errors.UNKNOWN_MEMBER_ID)
        this.hit({ kind: "event", event: "txn-offset-commit-unknown-member" });
    }
    if (e.api === "OffsetFetch" && e.errorCode === Errors.UNSTABLE_OFFSET_COMMIT)
      this.hit({ kind: "event", event: "offset-fetch-unstable" });
  }

  markerRequestRefused(): void {
    this.hit({ kind: "event", event: "marker-request-refused" });
  }

  markerSendingAbandoned(): void {
    this.hit({ kind: "event", event: "marker-sending-abandoned" });
  }

  markerCompletionWakeupLost(): void {}

  producerEpochAssigned(): void {}

  producerFatal(): void {}

  producerOutcome(e: { outcome: "committed" | "aborted" | "unknown" }): void {
    if (e.outcome === "unknown") this.hit({ kind: "event", event: "producer-outcome-unknown" });
  }

  leaderChanged(e: LeaderChangeSeen): void {
    this.leaderEpochs.set(e.partition, e.leaderEpoch);
  }

  replicaTruncated(): void {}
  sendFailed(): void {}
}

/** Forwards every ghost event to each observer in order (the ledger first). */
export function teeGhost(observers: readonly GhostObserver[]): GhostObserver {
  const each = (call: (o: GhostObserver) => void) => {
    for (const o of observers) call(o);
  };
  return {
    txnBegun: (e) => each((o) => o.txnBegun(e)),
    batchAppended: (e) => each((o) => o.batchAppended(e)),
    txnDecided: (e) => each((o) => o.txnDecided(e)),
    txnCompleted: (e) => each((o) => o.txnCompleted(e)),
    markerSent: (e) => each((o) => o.markerSent(e)),
    markerApplied: (e) => each((o) => o.markerApplied(e)),
    markerRequestRefused: (e) => each((o) => o.markerRequestRefused(e)),
    markerSendingAbandoned: (e) => each((o) => o.markerSendingAbandoned(e)),
    markerCompletionWakeupLost: (e) => each((o) => o.markerCompletionWakeupLost(e)),
    producerEpochAssigned: (e) => each((o) => o.producerEpochAssigned(e)),
    producerFatal: (e) => each((o) => o.producerFatal(e)),
    producerOutcome: (e) => each((o) => o.producerOutcome(e)),
    sendFailed: (e) => each((o) => o.sendFailed(e)),
    leaderChanged: (e) => each((o) => o.leaderChanged(e)),
    replicaTruncated: (e) => each((o) => o.replicaTruncated(e)),
    groupRequestAnswered: (e) => each((o) => o.groupRequestAnswered?.(e)),
    idempotentEpochBumped: (e) => each((o) => o.idempotentEpochBumped?.(e)),
    produceRefused: (e) => each((o) => o.produceRefused?.(e)),
  };
}
