import type { PartitionLog } from "./broker/partition-log.js";
import type { LogBatch } from "./broker/log-batch.js";
import type { OffsetCommitter } from "./client/offset-committer.js";
import type { ProcessedTxn } from "./client/processor.js";
import { type ConsumedRecord, type ReadCommittedConsumer, readPartition } from "./client/read-committed-consumer.js";
import type { TransactionalProducer } from "./client/transactional-producer.js";
import type { ClusterSpec } from "./cluster-spec.js";
import type { PartitionKey } from "./common/types.js";
import type { AcceptedTxnOffsets } from "./coordinator/group/group-coordinator-shard.js";
import { consumerOffsetsPartitionKey, groupPartitionFor } from "./coordinator/group/group-partitioning.js";
import type { OffsetAndMetadata } from "./coordinator/group/offset-metadata-manager.js";
import { transactionStatePartitionFor, transactionStatePartitionKey } from "./coordinator/transaction-partitioning.js";
import type { TransactionStateName } from "./coordinator/transaction-state.js";
import type { QuorumController } from "./metadata/quorum-controller.js";
import type { ProcessorGroup } from "./processor-group.js";
import type { ReleaseName } from "./release.js";
import type { KafkaBroker } from "./server/kafka-broker.js";

/*
 * What the oracle reads of the cluster once the run is over: the final reads of every partition,
 * the coordinators' transactions and the ids none serves, the processing view. Apart from Cluster,
 * which builds and drives the cluster, because none of it runs during the run.
 */

/** What the final state is read from (a Cluster). */
export interface FinalStateSource {
  readonly spec: ClusterSpec;
  readonly controller: QuorumController;
  readonly brokers: ReadonlyMap<string, KafkaBroker>;
  readonly producers: readonly TransactionalProducer[];
  readonly consumers: readonly ReadCommittedConsumer[];
  readonly partitions: readonly PartitionKey[];
  readonly transactionStatePartitions: readonly PartitionKey[];
  readonly consumerOffsetsPartitions: readonly PartitionKey[];
  readonly processors: ProcessorGroup | null;
  /** Plain committers (absent or empty: none). */
  readonly committers?: readonly OffsetCommitter[];
  readonly acceptedTxnOffsets: readonly AcceptedTxnOffsets[];
  brokerOf(id: string): KafkaBroker;
  logOf(broker: string, partition: PartitionKey): PartitionLog;
}

/** What the processing checks (issue 17) read at the end of a run with processors. */
export interface ProcessingView {
  groupId: string;
  inputTopic: string;
  outputTopic: string;
  offsetsPartition: PartitionKey;
  /** The group's committed offset of each input partition at the offsets partition's final leader (null: none, or no leader). */
  committed: { partition: PartitionKey; offset: OffsetAndMetadata | null }[];
  journal: readonly ProcessedTxn[];
  accepted: readonly AcceptedTxnOffsets[];
}

/** What the final checks see of the cluster after the quiet period. */
export interface ClusterSnapshot {
  transactions: {
    transactionalId: string;
    /** The broker coordinating it at the end, and its coordinator epoch. */
    coordinator: string;
    coordinatorEpoch: number;
    state: TransactionStateName;
    pendingState: TransactionStateName | null;
    producerId: number;
    producerEpoch: number;
    ghostTxn: string | null;
    partitions: PartitionKey[];
  }[];
  /** transactional.ids whose __transaction_state partition no running coordinator serves at the end. */
  unservedTransactionalIds: { transactionalId: string; partition: PartitionKey; leader: string | null }[];
  partitions: {
    partition: PartitionKey;
    broker: string;
    brokerRelease: ReleaseName;
    highWatermark: number;
    lastStableOffset: number;
    openTransactions: { producerId: number; firstOffset: number; ghostTxns: string[] }[];
    batches: readonly LogBatch[];
    abortedTxns: { producerId: number; firstOffset: number; lastOffset: number }[];
  }[];
  /**
   * Group offsets a require_stable OffsetFetch answers UNSTABLE_OFFSET_COMMIT for at the end though
   * no transaction holds them (absent: none), with the committers still waiting on them.
   */
  unstableOffsets?: UnstableOffsets[];
}

