import type {
  LogOperation,
  LogObserverFactory,
  PartitionLogObserver,
} from "../../kafka/broker/partition-log-observer.js";
import type { PartitionLog } from "../../kafka/broker/partition-log.js";
import type { LogBatch } from "../../kafka/broker/log-batch.js";
import type { PartitionKey } from "../../kafka/common/types.js";
import type { LeaderOp, LeaderResult } from "../leader/leader-ops.js";
import { dataAnswer, leaderStateOf, markerAnswer, none, refused } from "../leader/model-leader.js";
import { Errors } from "../../kafka/common/errors.js";

/**
 * One step of a replica's trace: the operation the model's log performed, in the leader service's
 * words (jvm/PROTOCOL.md), and the model's answer with the log's state after it. `compare` false
 * marks the replay that rebuilds a log on another release (only the state after the replay's last
 * step is compared, with the model's state before the release changed).
 */
export interface TraceStep {
  op: LeaderOp;
  model: LeaderResult;
  compare: boolean;
}

/** One replica's operations on one release, in order: what one harness sequence replays. */
export interface ReplicaSegment {
  broker: string;
  partition: PartitionKey;
  /** The model's release profile of the broker during the segment. */
  profile: string;
  /** The broker's producer.id.expiration.ms (a seed may draw it), null for none: Kafka's log gets it too. */
  producerIdExpirationMs: number | null;
  steps: TraceStep[];
}

/**
 * Records every judging or changing call of every replica's log in a model run (trace validation):
 * a LogObserverFactory the run hands its brokers. A replica's trace is cut into segments at each
 * release change (a rolling upgrade's restart); a later segment starts by rebuilding the log's
 * history on the new release (not compared: each batch as a follower writes it, and each truncation,
 * high-watermark move, expiry and restart at its time), then carries on. It never changes the run.
 */
export class TraceRecorder implements LogObserverFactory {
  readonly segments: ReplicaSegment[] = [];
  private readonly observers: ReplicaObserver[] = [];

  forReplica(broker: string, partition: PartitionKey, release: () => string): PartitionLogObserver {
    const observer = new ReplicaObserver(broker, partition, release, this.segments);
    this.observers.push(observer);
    return observer;
  }

  /** The run is over: a restart that no later operation followed goes into its segment. */
  finish(): void {
    for (const o of this.observers) o.finish();
  }
}

/** A broker stop, held until the replica's next operation says on which release the broker came back. */
interface PendingRestart {
  op: Extract<LogOperation, { kind: "restart" }>;
  model: LeaderResult;
  /** The log's history up to the stop: what rebuilds it on another release. */
  history: readonly LeaderOp[];
  atMs: number | null;
}

class ReplicaObserver implements PartitionLogObserver {
  private segment: ReplicaSegment | null = null;
  /** Model guard number -> index in the segment of the verify op that handed it out. */
  private readonly guardOps = new Map<number, number>();
  /** Producer ids this segment has used: the verification entries compared are theirs. */
  private readonly producerIds = new Set<number>();
  /** The guard each producer's last verify returned in this segment (for sentinel/new/reused). */
  private readonly lastGuards = new Map<number, number>();
  /** The epoch the replica appends at as a leader (its last becomeLeader). */
  private leaderEpoch = 0;
  /** The model's answer to this replica's previous op. */
  private previous: LeaderResult | null = null;
  private pendingRestart: PendingRestart | null = null;
  /**
   * The log's history as ops that rebuild it on any release: a batch as a follower writes it (its
   * producer state as a replica's), truncations, high-watermark moves, expiries, leadership changes
   * and restarts, each at its time. Verifications are left out: memory, gone with any restart.
   * Rebuilding from batches alone would miss what expiry did between them (a producer forgotten and
   * back at a new epoch with no coordinator epoch).
   */
  private readonly history: LeaderOp[] = [];
  /** The log end the history has written up to. */
  private historyLogEnd = 0;
  /** The log's producer.id.expiration.ms, as the first operation shows it (a log keeps it for life). */
  private producerIdExpirationMs: number | null = null;

  constructor(
    private readonly broker: string,
    private readonly partition: PartitionKey,
    private readonly release: () => string,
    private readonly segments: ReplicaSegment[],
  ) {}

