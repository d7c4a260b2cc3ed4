import { Errors, errorName, IllegalStateException } from "../common/errors.js";
import { NO_PRODUCER_ID, type PartitionKey } from "../common/types.js";
import type { ProducerBehaviour } from "./producer-behaviour.js";
import type { ProducerBatch } from "./record-accumulator.js";
import { TransactionManager } from "./transaction-manager.js";
import { FATAL_SEND_ERRORS, RETRIABLE, UNKNOWN_PRODUCER_ID } from "./txn-response-errors.js";
import { PRIORITY } from "./txn-request.js";

/** Why a partition asked for an epoch bump: the Produce error (or expiry) of one of its batches. */
export interface BumpCause {
  partition: PartitionKey;
  error: string;
  baseSequence: number;
  batchEpoch: number;
}

/** What the idempotent producer hears from its manager. */
export interface IdempotentListener {
  /** A fatal error (an authorization failure, an unsupported version): the producer can only be closed. */
  fatal(api: string, errorCode: number, reason: string): void;
  /** bumpIdempotentProducerEpoch: the epoch went up on the client alone, asked by `causes`. */
  epochBumped(producerId: number, producerEpoch: number, causes: readonly BumpCause[]): void;
}

/** Short.MAX_VALUE: at this epoch the idempotent producer asks for a new producer id instead of bumping. */
const MAX_EPOCH = 32_767;

/**
 * Kafka's TransactionManager without a transactional.id (isTransactional() false): the idempotent
 * producer's paths. InitProducerId with a null transactional.id gets a producer id at epoch 0; after
 * that the client bumps its epoch itself (bumpIdempotentProducerEpoch), with no request, whenever a
 * partition finds a gap in its sequences: a batch refused OUT_OF_ORDER_SEQUENCE_NUMBER that was the
 * next one, a batch that expired after being retried (its fate at the leader unknown), a batch
 * failed for good. Every error but the fatal ones is retried or absorbed this way: nothing reaches
 * an application except a batch's own failure. Kafka 3.2+'s behaviour, with the bug switches of
 * KAFKA-12152 (2.7) and KAFKA-13794 (3.1).
 */
export class IdempotentTransactionManager extends TransactionManager {
  /** partitionsToRewriteSequences, in the order they asked, with why. */
  private readonly partitionsToRewrite = new Map<PartitionKey, BumpCause>();
  /** partitionsWithUnresolvedSequences: the sequence that follows a batch whose fate is unknown. */
  private readonly unresolved = new Map<PartitionKey, number>();
  private readonly idempotentListener: IdempotentListener;

  constructor(name: string, behaviour: ProducerBehaviour, listener: IdempotentListener) {
    super(name, 0, behaviour, {
      fatal: (api, errorCode, reason) => listener.fatal(api, errorCode, reason),
      // An idempotent producer has no transaction to abort: nothing moves it to ABORTABLE_ERROR.
      abortable: () => {},
    });
    this.idempotentListener = listener;
  }

  override get isTransactional(): boolean {
    return false;
  }

  private get keepsIdlePartitionSequences(): boolean {
    return this.behaviour.epochBumpKeepsIdlePartitionSequences === true;
  }

  private get bySequenceOnly(): boolean {
    return this.behaviour.inflightSetKeyedBySequenceOnly === true;
  }

  // ------------------------------------------------------------------ the Sender's run

  /**
   * bumpIdempotentEpochAndResetIdIfNeeded, at the start of every Sender run: a requested bump
   * first; then, without a producer id, InitProducerId (transactional.id null).
   */
  bumpIdempotentEpochAndResetIdIfNeeded(): void {
    if (this.epochBumpRequired) this.bumpIdempotentProducerEpoch();
    if (this.state !== "INITIALIZING" && this.producerId === NO_PRODUCER_ID) {
      this.transitionTo("INITIALIZING");
      this.enqueue({ api: "InitProducerId", bump: false }, PRIORITY.InitProducerId);
    }
  }

  /**
   * bumpIdempotentProducerEpoch: epoch + 1 on the client (a new producer id at Short.MAX_VALUE),
   * and the partitions that asked start their in-flight batches again from sequence 0 under it.
   * Every other partition keeps its sequences and the id and epoch they belong to, and starts again
   * at 0 once its in-flight batches are resolved (maybeUpdateProducerIdAndEpoch, at its next drain);
   * under KAFKA-12152's bug switch it never does.
   */
  private bumpIdempotentProducerEpoch(): void {
    const causes = [...this.partitionsToRewrite.values()];
    if (this.producerEpoch === MAX_EPOCH) {
      this.producerId = NO_PRODUCER_ID;
      this.producerEpoch = -1;
      this.transitionTo("UNINITIALIZED");
    } else {
      this.producerEpoch += 1;
    }
    for (const partition of this.partitionsToRewrite.keys()) {
      this.partitions.startSequencesAtBeginning(partition, this.producerId, this.producerEpoch);
      this.unresolved.delete(partition);
    }
    this.partitionsToRewrite.clear();
    this.epochBumpRequired = false;
    if (this.producerId !== NO_PRODUCER_ID)
      this.idempotentListener.epochBumped(this.producerId, this.producerEpoch, causes);
  }

