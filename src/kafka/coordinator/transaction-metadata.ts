import { IllegalStateException } from "../common/errors.js";
import {
  isEpochExhausted,
  MAX_PRODUCER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type PartitionKey,
  type TransactionVersion,
} from "../common/types.js";
import { ghostTxnNumber } from "../ghost.js";
import { isComplete, type TransactionStateName, VALID_PREVIOUS_STATES } from "./transaction-state.js";

/** The target of one state change: what will be written to the log and then copied in. */
export interface TxnTransitMetadata {
  readonly producerId: number;
  readonly prevProducerId: number;
  readonly nextProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly txnState: TransactionStateName;
  readonly topicPartitions: readonly PartitionKey[];
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
  readonly clientTransactionVersion: TransactionVersion;
  /** Ghost (not Kafka): the transaction attempt this state belongs to, for the oracle. */
  readonly ghostTxn: string | null;
  /**
   * Ghost (not Kafka), on PrepareCommit/PrepareAbort: who decided it, so a coordinator that loads
   * the decision (its writer may have been told the write failed) can tell the oracle.
   */
  readonly ghostDecidedBy?: { initiator: "client" | "coordinator"; requestedFor: string | null };
}

/**
 * prepareIncrementProducerEpoch at an exhausted epoch: Kafka throws IllegalStateException, which
 * leaves the request handler and reaches the client as UNKNOWN_SERVER_ERROR (KafkaApis'
 * handleError). A separate class so the coordinator answers it as Kafka does while every other
 * IllegalStateException stays a model error.
 */
export class EpochsExhaustedException extends IllegalStateException {}

/** Epoch rule failure that Kafka reports as an error code rather than an exception. */
export class ProducerFencedError extends Error {
  override readonly name = "ProducerFencedError";
}

/**
 * TransactionMetadata: the coordinator's in-memory state per transactional.id. Every change is
 * prepare (sets pendingState) -> durable log write -> completeTransitionTo.
 */
export class TransactionMetadata {
  producerId: number;
  prevProducerId = NO_PRODUCER_ID;
  nextProducerId = NO_PRODUCER_ID;
  producerEpoch: number;
  /** Not persisted: -1 after a coordinator loads the log. */
  lastProducerEpoch = NO_PRODUCER_EPOCH;
  txnTimeoutMs: number;
  state: TransactionStateName = "Empty";
  topicPartitions = new Set<PartitionKey>();
  txnStartTimestamp = -1;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: TransactionVersion = 0;
  pendingState: TransactionStateName | null = null;
  hasFailedEpochFence = false;
  /** When a client or leader request for this id was last handled (held the metadata lock; not persisted). */
  lastRequestAtMs = -1;
  ghostTxn: string | null = null;

  constructor(
    readonly transactionalId: string,
    producerId: number,
    producerEpoch: number,
    txnTimeoutMs: number,
    nowMs: number,
  ) {
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.txnTimeoutMs = txnTimeoutMs;
    this.txnLastUpdateTimestamp = nowMs;
  }

  /** Build the transit to `target`, checking the state machine; sets pendingState. */
  prepareTransitionTo(target: TransactionStateName, changes: Partial<TxnTransitMetadata>): TxnTransitMetadata {
    if (this.pendingState !== null) {
      throw new IllegalStateException(`${this.transactionalId}: ${target} while ${this.pendingState} is pending`);
    }
    if (!VALID_PREVIOUS_STATES[target].has(this.state)) {
      throw new IllegalStateException(`${this.transactionalId}: invalid transition ${this.state} -> ${target}`);
    }
    const transit: TxnTransitMetadata = {
      producerId: this.producerId,
      prevProducerId: this.producerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      txnState: target,
      topicPartitions: [...this.topicPartitions],
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
      clientTransactionVersion: this.clientTransactionVersion,
      ghostTxn: this.ghostTxn,
      ...changes,
    };
    if (target !== "Dead" && (transit.producerId < 0 || transit.producerEpoch < 0)) {
      throw new IllegalStateException(
        `${this.transactionalId}: ${target} with producerId ${transit.producerId} epoch ${transit.producerEpoch}`,
      );
    }
    this.pendingState = target;
    return transit;
  }

