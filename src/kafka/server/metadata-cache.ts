import type { PartitionKey } from "../common/types.js";
import { GroupCoordinator } from "../coordinator/group/group-coordinator.js";
import { consumerOffsetsPartitionKey } from "../coordinator/group/group-partitioning.js";
import { transactionStatePartitionFor, transactionStatePartitionKey } from "../coordinator/transaction-partitioning.js";
import { isActive, type MetadataImage } from "../metadata/metadata-image.js";
import type { BrokerShared } from "./broker-process.js";

/** A broker's view of a partition's leader (its MetadataCache): null with none, undefined when the partition is unknown. */
export function leaderOf(image: MetadataImage, partition: PartitionKey): string | null | undefined {
  const reg = image.partitions.get(partition);
  return reg === undefined ? undefined : reg.leader;
}

/** The coordinator of a transactional.id in a broker's image (null: its partition has no live leader). */
export function coordinatorOf(image: MetadataImage, shared: BrokerShared, transactionalId: string): string | null {
  const index = transactionStatePartitionFor(transactionalId, shared.transactionStatePartitions);
  const leader = leaderOf(image, transactionStatePartitionKey(index)) ?? null;
  return leader !== null && isActive(image, leader) ? leader : null;
}

/** The group coordinator of a group id in a broker's image (null: no live leader, or no __consumer_offsets). */
export function groupCoordinatorOf(image: MetadataImage, shared: BrokerShared, groupId: string): string | null {
  const settings = shared.groupCoordinator;
  if (!settings) return null;
  const index = GroupCoordinator.partitionOf(groupId, settings);
  const leader = leaderOf(image, consumerOffsetsPartitionKey(index)) ?? null;
  return leader !== null && isActive(image, leader) ? leader : null;
}
