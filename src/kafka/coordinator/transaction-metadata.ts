import { assert, isInt16, isInt32, isInt64 } from "../common/assert.js";
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
import type { ReleaseFlags } from "../release.js";
import {
  isComplete,
  isPrepare,
  PREPARE_ABORT_BEFORE_KIP_890,
  type TransactionStateName,
  VALID_PREVIOUS_STATES,
} from "./transaction-state.js";

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

/** How an EndTxn ends its transaction: prepareAbortOrCommit's arguments besides the target state. */
export interface AbortOrCommitOptions {
  readonly clientTransactionVersion: TransactionVersion;
  /** The end bumps the epoch (TV2: TransactionVersion.supportsEpochBump, unless a mutant turns it off). */
  readonly bumpEpoch: boolean;
  /** The producer id pre-allocated for an exhausted epoch (NO_PRODUCER_ID otherwise). */
  readonly nextProducerId: number;
  readonly updateTimestamp: number;
  /** A TV2 abort from Empty or CompleteX, with no partition added: it starts its transaction now. */
  readonly noPartitionAdded: boolean;
  /** Ghost (not Kafka): the client transaction that asked for the empty abort. */
  readonly emptyAbortGhost?: string | null;
}

/**
 * prepareIncrementProducerEpoch at an exhausted epoch: Kafka throws IllegalStateException, which
 * leaves the request handler and reaches the client as UNKNOWN_SERVER_ERROR (KafkaApis'
 * handleError). A separate class so the coordinator answers it as Kafka does while every other
 * IllegalStateException stays a model error.
 */
export class EpochsExhaustedException extends IllegalStateException {}

/**
 * An exception Kafka's coordinator lets out of its request handler (or its timeout task), which
 * KafkaApis answers UNKNOWN_SERVER_ERROR: the int16 epoch overflow of a TV2 end at Short.MAX_VALUE
 * (IllegalArgumentException, "Illegal new producer epoch"), a fence at Short.MAX_VALUE before
 * KAFKA-20090 (IllegalStateException). `kafkaClass` is the class Kafka throws. Unlike a plain
 * IllegalStateException of the model (a broken invariant), the model answers it as Kafka does.
 */
export class KafkaThrownException extends Error {
  override readonly name = "KafkaThrownException";
  constructor(
    readonly kafkaClass: "IllegalArgumentException" | "IllegalStateException",
    message: string,
  ) {
    super(message);
  }
}

/**
 * What TransactionMetadata does differently from one release to the next (TransactionMetadata.scala
 * of 3.9 and 4.0, the Scala class over Java transits of 4.1, the Java class of 4.2 on). Defaults: 4.2's.
 */
export interface TxnMetadataRules {
  /** KIP-890 part 2 (4.0 on): PrepareAbort may follow Empty and CompleteX (a TV2 abort of nothing). */
  emptyAbortTransitions: boolean;
  /**
   * completeTransitionTo copies the whole transit (4.1 on). 3.9 and 4.0's Scala class copies per
   * target state only what that transition may change: Empty takes the ids, epochs and timeout (the
   * start timestamp stays), Ongoing the start and the partitions, PrepareX nothing but (4.0, TV2) the
   * epochs, nextProducerId and start, CompleteX the start and empty partitions (4.0, TV2: the ids too).
   */
  completeCopiesWholeTransit: boolean;
  /** A transit that sets no nextProducerId keeps the metadata's (4.1 on); 4.0's Scala transits carry -1. */
  transitKeepsNextProducerId: boolean;
  /** The fence's transit keeps lastProducerEpoch (4.2's Java class); the Scala class (3.9-4.1) writes -1. */
  fenceKeepsLastProducerEpoch: boolean;
  /**
   * KAFKA-20090 (4.3.0): a fence at Short.MAX_VALUE keeps the epoch (before: IllegalStateException), and
   * a TV2 PrepareAbort at it keeps the epoch (lastProducerEpoch then is that epoch) instead of overflowing.
   */
  maxEpochRecovery: boolean;
  /** Model variant (epochOverflowThrows off): a TV2 bump of Short.MAX_VALUE stays there instead of overflowing. */
  capEpochAtMax: boolean;
}

export const DEFAULT_TXN_METADATA_RULES: Readonly<TxnMetadataRules> = Object.freeze({
  emptyAbortTransitions: true,
  completeCopiesWholeTransit: true,
  transitKeepsNextProducerId: true,
  fenceKeepsLastProducerEpoch: true,
  maxEpochRecovery: false,
  capEpochAtMax: false,
});

