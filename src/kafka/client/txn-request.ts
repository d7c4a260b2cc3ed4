import type { PartitionKey, TransactionVersion } from "../common/types.js";

/*
 * The requests a TransactionManager queues for the Sender (TxnRequestHandler and its Priority) and
 * what they carry, apart from the manager so the Sender and the application read them without it.
 */

/** ConsumerGroupMetadata: what the consumer hands to sendOffsetsToTransaction (KIP-447). */
export interface ConsumerGroupMetadata {
  readonly groupId: string;
  readonly generationId: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
}

/** Input offsets to commit in the transaction: the next offset to read, per input partition. */
export type TxnOffsets = readonly { partition: PartitionKey; offset: number }[];

/**
 * A request of the transaction, in the order Kafka sends them (TxnRequestHandler.Priority): to the
 * transaction coordinator, except TxnOffsetCommit, which goes to the group coordinator.
 */
export type TxnRequest =
  | { api: "InitProducerId" /** KIP-360: with the current id and epoch, to bump the epoch. */; bump: boolean }
  | { api: "AddPartitionsToTxn"; partitions: PartitionKey[] }
  | { api: "AddOffsetsToTxn"; offsets: TxnOffsets; group: ConsumerGroupMetadata }
  | { api: "TxnOffsetCommit"; offsets: TxnOffsets; group: ConsumerGroupMetadata }
  | { api: "EndTxn"; commit: boolean /** as built: v5 for TV2, else v4 */; transactionVersion: TransactionVersion };

/** Priority.ADD_PARTITIONS_OR_OFFSETS covers AddPartitionsToTxn, AddOffsetsToTxn and TxnOffsetCommit. */
export const PRIORITY: Record<TxnRequest["api"], number> = {
  InitProducerId: 1,
  AddPartitionsToTxn: 2,
  AddOffsetsToTxn: 2,
  TxnOffsetCommit: 2,
  EndTxn: 3,
};
/** The epoch bump after an abort goes after the EndTxn (Priority.EPOCH_BUMP). */
export const EPOCH_BUMP_PRIORITY = 4;

/** What the Sender does with a coordinator request after its answer. */
export type TxnResponseAction = "done" | "retry" | "lookup-and-retry";
