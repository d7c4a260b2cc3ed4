import { maybeIncrementLogStartOffset } from "../../kafka/broker/log-start-offset.js";
import { PartitionLog } from "../../kafka/broker/partition-log.js";
import type { DataAppendResult, MarkerAppendResult } from "../../kafka/broker/log-append.js";
import type { LogBatch } from "../../kafka/broker/log-batch.js";
import { errorName, Errors } from "../../kafka/common/errors.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { LeaderConfig, LeaderOp, LeaderResult, LeaderState } from "./leader-ops.js";

/** The model's partition name for the comparison (Kafka's side logs eosfuzz-0). */
const PARTITION = "eosfuzz-0";

/**
 * The model's answer to the leader service's operations: one PartitionLog (the model's UnifiedLog
 * with its ProducerStateManager) on a broker of the given release flags, driven op by op as the
 * broker's produce and marker paths drive it (src/kafka/server/: the stale-epoch refusal and the
 * verification entry before a transactional produce; appendData, appendMarker, appendAsFollower).
 */
export class ModelLeader {
  readonly log: PartitionLog;
  private nowMs = 0;
  /** The epoch this replica leads at (its last becomeLeader). */
  leaderEpoch = 0;
  /** The guard each producer's last verify returned (0: the sentinel), as the harness keeps it. */
  private readonly guards = new Map<number, number>();
  /** The producer ids the sequence has used, whose verification entries the state reports. */
  private readonly producerIds = new Set<number>();

  constructor(
    private readonly flags: Readonly<ReleaseFlags>,
    private readonly config: LeaderConfig,
  ) {
    this.log = new PartitionLog(PARTITION, () => this.flags, {
      clock: () => this.nowMs,
      producerIdExpirationMs: config.producerIdExpirationMs,
    });
  }

  apply(op: LeaderOp): LeaderResult {
    try {
      return { ...this.step(op), state: this.state() };
    } catch (e) {
      // A model exception is an answer too: the comparison shows it beside Kafka's.
      const error = e as Error;
      return { error: modelExceptionError(error), exception: error.name, message: error.message, state: this.state() };
    }
  }

  private step(op: LeaderOp): Omit<LeaderResult, "state"> {
    switch (op.op) {
      case "verify": {
        this.producerIds.add(op.producerId);
        const stale = this.log.staleEpochBeforeVerification(op.producerId, op.producerEpoch);
        if (stale !== null) return refused(Errors.INVALID_PRODUCER_EPOCH, stale);
        const guard = this.log.maybeStartTransactionVerification(
          op.producerId,
          op.sequence,
          op.producerEpoch,
          op.supportsEpochBump,
        );
        const previous = this.guards.get(op.producerId);
        this.guards.set(op.producerId, guard);
        return { ...none(), guard: guard === 0 ? "sentinel" : guard === previous ? "reused" : "new" };
      }
      case "data":
        this.producerIds.add(op.producerId);
        return op.origin === "REPLICATION" ? this.followerData(op) : this.leaderData(op);
      case "marker":
        this.producerIds.add(op.producerId);
        return op.origin === "REPLICATION" ? this.followerMarker(op) : this.leaderMarker(op);
      case "records": {
        if (op.origin === "REPLICATION") {
          const offset = this.log.logEndOffset;
          this.log.appendAsFollower({
            baseOffset: offset,
            lastOffset: offset,
            producerId: -1,
            producerEpoch: -1,
            baseSequence: -1,
            isTransactional: false,
            control: null,
            values: [],
            ghostTxn: null,
            maxTimestamp: this.nowMs,
          });
          return { ...none(), offset };
        }
        return { ...none(), offset: this.log.appendOffsetCommitRecords([]).baseOffset };
      }
      case "highWatermark":
        // The harness calls UnifiedLog.updateHighWatermark, as a follower's maybeUpdateHighWatermark does.
        this.log.updateFollowerHighWatermark(op.offset);
        return none();
      case "truncate":
        this.log.truncateTo(op.offset);
        return none();
      case "logStartOffset":
        // Past the high watermark Kafka throws OffsetOutOfRangeException before anything moves.
        if (op.offset > this.log.highWatermark)
          return {
            error: "OFFSET_OUT_OF_RANGE",
            exception: null,
            message: `log start ${op.offset} above the high watermark`,
          };
        return { ...none(), moved: maybeIncrementLogStartOffset(this.log, op.offset) !== null };
      case "advanceTime":
        this.nowMs += op.ms;
        return none();
      case "expireProducers":
        this.log.removeExpiredProducers(this.config.producerIdExpirationMs);
        return none();
      case "becomeLeader":
        this.leaderEpoch = op.leaderEpoch;
        this.log.becomeLeader(op.leaderEpoch);
        return none();
      case "becomeFollower":
        this.log.becomeFollower();
        return none();
      case "restart":
        // The model's broker keeps its logs' producer state across a restart (server/kafka-broker.ts:
        // "the logs stay") but loses the verification entries; what Kafka's recovery rebuilds is compared.
        this.log.onBrokerStop(op.clean);
        return none();
    }
  }

  private leaderData(op: Extract<LeaderOp, { op: "data" }>): Omit<LeaderResult, "state"> {
    const result = this.log.appendData({
      producerId: op.producerId,
      producerEpoch: op.producerEpoch,
      baseSequence: op.baseSequence,
      isTransactional: op.transactional,
      values: values(op.count),
      ghostTxn: null,
      verificationGuard: this.guardFor(op),
      origin: op.origin === "COORDINATOR" ? "COORDINATOR" : "CLIENT",
    });
    return dataAnswer(result);
  }