/** The TransactionMetadata rules of a release's flags. */
export function txnMetadataRules(flags: Readonly<ReleaseFlags>): Readonly<TxnMetadataRules> {
  return {
    emptyAbortTransitions: flags.supportsTransactionVersion2,
    completeCopiesWholeTransit: !flags.tcCompleteCopiesPerState,
    transitKeepsNextProducerId: !flags.tcTransitDropsNextProducerId,
    fenceKeepsLastProducerEpoch: flags.tcFenceKeepsLastProducerEpoch,
    maxEpochRecovery: flags.maxEpochRecovery,
    capEpochAtMax: !flags.epochOverflowThrows,
  };
}

/** Java's (short) cast: an int16 epoch + 1 wraps from 32767 to -32768. */
function toShort(n: number): number {
  return ((n + 0x8000) & 0xffff) - 0x8000;
}

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
  /** The release's rules (set by whoever builds the metadata for a release; 4.2's by default). */
  rules: Readonly<TxnMetadataRules> = DEFAULT_TXN_METADATA_RULES;

  constructor(
    readonly transactionalId: string,
    producerId: number,
    producerEpoch: number,
    txnTimeoutMs: number,
    nowMs: number,
  ) {
    // Kafka's field types (String, long, short, int): a value outside them is a bug of the caller.
    assert(transactionalId.length > 0, "TransactionMetadata: empty transactional.id");
    assert(isInt64(producerId) && producerId >= NO_PRODUCER_ID, () => `${transactionalId}: producer id ${producerId}`);
    assert(isInt16(producerEpoch), () => `${transactionalId}: producer epoch ${producerEpoch} is not a short`);
    assert(isInt32(txnTimeoutMs), () => `${transactionalId}: transaction timeout ${txnTimeoutMs} is not an int`);
    this.producerId = producerId;
    this.producerEpoch = producerEpoch;
    this.txnTimeoutMs = txnTimeoutMs;
    this.txnLastUpdateTimestamp = nowMs;
  }

  /**
   * Build the transit to `target`, checking as Kafka's prepareTransitionTo does, in its order: a
   * pending state (IllegalStateException), a negative producer id or (but for Dead) epoch
   * (IllegalArgumentException, which Kafka lets out to KafkaApis: UNKNOWN_SERVER_ERROR), then the
   * state machine (IllegalStateException); sets pendingState.
   */
  prepareTransitionTo(target: TransactionStateName, changes: Partial<TxnTransitMetadata>): TxnTransitMetadata {
    if (this.pendingState !== null) {
      throw new IllegalStateException(`${this.transactionalId}: ${target} while ${this.pendingState} is pending`);
    }
    const transit: TxnTransitMetadata = {
      producerId: this.producerId,
      prevProducerId: this.producerId,
      nextProducerId: this.rules.transitKeepsNextProducerId ? this.nextProducerId : NO_PRODUCER_ID,
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
    if (transit.producerId < 0)
      throw new KafkaThrownException("IllegalArgumentException", `Illegal new producer id ${transit.producerId}`);
    if (target !== "Dead" && transit.producerEpoch < 0)
      throw new KafkaThrownException("IllegalArgumentException", `Illegal new producer epoch ${transit.producerEpoch}`);
    if (!this.validPreviousStates(target).has(this.state)) {
      throw new IllegalStateException(`${this.transactionalId}: invalid transition ${this.state} -> ${target}`);
    }
    this.pendingState = target;
    return transit;
  }

  private validPreviousStates(target: TransactionStateName): ReadonlySet<TransactionStateName> {
    if (target === "PrepareAbort" && !this.rules.emptyAbortTransitions) return PREPARE_ABORT_BEFORE_KIP_890;
    return VALID_PREVIOUS_STATES[target];
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
  private creditedGhost(requester: string | null, transaction: { starting: boolean }): string | null {
    if (transaction.starting || this.ghostTxn === null) return requester;
    if (requester !== null && ghostTxnNumber(requester) > ghostTxnNumber(this.ghostTxn)) return requester;
    return this.ghostTxn;
  }

  /** A request of `requester` used this Ongoing transaction without a state change (see creditedGhost). */
  creditGhost(requester: string | null): void {
    if (this.state === "Ongoing") this.ghostTxn = this.creditedGhost(requester, { starting: false });
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
      ghostTxn: this.creditedGhost(ghostTxn, { starting }),
    });
  }

  /**
   * Coordinator-initiated abort (timeout, InitProducerId during Ongoing): the PrepareEpochFence transit,
   * at the epoch the abort will carry; the metadata's epoch is not moved here (the coordinator's TV0/1
   * end does that when it clears the fence). Only from Ongoing with nothing pending. At Short.MAX_VALUE
   * Kafka throws before KAFKA-20090 and keeps the epoch after it. KAFKA-9666: after a failed fence
   * write the next fence reuses the bumped epoch (hasFailedEpochFence); `ignoreFailedFence` is the
   * bug switch that bumps again on every attempt.
   */
  prepareFenceProducerEpoch(options: { ignoreFailedFence?: boolean } = {}): TxnTransitMetadata {
    const atMax = this.producerEpoch === MAX_PRODUCER_EPOCH;
    if (atMax && !this.rules.maxEpochRecovery) {
      throw new KafkaThrownException(
        "IllegalStateException",
        `${this.transactionalId}: cannot fence producer with epoch equal to Short.MaxValue since this would overflow`,
      );
    }
    const reuse = this.hasFailedEpochFence && !options.ignoreFailedFence;
    const epoch = reuse || atMax ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepareTransitionTo("PrepareEpochFence", {
      producerEpoch: epoch,
      lastProducerEpoch: this.rules.fenceKeepsLastProducerEpoch ? this.lastProducerEpoch : NO_PRODUCER_EPOCH,
    });
  }

  /**
   * EndTxn: PrepareCommit/PrepareAbort, at epoch+1 under TV2 (with a pre-allocated id when exhausted).
   * A TV2 empty abort (from Empty/CompleteX) belongs to the client transaction that asked for it,
   * `emptyAbortGhost`, not to the transaction that completed before.
   */
  prepareAbortOrCommit(target: "PrepareCommit" | "PrepareAbort", options: AbortOrCommitOptions): TxnTransitMetadata {
    const { clientTransactionVersion: clientTv, bumpEpoch, nextProducerId, updateTimestamp: nowMs } = options;
    const emptyAbort = options.noPartitionAdded;
    let epoch = this.producerEpoch;
    let last = this.lastProducerEpoch;
    if (bumpEpoch) {
      const atMax = this.producerEpoch === MAX_PRODUCER_EPOCH;
      if (atMax && this.rules.maxEpochRecovery && target === "PrepareAbort") {
        // KAFKA-20090: an abort at Short.MAX_VALUE keeps the epoch (and records it as the last one).
        last = this.producerEpoch;
      } else if (atMax && this.rules.capEpochAtMax) {
        // Model variant (epochOverflowThrows off): the epoch stays at the maximum.
      } else {
        // Kafka's int16 bump: at Short.MAX_VALUE it overflows and prepareTransitionTo refuses it.
        last = this.producerEpoch;
        epoch = toShort(this.producerEpoch + 1);
      }
    } else if (clientTv >= 2) {
      // The mutant no-epoch-bump-at-endtxn (a TV2 end that does not bump): the transit still records the
      // epoch as the last one, so it completes as Kafka's TV2 check (lastProducerEpoch == epoch) wants.
      last = this.producerEpoch;
    }
    return this.prepareTransitionTo(target, {
      producerEpoch: epoch,
      lastProducerEpoch: last,
      nextProducerId,
      clientTransactionVersion: clientTv,
      txnStartTimestamp: emptyAbort ? nowMs : this.txnStartTimestamp,
      txnLastUpdateTimestamp: nowMs,
      ghostTxn: emptyAbort ? (options.emptyAbortGhost ?? null) : this.ghostTxn,
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
    // Only a TV2 transaction rotates to its pre-allocated id (TV0/1 never bump, so never overflow).
    const rotate = this.clientTransactionVersion >= 2 && this.nextProducerId !== NO_PRODUCER_ID;
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
    if (this.rules.completeCopiesWholeTransit) this.copyWholeTransit(transit);
    else this.copyAsScalaClass(transit);
    this.ghostTxn = transit.ghostTxn;
    this.state = transit.txnState;
    this.pendingState = null;
  }

  private copyWholeTransit(transit: TxnTransitMetadata): void {
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
  }

  /** 3.9 and 4.0's completeTransitionTo: each target state takes only its own fields (TxnMetadataRules). */
  private copyAsScalaClass(t: TxnTransitMetadata): void {
    const tv2 = t.clientTransactionVersion >= 2;
    switch (t.txnState) {
      case "Empty":
        this.txnTimeoutMs = t.txnTimeoutMs;
        this.producerEpoch = t.producerEpoch;
        this.lastProducerEpoch = t.lastProducerEpoch;
        this.producerId = t.producerId;
        this.prevProducerId = t.prevProducerId;
        break;
      case "Ongoing":
        this.txnStartTimestamp = t.txnStartTimestamp;
        for (const p of t.topicPartitions) this.topicPartitions.add(p);
        break;
      case "PrepareCommit":
      case "PrepareAbort":
        if (tv2) {
          this.producerEpoch = t.producerEpoch;
          this.lastProducerEpoch = t.lastProducerEpoch;
          this.nextProducerId = t.nextProducerId;
          this.txnStartTimestamp = t.txnStartTimestamp;
        }
        break;
      case "CompleteCommit":
      case "CompleteAbort":
        this.txnStartTimestamp = t.txnStartTimestamp;
        this.topicPartitions = new Set();
        if (tv2) {
          this.producerEpoch = t.producerEpoch;
          this.lastProducerEpoch = t.lastProducerEpoch;
          this.prevProducerId = t.prevProducerId;
          this.producerId = t.producerId;
          this.nextProducerId = t.nextProducerId;
        }
        break;
      default:
        break;
    }
    this.clientTransactionVersion = t.clientTransactionVersion;
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp;
  }

  /** Kafka's validProducerEpoch: a TV2 rotation keeps lastProducerEpoch, a TV2 PrepareX bumped from the current epoch. */
  private validProducerEpoch(t: TxnTransitMetadata): boolean {
    const tv2 = t.clientTransactionVersion >= 2;
    if (tv2 && isComplete(t.txnState) && t.producerEpoch === 0)
      return t.lastProducerEpoch === this.lastProducerEpoch && t.prevProducerId === this.producerId;
    if (tv2 && isPrepare(t.txnState))
      return t.lastProducerEpoch === this.producerEpoch && t.producerId === this.producerId;
    return t.producerEpoch === this.producerEpoch && t.producerId === this.producerId;
  }

  /** Kafka's completeTransitionTo checks, per target state. */
  private transitionProblem(t: TxnTransitMetadata): string | null {
    switch (t.txnState) {
      case "Empty": {
        const bump =
          t.producerEpoch === toShort(this.producerEpoch + 1) ||
          (t.producerEpoch === 0 && t.producerId !== this.producerId);
        if (t.producerEpoch !== this.producerEpoch && !bump) return `epoch ${this.producerEpoch} -> ${t.producerEpoch}`;
        if (t.topicPartitions.length > 0 || t.txnStartTimestamp !== -1)
          return "Empty must have no partitions and no start";
        return null;
      }
      case "Ongoing": {
        if (!this.validProducerEpoch(t)) return "pid/epoch changed";
        for (const p of this.topicPartitions) if (!t.topicPartitions.includes(p)) return `partition ${p} removed`;
        if (t.txnTimeoutMs !== this.txnTimeoutMs) return "timeout changed";
        return null;
      }
      case "PrepareCommit":
      case "PrepareAbort": {
        if (!this.validProducerEpoch(t)) return `pid/epoch ${this.producerEpoch} -> ${t.producerEpoch}`;
        const same =
          t.topicPartitions.length === this.topicPartitions.size &&
          t.topicPartitions.every((p) => this.topicPartitions.has(p));
        if (!same) return "partition set changed";
        if (t.txnTimeoutMs !== this.txnTimeoutMs) return "timeout changed";
        // KIP-890: a TV2 abort of nothing starts when it is asked for; any other end keeps the start.
        const emptyAbort =
          this.rules.emptyAbortTransitions &&
          t.txnState === "PrepareAbort" &&
          t.clientTransactionVersion >= 2 &&
          (this.state === "Empty" || isComplete(this.state));
        if (t.txnStartTimestamp !== this.txnStartTimestamp && !emptyAbort) return "start timestamp changed";
        return null;
      }
      case "CompleteCommit":
      case "CompleteAbort": {
        if (!this.validProducerEpoch(t))
          return `pid/epoch ${this.producerId}/${this.producerEpoch} -> ${t.producerId}/${t.producerEpoch}`;
        if (t.txnTimeoutMs !== this.txnTimeoutMs) return "timeout changed";
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
