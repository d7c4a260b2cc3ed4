import type { PartitionKey, TransactionResult } from "../common/types.js";

/*
 * What a partition's log holds (Kafka's RecordBatch and the records the coordinators write to
 * __transaction_state and __consumer_offsets, with the TransactionIndex's AbortedTxn), and how a
 * fetch finds the batches of an offset range. Apart from PartitionLog so the readers of a log (the
 * fetchers, the oracle, the consumer) need not import the log that writes it.
 */

export type Isolation = "READ_UNCOMMITTED" | "READ_COMMITTED";

/** One record batch in the log. Data batches carry values; control batches carry a marker. */
export interface LogBatch {
  baseOffset: number;
  lastOffset: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  control: { type: TransactionResult; coordinatorEpoch: number } | null;
  values: readonly string[];
  /** Ghost (not Kafka): the transaction attempt that wrote this batch or for which the marker was issued. */
  ghostTxn: string | null;
  /** The leader epoch of the leader that appended it (absent: epoch 0, a log written before leaders moved). */
  partitionLeaderEpoch?: number;
  /** A __transaction_state record: the transactional.id and its state (keyed and compacted by id). */
  txnRecord?: TxnLogRecord;
  /** The batch's max timestamp: the leader's clock at its append (set only when the log has a clock). */
  maxTimestamp?: number;
  /** __consumer_offsets records of a group coordinator's (Txn)OffsetCommit (OffsetCommitKey/Value). */
  offsetCommits?: readonly OffsetCommitRecord[];
  /** A __consumer_offsets GroupMetadata record: the group's generation as of its last completed join. */
  groupMetadata?: GroupMetadataRecord;
}

/** A GroupMetadata record, reduced to what a new coordinator must not forget (generations stay unique). */
export interface GroupMetadataRecord {
  readonly groupId: string;
  readonly generationId: number;
}

/** One OffsetCommit record of __consumer_offsets: a group's next offset of one input partition. */
export interface OffsetCommitRecord {
  readonly groupId: string;
  readonly partition: PartitionKey;
  readonly offset: number;
  readonly generationId: number;
  readonly memberId: string;
}

/**
 * One record of __transaction_state (TransactionLog's key and value). The log keeps the value as the
 * coordinator wrote it and reads nothing in it, as Kafka's log keeps the record's bytes; the
 * coordinator reads it back (TransactionLog.readTxnRecordValue), so the log knows no coordinator type.
 */
export interface TxnLogRecord {
  readonly transactionalId: string;
  readonly value: unknown;
}

/** TransactionIndex entry (only aborted transactions are indexed). */
export interface AbortedTxn {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

/**
 * Batches of `batches` (in offset order) that end at or after `fromOffset` and start below
 * `upperBound`, at most `maxBatches`: what a fetch reads (LocalLog.read).
 */
export function batchesBetween(
  batches: readonly LogBatch[],
  fromOffset: number,
  upperBound: number,
  maxBatches: number,
): LogBatch[] {
  const start = firstBatchEndingAtOrAfter(batches, fromOffset);
  const limit = Math.min(batches.length, start + maxBatches);
  let end = start;
  while (end < limit && (batches[end] as LogBatch).baseOffset < upperBound) end++;
  // One copy of the exact size (an array grown by push reserves room for 16 at its first element).
  return batches.slice(start, end);
}

/** Index of the first batch whose last offset is >= offset (batches are in offset order). */
function firstBatchEndingAtOrAfter(batches: readonly LogBatch[], offset: number): number {
  let low = 0;
  let high = batches.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((batches[mid] as LogBatch).lastOffset < offset) low = mid + 1;
    else high = mid;
  }
  return low;
}
