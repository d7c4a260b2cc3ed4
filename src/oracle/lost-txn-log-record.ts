import type { LogBatch } from "../kafka/broker/log-batch.js";
import type { PartitionKey } from "../kafka/common/types.js";
import type { TxnTransitMetadata } from "../kafka/coordinator/transaction-metadata.js";
import type { Truncation } from "./ghost-ledger.js";

/** What a violation's summary says when an uncommitted __transaction_state record a coordinator acted on was lost. */
export const LOST_TXN_LOG_RECORD_TEXT = "uncommitted __transaction_state record that added";

/** An Ongoing __transaction_state record a replica truncated away (it was never committed there). */
export interface LostOngoingRecord {
  broker: string;
  /** The __transaction_state partition. */
  partition: PartitionKey;
  offset: number;
  /** When the replica truncated it. */
  atMs: number;
  transactionalId: string;
  transit: TxnTransitMetadata;
}

/**
 * The first Ongoing __transaction_state record of `producerId` (at `producerEpoch`, and naming
 * `partition`, when given) that a replica truncated before `beforeMs`. A coordinator loads its
 * partition to the log end, uncommitted records included (TransactionStateManager.
 * loadTransactionMetadata reads with FetchIsolation.LOG_END), and answers an AddPartitionsToTxn whose
 * partitions that state already holds at once, with no write (TransactionCoordinator.
 * handleAddPartitionsToTransaction's optimization): when such a record is then truncated by a leader
 * change, the partitions it added were answered for but are known to no coordinator after.
 */
export function lostOngoingRecord(
  truncations: readonly Truncation[],
  want: { producerId: number; producerEpoch?: number; partition?: PartitionKey; beforeMs: number },
): LostOngoingRecord | null {
  for (const t of truncations) {
    if (t.atMs > want.beforeMs) continue;
    for (const b of t.removed) {
      const transit = transitOf(b);
      if (transit?.txnState !== "Ongoing" || transit.producerId !== want.producerId) continue;
      if (want.producerEpoch !== undefined && transit.producerEpoch !== want.producerEpoch) continue;
      if (want.partition !== undefined && !transit.topicPartitions.includes(want.partition)) continue;
      return {
        broker: t.broker,
        partition: t.partition,
        offset: b.baseOffset,
        atMs: t.atMs,
        transactionalId: (b.txnRecord as { transactionalId: string }).transactionalId,
        transit,
      };
    }
  }
  return null;
}

/** The transit a __transaction_state batch holds, or null (another partition's batch). */
function transitOf(b: LogBatch): TxnTransitMetadata | null {
  const value = b.txnRecord?.value as TxnTransitMetadata | null | undefined;
  return typeof value === "object" && value !== null && typeof value.txnState === "string" ? value : null;
}

/** One line saying what the lost record was and what it means. */
export function lostRecordText(r: LostOngoingRecord): string {
  return `${r.broker} truncated the Ongoing record of ${r.transactionalId} (producerId ${r.transit.producerId}, epoch ${r.transit.producerEpoch}, partitions ${r.transit.topicPartitions.join(", ")}) at ${r.partition} offset ${r.offset} at t=${r.atMs}ms: it was never committed, yet a coordinator that loaded it from its log end (loads read to the log end, not the high watermark) took its partitions as added and answered AddPartitionsToTxn for them without a write; the coordinators after it never knew them`;
}
