import type { PartitionKey, TransactionResult } from "../common/types.js";
import type { TransactionMetadata, TxnTransitMetadata } from "./transaction-metadata.js";

/*
 * What the marker channel keeps of a decided transaction: the markers it sends (WriteTxnMarkersRequest's
 * TxnMarkerEntry) and the transaction waiting for their answers (PendingCompleteTxn). Apart from the
 * channel so the readers of a marker (the broker's trace, the oracle's ledger) need not import it.
 */

/** One marker for one destination broker (TxnMarkerEntry), kept identical across re-sends. */
export interface TxnMarkerEntry {
  readonly markerId: number;
  readonly transactionalId: string;
  readonly producerId: number;
  readonly producerEpoch: number;
  readonly result: TransactionResult;
  readonly coordinatorEpoch: number;
  readonly transactionVersion: number;
  readonly partitions: readonly PartitionKey[];
  readonly ghostTxn: string | null;
  resend: number;
}

/** PendingCompleteTxn: a transaction whose markers are out; removal is compare-and-remove. */
export interface PendingCompleteTxn {
  readonly transactionalId: string;
  readonly coordinatorEpoch: number;
  readonly metadata: TransactionMetadata;
  readonly completeTransit: TxnTransitMetadata;
  readonly result: TransactionResult;
  acked: number;
  /** The CompleteX write is in flight (it is written once, whatever acknowledges after). */
  completing: boolean;
}