  /** The guard a data op presents: a stale one is a number no entry was ever given. */
  private guardFor(op: Extract<LeaderOp, { op: "data" }>): number {
    if (op.guard === "none") return 0;
    if (op.guard === "stale") return -1;
    return this.guards.get(op.producerId) ?? 0;
  }

  private followerData(op: Extract<LeaderOp, { op: "data" }>): Omit<LeaderResult, "state"> {
    const base = this.log.logEndOffset;
    const batch: LogBatch = {
      baseOffset: base,
      lastOffset: base + op.count - 1,
      producerId: op.producerId,
      producerEpoch: op.producerEpoch,
      baseSequence: op.baseSequence,
      isTransactional: op.transactional,
      control: null,
      values: values(op.count),
      ghostTxn: null,
      maxTimestamp: this.nowMs,
    };
    this.log.appendAsFollower(batch);
    return { ...none(), firstOffset: batch.baseOffset, lastOffset: batch.lastOffset, duplicate: false };
  }

  private leaderMarker(op: Extract<LeaderOp, { op: "marker" }>): Omit<LeaderResult, "state"> {
    const outcome = this.log.appendMarker({
      producerId: op.producerId,
      producerEpoch: op.producerEpoch,
      result: op.result,
      coordinatorEpoch: op.coordinatorEpoch,
      transactionVersion: op.transactionVersion,
      ghostTxn: null,
    });
    return markerAnswer(outcome);
  }

  private followerMarker(op: Extract<LeaderOp, { op: "marker" }>): Omit<LeaderResult, "state"> {
    const offset = this.log.logEndOffset;
    this.log.appendAsFollower({
      baseOffset: offset,
      lastOffset: offset,
      producerId: op.producerId,
      producerEpoch: op.producerEpoch,
      baseSequence: -1,
      isTransactional: true,
      control: { type: op.result, coordinatorEpoch: op.coordinatorEpoch },
      values: [],
      ghostTxn: null,
      maxTimestamp: this.nowMs,
    });
    return { ...none(), offset };
  }

  /** The state after an op, in the harness's shape. */
  state(): LeaderState {
    return leaderStateOf(this.log, this.producerIds);
  }
}

/** A log's state in the harness's shape; verification entries of `producerIds` only, as the harness reports them. */
export function leaderStateOf(log: PartitionLog, producerIds: ReadonlySet<number>): LeaderState {
  const producers = [...log.producers.values()]
    .map((e) => ({
      producerId: e.producerId,
      producerEpoch: e.producerEpoch,
      coordinatorEpoch: e.coordinatorEpoch,
      currentTxnFirstOffset: e.currentTxnFirstOffset,
      lastSequence: e.lastSeq(),
      lastTimestamp: e.lastTimestamp,
    }))
    .sort((a, b) => a.producerId - b.producerId);
  const verification = [...producerIds]
    .sort((a, b) => a - b)
    .flatMap((producerId) => {
      const v = log.verificationStates.get(producerId);
      return v
        ? [
            {
              producerId,
              producerEpoch: v.epoch,
              lowestSequence: v.lowestSequence,
              supportsEpochBump: v.supportsEpochBump,
            },
          ]
        : [];
    });
  return {
    logEndOffset: log.logEndOffset,
    highWatermark: log.highWatermark,
    lastStableOffset: log.lastStableOffset(),
    firstUnstableOffset: log.producerStateFirstUnstableOffset(),
    abortedTxns: log.abortedTxns.map((a) => ({ ...a })),
    producers,
    verification,
  };
}

/** A leader's data append as the harness answers it. */
export function dataAnswer(result: DataAppendResult): Omit<LeaderResult, "state"> {
  if (result.kind === "error") return refused(result.errorCode, result.reason);
  if (result.kind === "duplicate")
    return { ...none(), firstOffset: result.firstOffset, lastOffset: result.lastOffset, duplicate: true };
  return { ...none(), firstOffset: result.batch.baseOffset, lastOffset: result.batch.lastOffset, duplicate: false };
}

/** A leader's marker append as the harness answers it. */
export function markerAnswer(outcome: MarkerAppendResult): Omit<LeaderResult, "state"> {
  if (outcome.kind === "error") return refused(outcome.errorCode, outcome.reason);
  return { ...none(), offset: outcome.batch.baseOffset };
}

export function values(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `v${i}`);
}

export function none(): Omit<LeaderResult, "state"> {
  return { error: "NONE", exception: null, message: null };
}

export function refused(errorCode: number, reason: string): Omit<LeaderResult, "state"> {
  return { error: errorName(errorCode), exception: null, message: reason };
}

/**
 * The Kafka error a model exception stands for, where the model throws Kafka's exception; any
 * other exception is the model's own failure, named so that it never equals one of Kafka's answers.
 */
export function modelExceptionError(error: Error): string {
  switch (error.name) {
    case "TransactionCoordinatorFencedException":
      return "TRANSACTION_COORDINATOR_FENCED";
    case "OutOfOrderSequenceException":
      return "OUT_OF_ORDER_SEQUENCE_NUMBER";
    case "InvalidTxnStateException":
      return "INVALID_TXN_STATE";
    default:
      return `MODEL_${error.name}`;
  }
}
