/** Short.MAX_VALUE: the epoch reserved for fencing. */
export const MAX_PRODUCER_EPOCH = 32767;
export const NO_PRODUCER_EPOCH = -1;
export const NO_PRODUCER_ID = -1;
/** RecordBatch.NO_SEQUENCE: a batch with no sequence (unassigned, or a coordinator's write). */
export const NO_SEQUENCE = -1;

/** Kafka's isEpochExhausted: epochs >= Short.MAX_VALUE - 1 force a producer-id rotation. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_PRODUCER_EPOCH - 1;
}

export type TransactionResult = "COMMIT" | "ABORT";

/** TransactionVersion feature levels: 0/1 are the legacy protocol, 2 is KIP-890 part 2. */
export type TransactionVersion = 0 | 1 | 2;

/** "topic-partition", Kafka's TopicPartition.toString(). */
export type PartitionKey = string;

export function partitionKey(topic: string, partition: number): PartitionKey {
  return `${topic}-${partition}`;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

export function parsePartitionKey(key: PartitionKey): TopicPartition {
  const dash = key.lastIndexOf("-");
  return { topic: key.slice(0, dash), partition: Number(key.slice(dash + 1)) };
}
