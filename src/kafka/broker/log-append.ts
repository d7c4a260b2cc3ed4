import type { TransactionResult } from "../common/types.js";
import type { CompletedTxn, MarkerEpochRule } from "./producer-state-manager.js";
import type { LogBatch, OffsetCommitRecord } from "./log-batch.js";

/**
 * What an append to a partition's log is given and what it answers (Kafka's LogAppendInfo and the
 * errors UnifiedLog.append throws): the leader's data and marker appends of PartitionLog.
 */

export interface DataBatchInput {
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  values: readonly string[];
  ghostTxn: string | null;
  /** Guard obtained from verification, or 0 when no verification was done. */
  verificationGuard: number;
  /** Who appends: a client's Produce (the default) or the group coordinator's TxnOffsetCommit write. */
  origin?: "CLIENT" | "COORDINATOR";
  /** The group coordinator's records carried by this batch. */
  offsetCommits?: readonly OffsetCommitRecord[];
}

export type DataAppendResult =
  | { kind: "appended"; batch: LogBatch }
  | { kind: "duplicate"; firstOffset: number; lastOffset: number }
  | { kind: "error"; errorCode: number; reason: string };

export interface MarkerInput {
  producerId: number;
  producerEpoch: number;
  result: TransactionResult;
  coordinatorEpoch: number;
  /** From the WriteTxnMarkers request: 0 for v1 (field absent), else the field's value. */
  transactionVersion: number;
  ghostTxn: string | null;
}

export type MarkerAppendResult =
  | {
      kind: "appended";
      batch: LogBatch;
      completed: CompletedTxn | null;
      rule: MarkerEpochRule;
      storedEpochBefore: number;
      storedCoordinatorEpochBefore: number;
      openTxnBefore: boolean;
    }
  | {
      kind: "error";
      errorCode: number;
      rule: MarkerEpochRule;
      storedEpochBefore: number;
      storedCoordinatorEpochBefore: number;
      openTxnBefore: boolean;
      reason: string;
    };
