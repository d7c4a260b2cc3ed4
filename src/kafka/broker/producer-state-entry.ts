import { NO_PRODUCER_EPOCH } from "../common/types.js";

/** Kafka retains the metadata of the last 5 batches per producer for duplicate detection. */
export const NUM_BATCHES_TO_RETAIN = 5;

export interface BatchMetadata {
  firstSeq: number;
  lastSeq: number;
  firstOffset: number;
  lastOffset: number;
}

/** ProducerStateEntry: what a partition leader knows about one producer id. */
export class ProducerStateEntry {
  producerEpoch = NO_PRODUCER_EPOCH;
  coordinatorEpoch = -1;
  /** Present iff a transaction of this producer is open at this partition. */
  currentTxnFirstOffset: number | null = null;
  readonly batchMetadata: BatchMetadata[] = [];
  /** The timestamp of the producer's last batch (and, since KAFKA-9144, marker): its idle time starts there. */
  lastTimestamp = -1;

  constructor(readonly producerId: number) {}

  lastSeq(): number {
    const last = this.batchMetadata[this.batchMetadata.length - 1];
    return last ? last.lastSeq : -1;
  }

  findDuplicate(epoch: number, firstSeq: number, lastSeq: number): BatchMetadata | null {
    if (epoch !== this.producerEpoch) return null;
    for (const b of this.batchMetadata) if (b.firstSeq === firstSeq && b.lastSeq === lastSeq) return b;
    return null;
  }

  /** Any epoch change clears the retained batches (so the next sequence must start at 0). */
  setEpoch(epoch: number): void {
    if (epoch !== this.producerEpoch) {
      this.batchMetadata.length = 0;
      this.producerEpoch = epoch;
    }
  }

  addBatch(meta: BatchMetadata): void {
    this.batchMetadata.push(meta);
    if (this.batchMetadata.length > NUM_BATCHES_TO_RETAIN) this.batchMetadata.shift();
  }
}

/** VerificationStateEntry (KIP-890 part 1): a transactional produce awaiting the coordinator's say-so. */
export interface VerificationStateEntry {
  /** The VerificationGuard: a unique object identity in Kafka, a unique number here (never SENTINEL_GUARD). */
  guard: number;
  /** When the entry was made (the broker's clock): removeExpiredProducers forgets it after the producer-id expiration. */
  readonly timestamp: number;
  lowestSequence: number;
  epoch: number;
  /** Whether the produce that made the entry was TV2's (set once: later verifications do not change it). */
  readonly supportsEpochBump: boolean;
}

/** VerificationGuard.SENTINEL: no verification asked, or a transaction at the epoch is already open. */
export const SENTINEL_GUARD = 0;
