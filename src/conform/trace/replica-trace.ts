import type {
  LogOperation,
  LogObserverFactory,
  PartitionLogObserver,
} from "../../kafka/broker/partition-log-observer.js";
import type { LogBatch, PartitionLog } from "../../kafka/broker/partition-log.js";
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
  steps: TraceStep[];
}

/**
 * Records every judging or changing call of every replica's log in a model run (trace validation):
 * a LogObserverFactory the run hands its brokers. A replica's trace is cut into segments at each
 * release change (a rolling upgrade's restart); a later segment starts by replaying the log's
 * batches as a recovering broker reads them, then carries on. It never changes the run.
 */
export class TraceRecorder implements LogObserverFactory {
  readonly segments: ReplicaSegment[] = [];

  forReplica(broker: string, partition: PartitionKey, release: () => string): PartitionLogObserver {
    return new ReplicaObserver(broker, partition, release, this.segments);
  }
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
  /** The model's answer to this replica's previous op (its state: what a release change must rebuild). */
  private previous: LeaderResult | null = null;

  constructor(
    private readonly broker: string,
    private readonly partition: PartitionKey,
    private readonly release: () => string,
    private readonly segments: ReplicaSegment[],
  ) {}

  onOperation(op: LogOperation, log: PartitionLog, nowMs: number | null): void {
    const profile = this.release();
    if (this.segment === null || this.segment.profile !== profile) this.startSegment(profile, op, log);
    for (const pid of producerIdsOf(op)) this.producerIds.add(pid);
    const segment = this.segment as ReplicaSegment;
    const at = nowMs === null ? {} : { atMs: nowMs };
    const { leaderOp, answer } = this.translate(op, segment.steps.length, nowMs);
    const model: LeaderResult = { ...answer, state: leaderStateOf(log, this.producerIds) };
    segment.steps.push({ op: { ...leaderOp, ...at } as LeaderOp, model, compare: true });
    this.previous = model;
  }

  /**
   * A new segment on `profile`. After a release change the log is rebuilt on the new release from
   * the batches it held before this op, as the restarted broker's recovery reads them, and the
   * state after that replay is compared with the model's state before the op.
   */
  private startSegment(profile: string, op: LogOperation, log: PartitionLog): void {
    const previous = this.previous;
    this.segment = { broker: this.broker, partition: this.partition, profile, steps: [] };
    this.segments.push(this.segment);
    this.guardOps.clear();
    this.lastGuards.clear();
    if (previous === null) return;
    const appended =
      op.kind === "data" || op.kind === "marker" || op.kind === "follower" || op.kind === "coordinatorRecord";
    const before = appended && log.batches.length > 0 ? log.batches.slice(0, -1) : log.batches;
    for (const batch of before) this.segment.steps.push({ op: followerOp(batch), model: previous, compare: false });
    const hw = previous.state.highWatermark;
    const last = this.segment.steps.at(-1);
    if (hw > 0 || last === undefined)
      this.segment.steps.push({ op: { op: "highWatermark", offset: hw }, model: previous, compare: true });
    else last.compare = true;
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
        this.lastGuards.clear();
        return {
          leaderOp: { op: "restart", clean: op.clean, highWatermark: this.previous?.state.highWatermark ?? 0 },
          answer: none(),
        };
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