  /**
   * InitProducerId on Empty/CompleteX: bump (or recognise a retry) and go to Empty. Refuses any
   * exhausted epoch (32766 and up), as Kafka's does: the coordinator rotates the producer id before
   * calling this unless the request's expected epoch differs from the current one.
   */
  prepareIncrementProducerEpoch(txnTimeoutMs: number, expectedEpoch: number | null, nowMs: number): TxnTransitMetadata {
    if (isEpochExhausted(this.producerEpoch))
      throw new EpochsExhaustedException(
        `${this.transactionalId}: cannot allocate any more producer epochs for producerId ${this.producerId}`,
      );
    let epoch: number;
    let last: number;
    if (expectedEpoch === null) {
      epoch = this.producerEpoch + 1;
      last = NO_PRODUCER_EPOCH;
    } else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedEpoch === this.producerEpoch) {
      epoch = this.producerEpoch + 1;
      last = this.producerEpoch;
    } else if (expectedEpoch === this.lastProducerEpoch) {
      epoch = this.producerEpoch; // retry of a call that already bumped
      last = this.lastProducerEpoch;
    } else {
      throw new ProducerFencedError(`expected epoch ${expectedEpoch}, current ${this.producerEpoch}`);
    }
    return this.prepareTransitionTo("Empty", {
      producerEpoch: epoch,
      lastProducerEpoch: last,
      txnTimeoutMs,
      topicPartitions: [],
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: nowMs,
      ghostTxn: null,
    });
  }

  /** Epoch exhausted: a fresh producer id at epoch 0. */
  prepareProducerIdRotation(
    newProducerId: number,
    txnTimeoutMs: number,
    nowMs: number,
    recordLastEpoch: boolean,
  ): TxnTransitMetadata {
    return this.prepareTransitionTo("Empty", {
      producerId: newProducerId,
      prevProducerId: this.producerId,
      producerEpoch: 0,
      lastProducerEpoch: recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH,
      txnTimeoutMs,
      topicPartitions: [],
      txnStartTimestamp: -1,
      txnLastUpdateTimestamp: nowMs,
      ghostTxn: null,
    });
  }

  /**
   * Ghost (not Kafka): which client transaction this coordinator transaction belongs to. An Ongoing
   * one is credited to the newest client transaction that used it: a newer one joins it when a
   * delayed AddPartitionsToTxn of the previous transaction reopened it after CompleteX, or when a
   * TV0/1 client gave up on a transaction whose AddPartitionsToTxn had in fact succeeded (nothing
   * written, no EndTxn sent); Kafka merges them. An older requester (a delayed request) changes nothing.
   */
  private creditedGhost(requester: string | null, starting: boolean): string | null {
    if (starting || this.ghostTxn === null) return requester;
    if (requester !== null && ghostTxnNumber(requester) > ghostTxnNumber(this.ghostTxn)) return requester;
    return this.ghostTxn;
  }

  /** A request of `requester` used this Ongoing transaction without a state change (see creditedGhost). */
  creditGhost(requester: string | null): void {
    if (this.state === "Ongoing") this.ghostTxn = this.creditedGhost(requester, false);
  }

  /** AddPartitionsToTxn (client path or TV2 implicit add): Ongoing with the union of partitions. */
  prepareAddPartitions(
    partitions: readonly PartitionKey[],
    nowMs: number,
    clientTv: TransactionVersion,
    ghostTxn: string | null,
  ): TxnTransitMetadata {
    const starting = this.state === "Empty" || isComplete(this.state);
    const union = [...this.topicPartitions];
    for (const p of partitions) if (!this.topicPartitions.has(p)) union.push(p);
    return this.prepareTransitionTo("Ongoing", {
      topicPartitions: union,
      txnStartTimestamp: starting ? nowMs : this.txnStartTimestamp,
      txnLastUpdateTimestamp: nowMs,
      clientTransactionVersion: clientTv,
      ghostTxn: this.creditedGhost(ghostTxn, starting),
    });
  }

  /**
   * Coordinator-initiated abort (timeout, InitProducerId during Ongoing): mark PrepareEpochFence as
   * pending and compute the epoch the abort will carry. Returns that epoch.
   */
  prepareFenceProducerEpoch(bumpHere: boolean, maxEpochRecovery: boolean, ignoreFailedFence = false): number {
    if (this.producerEpoch === MAX_PRODUCER_EPOCH && !maxEpochRecovery) {
      throw new IllegalStateException(`${this.transactionalId}: cannot fence producer at epoch ${MAX_PRODUCER_EPOCH}`);
    }
    // KAFKA-9666: after a failed fence write the next fence reuses the bumped epoch (hasFailedEpochFence);
    // `ignoreFailedFence` is the bug switch that bumps again on every attempt.
    const reuse = this.hasFailedEpochFence && !ignoreFailedFence;
    const bump = bumpHere && !reuse && this.producerEpoch < MAX_PRODUCER_EPOCH;
    if (bump) this.producerEpoch += 1;
    this.pendingState = "PrepareEpochFence";
    return this.producerEpoch;
  }

  /**
   * EndTxn: PrepareCommit/PrepareAbort, at epoch+1 under TV2 (with a pre-allocated id when exhausted).
   * A TV2 empty abort (from Empty/CompleteX) belongs to the client transaction that asked for it,
   * `emptyAbortGhost`, not to the transaction that completed before.
   */
  prepareAbortOrCommit(
    target: "PrepareCommit" | "PrepareAbort",
    clientTv: TransactionVersion,
    bumpEpoch: boolean,
    nextProducerId: number,
    nowMs: number,
    emptyAbort: boolean,
    emptyAbortGhost: string | null = null,
  ): TxnTransitMetadata {
    let epoch = this.producerEpoch;
    let last = this.lastProducerEpoch;
    if (bumpEpoch && epoch < MAX_PRODUCER_EPOCH) {
      last = epoch;
      epoch += 1;
    }
    return this.prepareTransitionTo(target, {
      producerEpoch: epoch,
      lastProducerEpoch: last,
      nextProducerId,
      clientTransactionVersion: clientTv,
      txnStartTimestamp: emptyAbort ? nowMs : this.txnStartTimestamp,
      txnLastUpdateTimestamp: nowMs,
      ghostTxn: emptyAbort ? emptyAbortGhost : this.ghostTxn,
    });
  }

  /**
   * After PrepareX: CompleteX (rotating to nextProducerId when the epoch was exhausted). PrepareX is
   * durable by now, so a fence whose write failed earlier no longer holds the epoch back: the flag
   * is cleared here, as Kafka's prepareComplete does, and the next coordinator abort bumps again.
   * lastProducerEpoch is kept as PrepareX left it, also when the producer id rotates: Kafka keeps
   * 32766 there, the last epoch the client saw, not the 32767 of the markers.
   */
  prepareComplete(nowMs: number): TxnTransitMetadata {
    this.hasFailedEpochFence = false;
    const target = this.state === "PrepareCommit" ? "CompleteCommit" : "CompleteAbort";
    const rotate = this.nextProducerId !== NO_PRODUCER_ID;
    return this.prepareTransitionTo(target, {
      producerId: rotate ? this.nextProducerId : this.producerId,
      prevProducerId: this.producerId,
      nextProducerId: NO_PRODUCER_ID,
      producerEpoch: rotate ? 0 : this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      topicPartitions: [],
      txnLastUpdateTimestamp: nowMs,
    });
  }

  /**
   * prepareDead: the transactional.id expired (TransactionStateManager.removeExpiredTransactionalIds).
   * The transit is the tombstone's; the entry leaves the cache once it is written, never becoming Dead.
   */
  prepareDead(): TxnTransitMetadata {
    return this.prepareTransitionTo("Dead", { topicPartitions: [] });
  }

  /** The log write failed: forget the pending transition. */
  abortPendingTransition(): void {
    this.pendingState = null;
  }

  /** The log write succeeded: check the transit against Kafka's rules and copy it in. */
  completeTransitionTo(transit: TxnTransitMetadata): void {
    if (this.pendingState !== transit.txnState) {
      throw new IllegalStateException(
        `${this.transactionalId}: completing ${transit.txnState} but pending is ${this.pendingState}`,
      );
    }
    const problem = this.transitionProblem(transit);
    if (problem)
      throw new IllegalStateException(`${this.transactionalId}: ${this.state} -> ${transit.txnState}: ${problem}`);
    this.producerId = transit.producerId;
    this.prevProducerId = transit.prevProducerId;
    this.nextProducerId = transit.nextProducerId;
    this.producerEpoch = transit.producerEpoch;
    this.lastProducerEpoch = transit.lastProducerEpoch;
    this.txnTimeoutMs = transit.txnTimeoutMs;
    this.topicPartitions = new Set(transit.topicPartitions);
    this.txnStartTimestamp = transit.txnStartTimestamp;
    this.txnLastUpdateTimestamp = transit.txnLastUpdateTimestamp;
    this.clientTransactionVersion = transit.clientTransactionVersion;
    this.ghostTxn = transit.ghostTxn;
    this.state = transit.txnState;
    this.pendingState = null;
  }

  private transitionProblem(t: TxnTransitMetadata): string | null {
    switch (t.txnState) {
      case "Empty": {
        const ok =
          (t.producerId === this.producerId &&
            (t.producerEpoch === this.producerEpoch || t.producerEpoch === this.producerEpoch + 1)) ||
          (t.producerId !== this.producerId && t.producerEpoch === 0);
        if (!ok) return `epoch ${this.producerEpoch} -> ${t.producerEpoch}`;
        if (t.topicPartitions.length > 0 || t.txnStartTimestamp !== -1)
          return "Empty must have no partitions and no start";
        return null;
      }
      case "Ongoing": {
        if (t.producerId !== this.producerId || t.producerEpoch !== this.producerEpoch) return "pid/epoch changed";
        for (const p of this.topicPartitions) if (!t.topicPartitions.includes(p)) return `partition ${p} removed`;
        if (t.txnTimeoutMs !== this.txnTimeoutMs) return "timeout changed";
        return null;
      }
      case "PrepareCommit":
      case "PrepareAbort": {
        if (t.producerId !== this.producerId) return "pid changed";
        const bumped = t.producerEpoch === this.producerEpoch + 1 && t.lastProducerEpoch === this.producerEpoch;
        if (!bumped && t.producerEpoch !== this.producerEpoch)
          return `epoch ${this.producerEpoch} -> ${t.producerEpoch}`;
        if (t.topicPartitions.length !== this.topicPartitions.size) return "partition set changed";
        return null;
      }
      case "CompleteCommit":
      case "CompleteAbort": {
        const rotated = t.producerId !== this.producerId;
        if (rotated) {
          if (t.prevProducerId !== this.producerId || t.producerEpoch !== 0)
            return "rotation must start at epoch 0 from the current pid";
          if (t.lastProducerEpoch !== this.lastProducerEpoch) return "rotation must keep lastProducerEpoch";
        } else if (t.producerEpoch !== this.producerEpoch) {
          return `epoch ${this.producerEpoch} -> ${t.producerEpoch}`;
        }
        if (t.txnStartTimestamp === -1) return "complete without start timestamp";
        return null;
      }
      default:
        return `${t.txnState} is never completed`;
    }
  }

  /** Snapshot for the log (the durable record) */
  toRecord(): TxnTransitMetadata {
    return {
      producerId: this.producerId,
      prevProducerId: this.prevProducerId,
      nextProducerId: this.nextProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      txnState: this.state,
      topicPartitions: [...this.topicPartitions],
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
      clientTransactionVersion: this.clientTransactionVersion,
      ghostTxn: this.ghostTxn,
    };
  }

  /**
   * Rebuild from a loaded log record: lastProducerEpoch is not persisted. `dropPidLinkFields`:
   * KAFKA-20310's bug, the record's PreviousProducerId / NextProducerId tagged fields were never
   * written, so they load as -1.
   */
  static fromRecord(transactionalId: string, r: TxnTransitMetadata, dropPidLinkFields = false): TransactionMetadata {
    const m = new TransactionMetadata(
      transactionalId,
      r.producerId,
      r.producerEpoch,
      r.txnTimeoutMs,
      r.txnLastUpdateTimestamp,
    );
    m.prevProducerId = dropPidLinkFields ? NO_PRODUCER_ID : r.prevProducerId;
    m.nextProducerId = dropPidLinkFields ? NO_PRODUCER_ID : r.nextProducerId;
    m.state = r.txnState;
    m.topicPartitions = new Set(r.txnState === "Empty" ? [] : r.topicPartitions);
    m.txnStartTimestamp = r.txnStartTimestamp;
    m.clientTransactionVersion = r.clientTransactionVersion;
    m.ghostTxn = r.ghostTxn;
    return m;
  }
}
