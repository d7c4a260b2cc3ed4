import type { PartitionKey } from "../common/types.js";
import type { ProducerBatch } from "./record-accumulator.js";

/** TxnPartitionEntry: the sequence state of one partition, valid for one producer id and epoch. */
export interface TxnPartitionEntry {
  nextSequence: number;
  lastAckedSequence: number;
  /** Batches in flight or waiting for a retry, by base sequence (inflightBatchesBySequence). */
  inflight: ProducerBatch[];
}

/**
 * TxnPartitionMap: the TransactionManager's sequence state per partition, for the current producer
 * id and epoch. Apart from the manager as in Kafka's client, so the manager holds the state machine
 * and the request queue, and this the sequences.
 */
export class TxnPartitionMap {
  private readonly partitions = new Map<PartitionKey, TxnPartitionEntry>();

  /** getOrCreate: a partition not seen under this id and epoch starts at sequence 0. */
  getOrCreate(partition: PartitionKey): TxnPartitionEntry {
    let e = this.partitions.get(partition);
    if (!e) {
      e = { nextSequence: 0, lastAckedSequence: -1, inflight: [] };
      this.partitions.set(partition, e);
    }
    return e;
  }

  /** reset: a new producer id or epoch starts every partition at sequence 0. */
  reset(): void {
    this.partitions.clear();
  }

  /** remove: UNKNOWN_PRODUCER_ID starts the partition again at sequence 0. */
  remove(partition: PartitionKey): void {
    this.partitions.delete(partition);
  }

  /** Later batches of the partition move down by the failed batch's record count. */
  adjustSequencesDueToFailedBatch(failed: ProducerBatch): void {
    const e = this.partitions.get(failed.partition);
    if (!e) return;
    e.nextSequence -= failed.recordCount;
    for (const b of e.inflight) if (b.baseSequence > failed.baseSequence) b.baseSequence -= failed.recordCount;
  }

  removeInFlightBatch(batch: ProducerBatch): void {
    const e = this.partitions.get(batch.partition);
    if (!e) return;
    // By identity, not by sequence: two batches can share a base sequence across an epoch bump (KAFKA-13794).
    const at = e.inflight.indexOf(batch);
    if (at >= 0) e.inflight.splice(at, 1);
  }
}