  /** requestEpochBumpForPartition: the next Sender run bumps the epoch and rewrites this partition's sequences. */
  private requestEpochBumpForPartition(batch: ProducerBatch, error: string): void {
    this.epochBumpRequired = true;
    if (!this.partitionsToRewrite.has(batch.partition))
      this.partitionsToRewrite.set(batch.partition, {
        partition: batch.partition,
        error,
        baseSequence: batch.baseSequence,
        batchEpoch: batch.producerEpoch,
      });
  }

  /**
   * maybeResolveSequences, at the start of every Sender run: a partition whose batch expired after a
   * retry is resolved once nothing of it is in flight: by a later batch's acknowledgement (its last
   * acknowledged sequence is just below the next), or else by an epoch bump.
   */
  maybeResolveSequences(): void {
    for (const [partition, next] of [...this.unresolved]) {
      if (this.hasInflightBatches(partition)) continue;
      const e = this.partitions.getOrCreate(partition);
      if (e.nextSequence - e.lastAckedSequence !== 1) {
        this.epochBumpRequired = true;
        if (!this.partitionsToRewrite.has(partition))
          this.partitionsToRewrite.set(partition, {
            partition,
            error: "expired (delivery.timeout.ms) after a retry",
            baseSequence: next,
            batchEpoch: e.producerEpoch,
          });
      }
      this.unresolved.delete(partition);
    }
  }

  /** markSequenceUnresolved: a batch expired after a retry; the leader may or may not have it. */
  markSequenceUnresolved(batch: ProducerBatch): void {
    const next = batch.lastSequence + 1;
    this.unresolved.set(batch.partition, Math.max(this.unresolved.get(batch.partition) ?? next, next));
  }

  hasInflightBatches(partition: PartitionKey): boolean {
    return this.partitions.has(partition) && this.partitions.getOrCreate(partition).inflight.length > 0;
  }

  /**
   * RecordAccumulator.insertInSequenceOrder's check, as the Sender re-enqueues a batch: the
   * partition must still track a batch in flight (nextBatchBySequence), or the batch is lost to the
   * manager's bookkeeping.
   */
  checkReenqueue(batch: ProducerBatch): void {
    if (!this.hasInflightBatches(batch.partition))
      throw new IllegalStateException(
        `${this.transactionalId}: we are re-enqueueing a batch which is not tracked as part of the in flight requests. batch.topicPartition: ${batch.partition}; batch.baseSequence: ${batch.baseSequence} (KAFKA-13794: the in-flight set, keyed by sequence only, dropped it for another batch with the same sequence)`,
      );
  }

  // ------------------------------------------------------------------ drain

  /** isSendToPartitionAllowed: any partition, until a fatal error. */
  override isSendToPartitionAllowed(_partition: PartitionKey): boolean {
    return !this.hasFatalError;
  }

  /**
   * RecordAccumulator.shouldStopDrainBatchesForPartition: no producer id yet; a new batch while the
   * partition has batches of another id or epoch in flight, or an unresolved sequence; a retry that
   * is not the first in flight.
   */
  override shouldStopDrain(batch: ProducerBatch): boolean {
    if (this.producerId === NO_PRODUCER_ID) return true;
    if (!batch.hasSequence) {
      if (this.hasInflightBatches(batch.partition) && this.inFlightOfAnotherEpoch(batch.partition)) return true;
      if (this.unresolved.has(batch.partition)) return true;
    }
    const first = this.firstInFlightSequence(batch.partition);
    return first !== null && batch.hasSequence && batch.baseSequence !== first;
  }

  /**
   * A new batch waits while the partition's in-flight batches belong to another id or epoch: its
   * sequences' (hasStaleProducerIdAndEpoch, 2.8+), or before them (2.7, KAFKA-12152's bug switch)
   * the first in-flight batch's own (producerIdOrEpochNotMatch of nextBatchBySequence).
   */
  private inFlightOfAnotherEpoch(partition: PartitionKey): boolean {
    if (!this.keepsIdlePartitionSequences) return this.hasStaleProducerIdAndEpoch(partition);
    const inflight = this.partitions.getOrCreate(partition).inflight;
    const first = inflight.reduce((a, b) => (b.baseSequence < a.baseSequence ? b : a));
    return first.producerId !== this.producerId || first.producerEpoch !== this.producerEpoch;
  }

  private hasStaleProducerIdAndEpoch(partition: PartitionKey): boolean {
    const e = this.partitions.getOrCreate(partition);
    return e.producerId !== this.producerId || e.producerEpoch !== this.producerEpoch;
  }

  private firstInFlightSequence(partition: PartitionKey): number | null {
    if (!this.hasInflightBatches(partition)) return null;
    return Math.min(...this.partitions.getOrCreate(partition).inflight.map((b) => b.baseSequence));
  }

