import type { PartitionKey } from "../common/types.js";
import type { ProducerBatch } from "./record-accumulator.js";

/** TxnPartitionEntry: the sequence state of one partition, valid for one producer id and epoch. */
export interface TxnPartitionEntry {
  nextSequence: number;
  lastAckedSequence: number;
  /** Batches in flight or waiting for a retry, by base sequence (inflightBatchesBySequence). */
  inflight: ProducerBatch[];
  /**
   * The producer id and epoch the sequences belong to (TopicPartitionEntry.producerIdAndEpoch,
   * KAFKA-12152's fix): an idempotent producer's partition keeps its old ones after an epoch bump
   * until its in-flight batches are resolved. -1 until the partition's first batch.
   */
  producerId: number;
  producerEpoch: number;
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
      e = { nextSequence: 0, lastAckedSequence: -1, inflight: [], producerId: -1, producerEpoch: -1 };
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

  /**
   * removeInFlightBatch. By identity: two batches can share a base sequence across an epoch bump.
   * `bySequenceOnly` (KAFKA-13794's bug switch): the set's comparator sees only the base sequence,
   * so the batch it holds with that sequence goes, whichever it is.
   */
  removeInFlightBatch(batch: ProducerBatch, bySequenceOnly = false): void {
    const e = this.partitions.get(batch.partition);
    if (!e) return;
    const at = bySequenceOnly
      ? e.inflight.findIndex((b) => b.baseSequence === batch.baseSequence)
      : e.inflight.indexOf(batch);
    if (at >= 0) e.inflight.splice(at, 1);
  }

  /**
   * addInFlightBatch (a TreeSet's add): `bySequenceOnly` (KAFKA-13794's bug switch): a batch with
   * the base sequence of one already held is equal to it, and is not added.
   */
  addInFlightBatch(batch: ProducerBatch, bySequenceOnly = false): void {
    const e = this.getOrCreate(batch.partition);
    if (bySequenceOnly && e.inflight.some((b) => b.baseSequence === batch.baseSequence)) return;
    e.inflight.push(batch);
  }

  /**
   * startSequencesAtBeginning: the partition's sequences belong to `producerId` and `producerEpoch`
   * from now on; its in-flight batches, in sequence order, take them and sequences from 0.
   */
  startSequencesAtBeginning(partition: PartitionKey, producerId: number, producerEpoch: number): void {
    const e = this.getOrCreate(partition);
    let sequence = 0;
    e.inflight.sort((a, b) => a.baseSequence - b.baseSequence);
    for (const b of e.inflight) {
      b.producerId = producerId;
      b.producerEpoch = producerEpoch;
      b.baseSequence = sequence;
      b.sequenceHasBeenReset = true;
      sequence += b.recordCount;
    }
    e.nextSequence = sequence;
    e.lastAckedSequence = -1;
    e.producerId = producerId;
    e.producerEpoch = producerEpoch;
  }

  has(partition: PartitionKey): boolean {
    return this.partitions.has(partition);
  }

  /** The partitions with sequence state, in the order they were first written. */
  keys(): PartitionKey[] {
    return [...this.partitions.keys()];
  }
}
