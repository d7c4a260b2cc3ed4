import type { PartitionKey } from "../common/types.js";
import { partitionKey } from "../common/types.js";

/** The internal topic of transaction state. */
export const TRANSACTION_STATE_TOPIC = "__transaction_state";

/** Java's String.hashCode: h = 31*h + c over UTF-16 code units, with 32-bit wraparound. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's Utils.abs: Integer.MIN_VALUE maps to 0, every other value to its absolute value. */
export function kafkaAbs(n: number): number {
  return n === -0x80000000 ? 0 : Math.abs(n);
}

/**
 * TransactionStateManager.partitionFor: the __transaction_state partition of a transactional.id,
 * Utils.abs(id.hashCode) % transaction.state.log.num.partitions. Its leader is the id's coordinator.
 */
export function transactionStatePartitionFor(transactionalId: string, partitionCount: number): number {
  return kafkaAbs(javaStringHashCode(transactionalId)) % partitionCount;
}

export function transactionStatePartitionKey(index: number): PartitionKey {
  return partitionKey(TRANSACTION_STATE_TOPIC, index);
}

export function isTransactionStatePartition(partition: PartitionKey): boolean {
  return partition.startsWith(`${TRANSACTION_STATE_TOPIC}-`);
}

/** The index of a __transaction_state partition key. */
export function transactionStatePartitionIndex(partition: PartitionKey): number {
  return Number(partition.slice(TRANSACTION_STATE_TOPIC.length + 1));
}
