import type { CompletedTxn, MarkerEpochRule } from "./broker/partition-log.js";
import type { LogBatch } from "./broker/log-batch.js";
import type { PartitionKey, TransactionResult, TransactionVersion } from "./common/types.js";
import type { ReleaseName } from "./release.js";

/**
 * The narrow interface through which the oracle observes the model. Kafka has none of this: it is
 * the ghost ledger's feed (which transaction attempt a batch or marker belongs to). Observers only
 * record; they never change the model's behaviour.
 */
export interface GhostObserver {
  txnBegun(e: { ghostTxn: string; producer: string; transactionalId: string; atMs: number }): void;
  batchAppended(e: BatchAppended): void;
  txnDecided(e: TxnDecision): void;
  txnCompleted(e: {
    ghostTxn: string | null;
    transactionalId: string;
    result: TransactionResult;
    coordinator: string;
    atMs: number;
  }): void;
  markerSent(e: MarkerSend): void;
  markerApplied(e: MarkerOutcome): void;
  markerRequestRefused(e: {
    broker: string;
    brokerRelease: ReleaseName;
    version: number;
    reason: string;
    markerIds: number[];
    atMs: number;
  }): void;
  markerSendingAbandoned(e: {
    transactionalId: string;
    ghostTxn: string | null;
    coordinator: string;
    broker: string;
    errorCode: number;
    atMs: number;
  }): void;
  /**
   * Every marker of a transaction was acknowledged, but the wake-up that writes CompleteCommit or
   * CompleteAbort was lost (KAFKA-9777's purgatory: the completion's tryLock failed because a
   * request for the same transactional.id held the lock at that moment).
   */
  markerCompletionWakeupLost(e: CompletionWakeupLost): void;
  /**
   * The coordinator moves a transactional.id's epoch outside EndTxn: an InitProducerId asked by
   * `requestedBy` (a producer instance), or a fence of the coordinator's own (a timeout abort:
   * `requestedBy` null), from the moment the new epoch holds in memory.
   */
  producerEpochAssigned(e: ProducerEpochAssigned): void;
  /** A producer instance entered the fatal error state: it can only be closed. */
  producerFatal(e: ProducerFatal): void;
  producerOutcome(e: {
    ghostTxn: string;
    producer: string;
    outcome: "committed" | "aborted" | "unknown";
    detail: string;
    atMs: number;
  }): void;
  /** The application's send() of a record of a transaction failed at once (the record never reached the accumulator). */
  sendFailed(e: SendFailed): void;
  /** The controller changed a partition's leader (the leadership history explanations cite). */
  leaderChanged(e: LeaderChangeSeen): void;
  /** A replica truncated its log (a follower diverged from its leader): these batches are gone there. */
  replicaTruncated(e: {
    broker: string;
    partition: PartitionKey;
    toOffset: number;
    removed: readonly LogBatch[];
    atMs: number;
  }): void;
  /**
   * A group coordinator answered a group request (processing scenarios only; optional: observers
   * that follow only transactions leave it out). A TxnOffsetCommit answered NONE left its offsets
   * pending at `partition` for the producer.
   */
  groupRequestAnswered?(e: GroupAnswer): void;
  /**
   * An idempotent (non-transactional) producer bumped its epoch on its own
   * (bumpIdempotentProducerEpoch), asked by the partitions in `trigger` (optional: observers that
   * follow only transactions leave it out).
   */
  idempotentEpochBumped?(e: IdempotentEpochBump): void;
  /**
   * A partition leader refused a client's data batch at the append (the log's checks, after any
   * verification); optional: observers that follow only transactions leave it out.
   */
  produceRefused?(e: ProduceRefused): void;
}

/** A leader wrote a client's data batch. */
export interface BatchAppended {
  broker: string;
  partition: PartitionKey;
  batch: LogBatch;
  /**
   * Ghost: the lowest sequence the leader's verification entry for the producer held when it took
   * the batch (absent: it held no entry, the batch went into an open transaction or unverified).
   */
  verifiedFromSequence?: number;
  atMs: number;
}

/** An idempotent producer's client-side epoch bump, and the answers that asked for it. */
export interface IdempotentEpochBump {
  producer: string;
  producerId: number;
  /** The epoch after the bump. */
  producerEpoch: number;
  /** Each partition that asked for the bump, with the Produce error (or the expiry) that made it ask. */
  trigger: readonly { partition: PartitionKey; error: string; baseSequence: number; batchEpoch: number }[];
  atMs: number;
}

/** A client's data batch a leader refused at the append, with the producer state it carried. */
export interface ProduceRefused {
  broker: string;
  partition: PartitionKey;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  ghostTxn: string | null;
  errorCode: number;
  /** The leader's reason (the exception's message in Kafka). */
  reason: string;
  /**
   * Ghost: the offset at which this leader's log already holds this very batch (the same
   * transaction attempt, producer id, epoch and base sequence), if it does: a copy the producer
   * state no longer recognises as a duplicate (it keeps the last 5 batches, and only the last
   * after a snapshot load), not a batch missing from the log.
   */
  heldAtOffset?: number;
  atMs: number;
}