  /**
   * Drain: maybeUpdateProducerIdAndEpoch (a partition of an older id or epoch with nothing in
   * flight starts again at 0 under the current one; not under KAFKA-12152's bug switch), then the
   * batch takes the current id and epoch and the partition's next sequence.
   */
  override assignSequence(batch: ProducerBatch): void {
    if (batch.hasSequence) return;
    batch.isTransactional = false;
    if (!this.keepsIdlePartitionSequences) this.maybeUpdateProducerIdAndEpoch(batch.partition);
    const e = this.partitions.getOrCreate(batch.partition);
    if (e.producerId === -1) {
      e.producerId = this.producerId;
      e.producerEpoch = this.producerEpoch;
    }
    batch.producerId = this.producerId;
    batch.producerEpoch = this.producerEpoch;
    batch.baseSequence = e.nextSequence;
    e.nextSequence += batch.recordCount;
    this.partitions.addInFlightBatch(batch, this.bySequenceOnly);
  }

  private maybeUpdateProducerIdAndEpoch(partition: PartitionKey): void {
    if (this.hasStaleProducerIdAndEpoch(partition) && !this.hasInflightBatches(partition))
      this.partitions.startSequencesAtBeginning(partition, this.producerId, this.producerEpoch);
  }

  // ------------------------------------------------------------------ answers

  /**
   * canRetry for the idempotent producer: UNKNOWN_PRODUCER_ID is retried after an epoch bump;
   * OUT_OF_ORDER_SEQUENCE_NUMBER always, with a bump when the batch is the next one the leader
   * should take (a real gap) or the one after an unresolved sequence; other errors when retriable.
   */
  override canRetry(errorCode: number, batch: ProducerBatch): boolean {
    if (errorCode === UNKNOWN_PRODUCER_ID) {
      if (!batch.sequenceHasBeenReset) this.requestEpochBumpForPartition(batch, errorName(errorCode));
      return true;
    }
    if (errorCode === Errors.OUT_OF_ORDER_SEQUENCE_NUMBER) {
      const unresolved = this.unresolved.get(batch.partition);
      if (unresolved === undefined && (batch.sequenceHasBeenReset || !this.isNextSequence(batch))) return true;
      if (unresolved === undefined || unresolved === batch.baseSequence)
        this.requestEpochBumpForPartition(batch, errorName(errorCode));
      return true;
    }
    return RETRIABLE.has(errorCode);
  }

  private isNextSequence(batch: ProducerBatch): boolean {
    return batch.baseSequence - this.partitions.getOrCreate(batch.partition).lastAckedSequence === 1;
  }

  /**
   * handleCompletedBatch: the last acknowledged sequence moves up and the batch leaves the in-flight
   * set. Under KAFKA-12152's bug switch (2.7), a batch of an older id or epoch that was the last in
   * flight starts its partition again at 0: the only reset a partition not asking for the bump got.
   */
  override handleCompletedBatch(batch: ProducerBatch): void {
    const e = this.partitions.getOrCreate(batch.partition);
    e.lastAckedSequence = Math.max(e.lastAckedSequence, batch.lastSequence);
    this.removeInFlightBatch(batch);
    const stale = batch.producerId !== this.producerId || batch.producerEpoch !== this.producerEpoch;
    if (this.keepsIdlePartitionSequences && stale && !this.hasInflightBatches(batch.partition))
      this.partitions.startSequencesAtBeginning(batch.partition, this.producerId, this.producerEpoch);
  }

  /**
   * handleFailedBatch (Sender.failBatch): only authorization, fencing and an unsupported version are
   * fatal. A refused OUT_OF_ORDER_SEQUENCE_NUMBER asks for an epoch bump; UNKNOWN_PRODUCER_ID starts
   * the partition again; any other failure asks for a bump when the Sender says the sequences must
   * be adjusted (a batch failed on an answer, not one that expired). `unknownFate` here: the batch
   * expired (adjustSequenceNumbers false). 2.7 (KAFKA-12152's bug switch) also ignored a batch of an
   * older id or epoch.
   */
  override handleFailedBatch(batch: ProducerBatch, errorCode: number, reason: string, unknownFate: boolean): void {
    if (FATAL_SEND_ERRORS.has(errorCode)) this.transitionToFatalError("Produce", errorCode, reason);
    this.removeInFlightBatch(batch);
    if (this.hasFatalError) return;
    const stale = batch.producerId !== this.producerId || batch.producerEpoch !== this.producerEpoch;
    if (this.keepsIdlePartitionSequences && stale) return;
    if (errorCode === Errors.OUT_OF_ORDER_SEQUENCE_NUMBER)
      this.requestEpochBumpForPartition(batch, errorName(errorCode));
    else if (errorCode === UNKNOWN_PRODUCER_ID) {
      this.partitions.remove(batch.partition);
      this.unresolved.delete(batch.partition);
    } else if (!unknownFate) this.requestEpochBumpForPartition(batch, errorName(errorCode));
  }
}
