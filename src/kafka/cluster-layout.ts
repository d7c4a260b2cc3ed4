import type { PartitionConfig } from "./broker/partition.js";
import type { ClusterSpec } from "./cluster-spec.js";
import { type PartitionKey, partitionKey } from "./common/types.js";
import type { GroupCoordinatorSettings } from "./coordinator/group/group-coordinator.js";
import type { AcceptedTxnOffsets } from "./coordinator/group/group-coordinator-shard.js";
import { consumerOffsetsPartitionKey } from "./coordinator/group/group-partitioning.js";
import type { MemberIds } from "./coordinator/group/member-ids.js";
import { transactionStatePartitionKey } from "./coordinator/transaction-partitioning.js";
import type { PartitionAssignment } from "./metadata/quorum-controller.js";

/*
 * The partitions a cluster spec asks for, as the controller assigns them and the brokers configure
 * them (the topics' creation: CreateTopics with its configs, and the internal topics' own configs).
 * Apart from Cluster because it is a function of the spec alone, read once at construction.
 */

/** The cluster's partitions, in the order the controller assigns them. */
export interface ClusterLayout {
  readonly assignments: PartitionAssignment[];
  readonly transactionStatePartitions: PartitionKey[];
  /** Data partitions (what producers write and consumers read). */
  readonly partitions: PartitionKey[];
  /** __consumer_offsets partitions (only in a cluster with consumer groups). */
  readonly consumerOffsetsPartitions: PartitionKey[];
}

export function clusterLayout(spec: ClusterSpec): ClusterLayout {
  const layout: ClusterLayout = {
    assignments: [],
    transactionStatePartitions: [],
    partitions: [],
    consumerOffsetsPartitions: [],
  };
  const out = layout.assignments;
  spec.transactionState.partitions.forEach((p, i) => {
    const key = transactionStatePartitionKey(i);
    layout.transactionStatePartitions.push(key);
    // Always off for __transaction_state (TransactionCoordinator.transactionStateTopicConfigs).
    out.push({ partition: key, replicas: p.replicas, uncleanLeaderElectionEnable: false });
  });
  for (const topic of spec.topics) {
    topic.partitions.forEach((p, i) => {
      const key = partitionKey(topic.name, i);
      layout.partitions.push(key);
      out.push({
        partition: key,
        replicas: p.replicas,
        uncleanLeaderElectionEnable: topic.uncleanLeaderElectionEnable,
      });
    });
  }
  // After every other partition, so a cluster without groups is assigned exactly as before.
  spec.consumerOffsets?.partitions.forEach((p, i) => {
    const key = consumerOffsetsPartitionKey(i);
    layout.consumerOffsetsPartitions.push(key);
    out.push({ partition: key, replicas: p.replicas, uncleanLeaderElectionEnable: false });
  });
  return layout;
}

/** The brokers' group coordinator settings, for a cluster with __consumer_offsets. */
export function groupCoordinatorSettings(
  spec: ClusterSpec,
  memberIds: MemberIds,
  onTxnOffsetsAccepted: (accepted: AcceptedTxnOffsets) => void,
): { groupCoordinator?: GroupCoordinatorSettings } {
  const offsets = spec.consumerOffsets;
  if (!offsets) return {};
  const input = spec.topics.find((t) => t.name === offsets.inputTopic);
  if (!input) throw new Error(`consumer groups read ${offsets.inputTopic}, which is not a topic of the cluster`);
  return {
    groupCoordinator: {
      partitionCount: offsets.partitions.length,
      group: {
        sessionTimeoutMs: offsets.sessionTimeoutMs,
        rebalanceTimeoutMs: offsets.rebalanceTimeoutMs,
        partitions: input.partitions.map((_, i) => partitionKey(input.name, i)),
        memberIds,
      },
      options: {
        txnOffsetCommitGenerationCheck: offsets.txnOffsetCommitGenerationCheck,
        markerTransactionVersionReachesLog: offsets.markerTransactionVersionReachesLog,
        onTxnOffsetsAccepted,
      },
    },
  };
}

/** Each partition's min.insync.replicas and replica.lag.time.max.ms. */
export function partitionConfigs(spec: ClusterSpec, layout: ClusterLayout): Map<PartitionKey, PartitionConfig> {
  const lag = spec.broker.replicaLagTimeMaxMs;
  const configs = new Map<PartitionKey, PartitionConfig>();
  for (const key of layout.transactionStatePartitions)
    configs.set(key, { minInsyncReplicas: spec.transactionState.minInsyncReplicas, replicaLagTimeMaxMs: lag });
  for (const topic of spec.topics)
    for (let i = 0; i < topic.partitions.length; i++)
      configs.set(partitionKey(topic.name, i), {
        minInsyncReplicas: topic.minInsyncReplicas,
        replicaLagTimeMaxMs: lag,
      });
  const offsets = spec.consumerOffsets;
  for (const key of layout.consumerOffsetsPartitions)
    configs.set(key, { minInsyncReplicas: offsets?.minInsyncReplicas ?? 1, replicaLagTimeMaxMs: lag });
  return configs;
}