/** One group partition whose committed offset a require_stable OffsetFetch cannot read. */
export interface UnstableOffsets {
  groupId: string;
  partition: PartitionKey;
  offsetsPartition: PartitionKey;
  coordinator: string;
  /** Committers whose OffsetFetch has answered UNSTABLE_OFFSET_COMMIT since then (name and time). */
  waiting: { committer: string; sinceMs: number }[];
}

/** What a read_committed consumer sees of one partition at the end (the oracle's final read). */
export interface FinalPartitionRead {
  partition: PartitionKey;
  broker: string;
  brokerRelease: ReleaseName;
  /** Offsets at or above this were not returned (the LSO, or the high watermark for a broken consumer). */
  readBound: number;
  highWatermark: number;
  records: ConsumedRecord[];
  /**
   * The ABORT markers of the replica's log that closed records of their producer (data of it since
   * its previous marker, from `firstOffset`) but nothing in its transaction index (no AbortedTxn
   * ends there): the producer state held no open transaction of that producer when the marker was
   * appended (ProducerAppendInfo.appendEndTxnMarker then emits no CompletedTxn), so read_committed
   * does not skip those records. Absent: not known (a real cluster's read).
   */
  unindexedAborts?: { producerId: number; firstOffset: number; offset: number }[];
}

/** The replica the final checks read: the leader, or (offline) the first assigned replica. */
function finalReplicaOf(
  cluster: FinalStateSource,
  partition: PartitionKey,
): { broker: KafkaBroker; log: PartitionLog } {
  const reg = cluster.controller.registration(partition);
  const id = reg.leader ?? (reg.replicas[0] as string);
  const broker = cluster.brokerOf(id);
  return { broker, log: cluster.logOf(id, partition) };
}

/** Every partition as the cluster's consumers read it now (default read_committed if there are none). */
export function finalReads(cluster: FinalStateSource): FinalPartitionRead[] {
  const consumer = cluster.consumers[0];
  return cluster.partitions.map((partition) => {
    const { broker, log } = finalReplicaOf(cluster, partition);
    const { records, readBound } = consumer ? consumer.readAll(log) : readPartition(log);
    return {
      partition,
      broker: broker.id,
      brokerRelease: broker.releaseName,
      readBound,
      highWatermark: log.highWatermark,
      records,
      unindexedAborts: unindexedAborts(log),
    };
  });
}

/** The log's ABORT markers that closed data of their producer yet have no AbortedTxn ending at them. */
export function unindexedAborts(log: PartitionLog): { producerId: number; firstOffset: number; offset: number }[] {
  const out: { producerId: number; firstOffset: number; offset: number }[] = [];
  // Per producer, the first offset of its data since its last marker.
  const openFrom = new Map<number, number>();
  for (const b of log.batches) {
    if (b.producerId < 0 || !b.isTransactional) continue;
    if (!b.control) {
      if (!openFrom.has(b.producerId)) openFrom.set(b.producerId, b.baseOffset);
      continue;
    }
    const firstOffset = openFrom.get(b.producerId);
    openFrom.delete(b.producerId);
    if (b.control.type !== "ABORT" || firstOffset === undefined) continue;
    if (!log.abortedTxns.some((a) => a.producerId === b.producerId && a.lastOffset === b.baseOffset))
      out.push({ producerId: b.producerId, firstOffset, offset: b.baseOffset });
  }
  return out;
}

/** What the processing checks read at the end (null without processors). */
export function processingView(cluster: FinalStateSource): ProcessingView | null {
  const offsets = cluster.spec.consumerOffsets;
  const processors = cluster.processors;
  if (!offsets?.processors || !processors) return null;
  const groupId = offsets.processors.groupId;
  const index = groupPartitionFor(groupId, cluster.consumerOffsetsPartitions.length);
  const key = consumerOffsetsPartitionKey(index);
  const leader = cluster.controller.registration(key).leader;
  const shard = leader === null ? null : cluster.brokerOf(leader).groupShard(index);
  const input = cluster.partitions.filter((p) => p.startsWith(`${offsets.inputTopic}-`));
  return {
    groupId,
    inputTopic: offsets.inputTopic,
    outputTopic: offsets.processors.outputTopic,
    offsetsPartition: key,
    committed: input.map((partition) => ({ partition, offset: shard?.committedOffset(groupId, partition) ?? null })),
    journal: processors.journal,
    accepted: cluster.acceptedTxnOffsets,
  };
}

