import type { PartitionKey } from "../../common/types.js";
import { partitionKey } from "../../common/types.js";
import { javaStringHashCode, kafkaAbs } from "../transaction-partitioning.js";

/** The internal topic of group metadata and committed offsets (Topic.GROUP_METADATA_TOPIC_NAME). */
export const CONSUMER_OFFSETS_TOPIC = "__consumer_offsets";

/**
 * GroupCoordinatorService.partitionFor (and the classic GroupMetadataManager.partitionFor): the
 * __consumer_offsets partition of a group id, Utils.abs(groupId.hashCode) % offsets.topic.num.partitions.
 * Its leader is the group's coordinator.
 */
export function groupPartitionFor(groupId: string, partitionCount: number): number {
  if (partitionCount <= 0) throw new Error(`offsets.topic.num.partitions must be positive, got ${partitionCount}`);
  return kafkaAbs(javaStringHashCode(groupId)) % partitionCount;
}

export function consumerOffsetsPartitionKey(index: number): PartitionKey {
  return partitionKey(CONSUMER_OFFSETS_TOPIC, index);
}

export function isConsumerOffsetsPartition(partition: PartitionKey): boolean {
  return partition.startsWith(`${CONSUMER_OFFSETS_TOPIC}-`);
}

/** The index of a __consumer_offsets partition key. */
export function consumerOffsetsPartitionIndex(partition: PartitionKey): number {
  return Number(partition.slice(CONSUMER_OFFSETS_TOPIC.length + 1));
}