  onOperation(op: LogOperation, log: PartitionLog, nowMs: number | null): void {
    for (const pid of producerIdsOf(op)) this.producerIds.add(pid);
    this.producerIdExpirationMs = log.producerIdExpirationMs;
    if (op.kind === "restart") {
      // The broker stopped; it is recovered when it starts again, on the release it starts with.
      this.flushRestart(this.segment?.profile ?? this.release());
      const model: LeaderResult = { ...none(), state: leaderStateOf(log, this.producerIds) };
      this.pendingRestart = { op, model, history: [...this.history], atMs: nowMs };
      this.previous = model;
      this.recordHistory(op, log, nowMs);
      return;
    }
    this.flushRestart(this.release());
    if (this.segment === null) this.startSegment(this.release(), []);
    const segment = this.segment as ReplicaSegment;
    const at = nowMs === null ? {} : { atMs: nowMs };
    const { leaderOp, answer } = this.translate(op, segment.steps.length, nowMs);
    const model: LeaderResult = { ...answer, state: leaderStateOf(log, this.producerIds) };
    segment.steps.push({ op: { ...leaderOp, ...at } as LeaderOp, model, compare: true });
    this.previous = model;
    this.recordHistory(op, log, nowMs);
  }

  /** The operation's lasting effect on the log, in the history (see `history`). */
  private recordHistory(op: LogOperation, log: PartitionLog, nowMs: number | null): void {
    const at = nowMs === null ? {} : { atMs: nowMs };
    if (op.kind === "truncate") {
      this.history.push({ op: "truncate", offset: op.offset, ...at });
      this.historyLogEnd = log.logEndOffset;
      return;
    }
    // The batches this operation wrote (none when refused or a duplicate), oldest first.
    let first = log.batches.length;
    while (first > 0 && (log.batches[first - 1] as LogBatch).baseOffset >= this.historyLogEnd) first--;
    for (let i = first; i < log.batches.length; i++)
      this.history.push({ ...followerOp(log.batches[i] as LogBatch), ...at } as LeaderOp);
    this.historyLogEnd = log.logEndOffset;
    switch (op.kind) {
      case "highWatermark":
        this.history.push({ op: "highWatermark", offset: op.highWatermark, ...at });
        return;
      case "expire":
        this.history.push({ op: "expireProducers", ...at });
        return;
      case "becomeLeader":
        this.history.push({ op: "becomeLeader", leaderEpoch: op.leaderEpoch, ...at });
        return;
      case "becomeFollower":
        this.history.push({ op: "becomeFollower", ...at });
        return;
      case "restart":
        this.history.push({ op: "restart", clean: op.clean, highWatermark: log.highWatermark, ...at });
        return;
      default:
        return;
    }
  }

  finish(): void {
    this.flushRestart(this.segment?.profile ?? this.release());
  }

  /**
   * A held restart goes into the segment of the release the broker restarted on: the same segment,
   * or, after an upgrade, a new one that first writes the log's batches as they were when the broker
   * stopped (not compared) and then recovers it there, compared with the model's state after its
   * restart.
   */
  private flushRestart(profile: string): void {
    const pending = this.pendingRestart;
    if (pending === null) return;
    this.pendingRestart = null;
    if (this.segment === null || this.segment.profile !== profile) this.startSegment(profile, pending.history);
    const segment = this.segment as ReplicaSegment;
    const at = pending.atMs === null ? {} : { atMs: pending.atMs };
    segment.steps.push({
      op: { op: "restart", clean: pending.op.clean, highWatermark: pending.model.state.highWatermark, ...at },
      model: pending.model,
      compare: true,
    });
    this.lastGuards.clear();
  }

  /** A new segment on `profile`, its log first rebuilt by `history` (not compared). */
  private startSegment(profile: string, history: readonly LeaderOp[]): void {
    this.segment = {
      broker: this.broker,
      partition: this.partition,
      profile,
      producerIdExpirationMs: this.producerIdExpirationMs,
      steps: [],
    };
    this.segments.push(this.segment);
    this.guardOps.clear();
    this.lastGuards.clear();
    const filler = this.previous;
    if (filler === null) return;
    for (const op of history) this.segment.steps.push({ op, model: filler, compare: false });
  }