/** The coordinators' transactions, the ids no coordinator serves, and every partition's final replica. */
export function clusterSnapshot(cluster: FinalStateSource): ClusterSnapshot {
  const transactions: ClusterSnapshot["transactions"] = [];
  for (const broker of cluster.brokers.values()) {
    const coordinator = broker.coordinator;
    if (!coordinator) continue;
    for (const m of coordinator.state.all()) {
      const epoch = coordinator.state.coordinatorEpochOf(coordinator.state.partitionFor(m.transactionalId));
      transactions.push({
        transactionalId: m.transactionalId,
        coordinator: broker.id,
        coordinatorEpoch: epoch ?? -1,
        state: m.state,
        pendingState: m.pendingState,
        producerId: m.producerId,
        producerEpoch: m.producerEpoch,
        ghostTxn: m.ghostTxn,
        partitions: [...m.topicPartitions],
      });
    }
  }
  const served = new Set(transactions.map((t) => t.transactionalId));
  // An expired id (transactional.id.expiration.ms) has no state, yet its coordinator serves it.
  for (const broker of cluster.brokers.values())
    for (const p of cluster.producers)
      if (broker.coordinator?.state.servesExpired(p.config.transactionalId)) served.add(p.config.transactionalId);
  const unservedTransactionalIds = cluster.producers
    .map((p) => p.config.transactionalId)
    .filter((id, i, all) => all.indexOf(id) === i && !served.has(id))
    .map((transactionalId) => {
      const index = transactionStatePartitionFor(transactionalId, cluster.transactionStatePartitions.length);
      const key = transactionStatePartitionKey(index);
      return { transactionalId, partition: key, leader: cluster.controller.registration(key).leader };
    })
    .filter((u) => wasEverUsed(cluster, u.transactionalId));
  // Offsets partitions too (only in a cluster with groups): a transaction left open there hangs as well.
  const partitions = [...cluster.partitions, ...cluster.consumerOffsetsPartitions].map((partition) => {
    const { broker, log } = finalReplicaOf(cluster, partition);
    const open = [...log.producers.values()]
      .filter((e) => e.currentTxnFirstOffset !== null)
      .map((e) => ({
        producerId: e.producerId,
        firstOffset: e.currentTxnFirstOffset as number,
        ghostTxns: [
          ...new Set(
            log
              .dataBatchesOf(e.producerId, e.currentTxnFirstOffset as number, log.logEndOffset)
              .map((b) => b.ghostTxn ?? "?"),
          ),
        ],
      }));
    return {
      partition,
      broker: broker.id,
      brokerRelease: broker.releaseName,
      highWatermark: log.highWatermark,
      lastStableOffset: log.lastStableOffset(),
      openTransactions: open,
      batches: log.batches,
      abortedTxns: log.abortedTxns.map((a) => ({
        producerId: a.producerId,
        firstOffset: a.firstOffset,
        lastOffset: a.lastOffset,
      })),
    };
  });
  return { transactions, unservedTransactionalIds, partitions, ...unstableOffsetsOf(cluster) };
}

/** Every offsets partition's final leader: the group offsets require_stable cannot read, though no transaction holds them. */
function unstableOffsetsOf(cluster: FinalStateSource): { unstableOffsets?: UnstableOffsets[] } {
  const out: UnstableOffsets[] = [];
  cluster.consumerOffsetsPartitions.forEach((offsetsPartition, index) => {
    const leader = cluster.controller.registration(offsetsPartition).leader;
    const shard = leader === null ? null : cluster.brokerOf(leader).groupShard(index);
    if (!shard || leader === null) return;
    for (const u of shard.offsets.unstableWithoutTransaction()) {
      const waiting = (cluster.committers ?? [])
        .filter((k) => k.unstableSinceMs !== null && k.groupId === u.groupId && k.assigned.includes(u.partition))
        .map((k) => ({ committer: k.name, sinceMs: k.unstableSinceMs as number }));
      out.push({ ...u, offsetsPartition, coordinator: leader, waiting });
    }
  });
  return out.length > 0 ? { unstableOffsets: out } : {};
}

/** A transactional.id some producer instance initialised (its state exists somewhere). */
function wasEverUsed(cluster: FinalStateSource, transactionalId: string): boolean {
  return cluster.producers.some((p) => p.config.transactionalId === transactionalId && p.transactionsStarted > 0);
}
