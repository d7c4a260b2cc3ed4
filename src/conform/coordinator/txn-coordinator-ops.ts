import type { MetadataView, TxnMetadataInit } from "./txn-metadata-ops.js";

/**
 * The txnCoordinator surface's operations (jvm/PROTOCOL.md, service `txnCoordinator`): requests to
 * a coordinator owning __transaction_state-0, and the steps of its surroundings (marker
 * acknowledgements, failed log writes, time).
 */
export interface TxnCoordinatorConfig {
  transactionalIdExpirationMs: number;
  transactionMaxTimeoutMs: number;
  finalizedTransactionVersion: number;
  coordinatorEpoch: number;
  firstProducerId: number;
}

export const DEFAULT_TXN_COORDINATOR_CONFIG: TxnCoordinatorConfig = {
  transactionalIdExpirationMs: 604_800_000,
  transactionMaxTimeoutMs: 900_000,
  finalizedTransactionVersion: 2,
  coordinatorEpoch: 1,
  firstProducerId: 1000,
};

export type TxnCoordinatorOp =
  | {
      op: "initProducerId";
      transactionalId: string;
      transactionTimeoutMs: number;
      producerId: number;
      producerEpoch: number;
    }
  | {
      op: "addPartitions";
      transactionalId: string;
      producerId: number;
      producerEpoch: number;
      partitions: string[];
      verifyOnly: boolean;
      clientTransactionVersion: number;
    }
  | {
      op: "endTxn";
      transactionalId: string;
      producerId: number;
      producerEpoch: number;
      result: "COMMIT" | "ABORT";
      clientTransactionVersion: number;
    }
  | { op: "completeMarkers" }
  | { op: "failNextAppend"; error: string }
  | { op: "advanceTime"; ms: number }
  | { op: "abortTimedOutTransactions" }
  | { op: "describe"; transactionalId: string };

export interface MarkerSent {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  result: "COMMIT" | "ABORT";
  partitions: string[];
  transactionVersion: number;
  requestVersion: number;
}

export interface TxnCoordinatorResult {
  error: string;
  exception: string | null;
  message: string | null;
  producerId?: number;
  producerEpoch?: number;
  /** verifyOnly AddPartitionsToTxn: the error of each partition, by name. */
  errors?: Record<string, string>;
  acknowledged?: number;
  metadata?: MetadataView | null;
  markers: MarkerSent[];
}

export interface TxnCoordinatorSequence {
  config: TxnCoordinatorConfig;
  /** A transaction put into the coordinator's cache before the ops (putTransactionStateIfNotExists). */
  initialMetadata: TxnMetadataInit | null;
  ops: TxnCoordinatorOp[];
}

export function describeTxnCoordinatorOp(op: TxnCoordinatorOp): string {
  switch (op.op) {
    case "initProducerId":
      return `InitProducerId(${op.transactionalId}, timeout ${op.transactionTimeoutMs}${op.producerId >= 0 ? `, pid ${op.producerId} epoch ${op.producerEpoch}` : ""})`;
    case "addPartitions":
      return `AddPartitionsToTxn${op.verifyOnly ? " verifyOnly" : ""}(pid ${op.producerId} epoch ${op.producerEpoch} [${op.partitions.join(", ")}] TV${op.clientTransactionVersion})`;
    case "endTxn":
      return `EndTxn(${op.result}, pid ${op.producerId} epoch ${op.producerEpoch}, TV${op.clientTransactionVersion})`;
    case "completeMarkers":
      return "every WriteTxnMarkers sent is acknowledged";
    case "failNextAppend":
      return `the next __transaction_state append fails: ${op.error}`;
    case "advanceTime":
      return `time +${op.ms} ms`;
    case "abortTimedOutTransactions":
      return "abortTimedOutTransactions()";
    case "describe":
      return `describe(${op.transactionalId})`;
  }
}