/** A group request's answer, as the group coordinator of `partition` (a __consumer_offsets partition) gave it. */
export interface GroupAnswer {
  broker: string;
  partition: PartitionKey;
  /** JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, TxnOffsetCommit or OffsetFetch. */
  api: string;
  groupId: string;
  memberId: string;
  generationId: number;
  /** The answer's error (for OffsetFetch: the first partition's error, if any). */
  errorCode: number;
  /** TxnOffsetCommit: the producer and its transaction attempt (else -1 and null). */
  producerId: number;
  ghostTxn: string | null;
  atMs: number;
}

export interface SendFailed {
  ghostTxn: string;
  producer: string;
  /** The record's value and the partition it was for. */
  value: string;
  partition: PartitionKey;
  /** The exception send() met (Kafka's class name). */
  error: string;
  atMs: number;
}

export interface CompletionWakeupLost {
  transactionalId: string;
  ghostTxn: string | null;
  coordinator: string;
  /** When the request for the transactional.id that held its lock reached the coordinator. */
  requestAtMs: number;
  atMs: number;
}

export interface ProducerEpochAssigned {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** The producer instance whose InitProducerId this is (null: the coordinator's own timeout fence, or a harness request). */
  requestedBy: string | null;
  coordinator: string;
  atMs: number;
}

export interface ProducerFatal {
  producer: string;
  transactionalId: string;
  /** The request whose answer was fatal (InitProducerId, AddPartitionsToTxn, EndTxn, Produce). */
  api: string;
  errorCode: number;
  reason: string;
  producerId: number;
  producerEpoch: number;
  /** The transaction attempt open at the time (null between transactions). */
  ghostTxn: string | null;
  /**
   * Set when no fatal error came, but the application's call failed with this error and the
   * producer could not end its transaction (an abortTransaction that threw in Kafka's client, after
   * which the application gave up and closed the producer at max.block.ms).
   */
  failedCall?: string;
  /** The request was the EndTxn of a transaction that added no partition (KAFKA-18401). */
  emptyTransaction?: true;
  atMs: number;
}

export interface LeaderChangeSeen {
  partition: PartitionKey;
  leader: string | null;
  previousLeader: string | null;
  leaderEpoch: number;
  isr: readonly string[];
  /** Why: controlled-shutdown, broker-fenced, broker-unfenced, preferred, reassign, or unclean (a leader outside the ISR). */
  cause: string;
  atMs: number;
}

export interface TxnDecision {
  ghostTxn: string | null;
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  coordinator: string;
  coordinatorEpoch: number;
  transactionVersion: TransactionVersion;
  initiator: "client" | "coordinator";
  /**
   * The client transaction whose EndTxn caused this decision (null when coordinator-initiated).
   * It differs from ghostTxn when a delayed EndTxn of an earlier transaction ends a newer one (KAFKA-17754).
   */
  requestedFor: string | null;
  partitions: PartitionKey[];
  atMs: number;
  /** Set when a coordinator found this decision in the log it loaded rather than wrote it (its writer may have been told the write failed). */
  loadedFrom?: string;
}

export interface MarkerSend {
  markerId: number;
  resend: number;
  ghostTxn: string | null;
  transactionalId: string;
  coordinator: string;
  coordinatorRelease: ReleaseName;
  coordinatorEpoch: number;
  broker: string;
  version: number;
  transactionVersionField: number;
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  partitions: PartitionKey[];
  correlationId: number;
  atMs: number;
}

export interface MarkerOutcome {
  markerId: number;
  resend: number;
  ghostTxn: string | null;
  transactionalId: string;
  broker: string;
  brokerRelease: ReleaseName;
  partition: PartitionKey;
  /** The leader's epoch of the partition when it judged the marker (-1: it was not the leader). */
  leaderEpoch: number;
  requestVersion: number;
  /** Network correlation id of the request copy that carried it (same for a network duplicate). */
  correlationId: number;
  /** TransactionVersion as the leader read it (0 when the request was v1). */
  transactionVersionSeen: number;
  producerId: number;
  markerEpoch: number;
  storedEpochBefore: number;
  /** Whether a transaction of this producer was open at the partition when the marker arrived. */
  openTxnBefore: boolean;
  coordinatorEpoch: number;
  storedCoordinatorEpochBefore: number;
  result: TransactionResult;
  rule: MarkerEpochRule;
  errorCode: number;
  markerOffset: number | null;
  completed: CompletedTxn | null;
  /** Data batches of the producer that this marker closed (empty when nothing was open). */
  closedBatches: LogBatch[];
  atMs: number;
}

/**
 * Ghost transaction names are `${producerInstance}.t${n}`, where n counts the transactions of one
 * transactional.id across its producer instances. Returns n (0 for a name without it).
 */
export function ghostTxnNumber(ghostTxn: string): number {
  const m = /\.t(\d+)$/.exec(ghostTxn);
  return m ? Number(m[1]) : 0;
}

export const NO_GHOST: GhostObserver = {
  txnBegun() {},
  batchAppended() {},
  txnDecided() {},
  txnCompleted() {},
  markerSent() {},
  markerApplied() {},
  markerRequestRefused() {},
  markerSendingAbandoned() {},
  markerCompletionWakeupLost() {},
  producerEpochAssigned() {},
  producerFatal() {},
  producerOutcome() {},
  sendFailed() {},
  leaderChanged() {},
  replicaTruncated() {},
};