  private translate(
    op: LogOperation,
    index: number,
    nowMs: number | null,
  ): { leaderOp: LeaderOp; answer: Omit<LeaderResult, "state"> } {
    const timestamp = nowMs ?? -1;
    switch (op.kind) {
      case "verify": {
        const leaderOp: LeaderOp = {
          op: "verify",
          producerId: op.producerId,
          producerEpoch: op.producerEpoch,
          sequence: op.sequence,
          supportsEpochBump: op.supportsEpochBump,
        };
        if (op.refused !== null) return { leaderOp, answer: refused(Errors.INVALID_PRODUCER_EPOCH, op.refused) };
        const previous = this.lastGuards.get(op.producerId);
        this.lastGuards.set(op.producerId, op.guard);
        if (op.guard !== 0) this.guardOps.set(op.guard, index);
        const guard = op.guard === 0 ? "sentinel" : op.guard === previous ? "reused" : "new";
        return { leaderOp, answer: { ...none(), guard } };
      }
      case "data": {
        const input = op.input;
        const guardOp = this.guardOps.get(input.verificationGuard);
        const guard = input.verificationGuard === 0 ? "none" : guardOp !== undefined ? `op:${guardOp}` : "stale";
        const leaderOp = {
          op: "data",
          producerId: input.producerId,
          producerEpoch: input.producerEpoch,
          baseSequence: input.baseSequence,
          count: input.values.length,
          transactional: input.isTransactional,
          origin: input.origin ?? "CLIENT",
          guard,
          leaderEpoch: this.leaderEpoch,
          timestamp,
        } as LeaderOp;
        return { leaderOp, answer: dataAnswer(op.result) };
      }
      case "marker":
        return {
          leaderOp: {
            op: "marker",
            producerId: op.input.producerId,
            producerEpoch: op.input.producerEpoch,
            coordinatorEpoch: op.input.coordinatorEpoch,
            result: op.input.result,
            transactionVersion: op.input.transactionVersion,
            origin: "COORDINATOR",
            leaderEpoch: this.leaderEpoch,
            timestamp,
          } as LeaderOp,
          answer: markerAnswer(op.result),
        };
      case "follower":
        return { leaderOp: followerOp(op.batch), answer: followerAnswer(op.batch) };
      case "coordinatorRecord":
        return {
          leaderOp: {
            op: "records",
            origin: "COORDINATOR",
            leaderEpoch: op.batch.partitionLeaderEpoch ?? 0,
            timestamp,
          } as LeaderOp,
          answer: { ...none(), offset: op.batch.baseOffset },
        };
      case "truncate":
        return { leaderOp: { op: "truncate", offset: op.offset }, answer: none() };
      case "highWatermark":
        return { leaderOp: { op: "highWatermark", offset: op.highWatermark }, answer: none() };
      case "expire":
        return { leaderOp: { op: "expireProducers" }, answer: none() };
      case "becomeLeader":
        this.leaderEpoch = op.leaderEpoch;
        return { leaderOp: { op: "becomeLeader", leaderEpoch: op.leaderEpoch } as LeaderOp, answer: none() };
      case "becomeFollower":
        return { leaderOp: { op: "becomeFollower" } as LeaderOp, answer: none() };
      case "restart":
        return { leaderOp: { op: "restart", clean: op.clean }, answer: none() };
    }
  }
}

/** A batch of the log as a follower (or a recovering log) appends it: REPLICATION, at the log end. */
function followerOp(batch: LogBatch): LeaderOp {
  const leaderEpoch = batch.partitionLeaderEpoch ?? 0;
  const timestamp = batch.maxTimestamp ?? -1;
  if (batch.control)
    return {
      op: "marker",
      producerId: batch.producerId,
      producerEpoch: batch.producerEpoch,
      coordinatorEpoch: batch.control.coordinatorEpoch,
      result: batch.control.type,
      transactionVersion: -1,
      origin: "REPLICATION",
      leaderEpoch,
      timestamp,
    } as LeaderOp;
  if (batch.producerId < 0) return { op: "records", origin: "REPLICATION", leaderEpoch, timestamp } as LeaderOp;
  return {
    op: "data",
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    count: batch.lastOffset - batch.baseOffset + 1,
    transactional: batch.isTransactional,
    origin: "REPLICATION",
    guard: "none",
    leaderEpoch,
    timestamp,
  } as LeaderOp;
}

function followerAnswer(batch: LogBatch): Omit<LeaderResult, "state"> {
  if (batch.control || batch.producerId < 0) return { ...none(), offset: batch.baseOffset };
  return { ...none(), firstOffset: batch.baseOffset, lastOffset: batch.lastOffset, duplicate: false };
}

function producerIdsOf(op: LogOperation): number[] {
  switch (op.kind) {
    case "verify":
      return [op.producerId];
    case "data":
    case "marker":
      return [op.input.producerId];
    case "follower":
      return op.batch.producerId >= 0 ? [op.batch.producerId] : [];
    default:
      return [];
  }
}
