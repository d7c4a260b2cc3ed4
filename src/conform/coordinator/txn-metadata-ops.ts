import type { KafkaTxnState } from "./txn-names.js";

/**
 * The txnMetadata surface's operations (jvm/PROTOCOL.md, service `txnMetadata`): Kafka's
 * TransactionMetadata methods, in the same concrete form for the model and for Kafka's classes.
 */
export interface TxnMetadataInit {
  transactionalId: string;
  producerId: number;
  prevProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: KafkaTxnState;
  topicPartitions: string[];
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: number;
}

export type TxnMetadataOp =
  | {
      op: "prepareIncrementProducerEpoch";
      newTxnTimeoutMs: number;
      expectedProducerEpoch: number | null;
      updateTimestamp: number;
    }
  | {
      op: "prepareProducerIdRotation";
      producerId: number;
      newTxnTimeoutMs: number;
      updateTimestamp: number;
      recordLastEpoch: boolean;
    }
  | { op: "prepareAddPartitions"; partitions: string[]; updateTimestamp: number; clientTransactionVersion: number }
  | {
      op: "prepareAbortOrCommit";
      newState: "PREPARE_COMMIT" | "PREPARE_ABORT";
      clientTransactionVersion: number;
      nextProducerId: number;
      updateTimestamp: number;
      noPartitionAdded: boolean;
    }
  | { op: "prepareFenceProducerEpoch" }
  | { op: "prepareComplete"; updateTimestamp: number }
  | { op: "prepareDead" }
  | { op: "completeTransitionTo" }
  | { op: "clearPendingState" };

/** A TxnTransitMetadata's fields. */
export interface TransitView {
  producerId: number;
  prevProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  topicPartitions: string[];
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: number;
  txnState: KafkaTxnState;
}

export interface MetadataView {
  transactionalId: string;
  producerId: number;
  prevProducerId: number;
  nextProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  topicPartitions: string[];
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  clientTransactionVersion: number;
  state: KafkaTxnState;
  pendingState: KafkaTxnState | null;
  hasFailedEpochFence: boolean;
}

export interface TxnMetadataResult {
  error: string;
  exception: string | null;
  message: string | null;
  /** completeTransitionTo only: false when no prepare had returned a transit. */
  completed?: boolean;
  transit: TransitView | null;
  metadata: MetadataView;
}

export function describeTxnMetadataOp(op: TxnMetadataOp): string {
  switch (op.op) {
    case "prepareIncrementProducerEpoch":
      return `prepareIncrementProducerEpoch(timeout ${op.newTxnTimeoutMs}, expected ${op.expectedProducerEpoch ?? "none"}, t ${op.updateTimestamp})`;
    case "prepareProducerIdRotation":
      return `prepareProducerIdRotation(pid ${op.producerId}, timeout ${op.newTxnTimeoutMs}, t ${op.updateTimestamp}, recordLastEpoch ${op.recordLastEpoch})`;
    case "prepareAddPartitions":
      return `prepareAddPartitions([${op.partitions.join(", ")}], t ${op.updateTimestamp}, TV${op.clientTransactionVersion})`;
    case "prepareAbortOrCommit":
      return `prepareAbortOrCommit(${op.newState}, TV${op.clientTransactionVersion}, nextProducerId ${op.nextProducerId}, t ${op.updateTimestamp}, noPartitionAdded ${op.noPartitionAdded})`;
    case "prepareComplete":
      return `prepareComplete(t ${op.updateTimestamp})`;
    default:
      return `${op.op}()`;
  }
}

export function describeTxnMetadataInit(i: TxnMetadataInit): string {
  return `TransactionMetadata(${i.transactionalId}, pid ${i.producerId}, prev ${i.prevProducerId}, next ${i.nextProducerId}, epoch ${i.producerEpoch}, last ${i.lastProducerEpoch}, ${i.state}, [${i.topicPartitions.join(", ")}], start ${i.txnStartTimestamp}, TV${i.clientTransactionVersion})`;
}
