import type { InboundRequest } from "../../sim/network.js";
import type { AddPartitionsToTxnManager } from "../broker/add-partitions-to-txn-manager.js";
import type { PartitionLog } from "../broker/partition-log.js";
import type { LogBatch } from "../broker/log-batch.js";
import type { ReplicaFetcher } from "../broker/replica-fetcher.js";
import type { AlterPartitionChannel, ReplicaManager } from "../broker/replica-manager.js";
import type { ClusterContext } from "../cluster-context.js";
import type { IdSequence } from "../common/id-sequence.js";
import type { PartitionKey } from "../common/types.js";
import type { GroupCoordinator, GroupCoordinatorSettings } from "../coordinator/group/group-coordinator.js";
import type { ProducerIdManager } from "../coordinator/producer-id-manager.js";
import type { TransactionCoordinator } from "../coordinator/transaction-coordinator.js";
import type { MetadataImage } from "../metadata/metadata-image.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import type { ReleaseProfile } from "../release.js";

/** A request as the broker's request handlers receive it. */
export type Inbound = InboundRequest<KafkaRequest, KafkaResponse>;

/** What every broker shares with the rest of the cluster (the controller, id sequences). */
export interface BrokerShared {
  readonly controller: AlterPartitionChannel;
  readonly producerIds: ProducerIdManager;
  readonly markerIds: IdSequence;
  /** transaction.state.log.num.partitions */
  readonly transactionStatePartitions: number;
  /** Told of a follower's truncation (the oracle's feed). */
  readonly onTruncate: (
    broker: string,
    partition: PartitionKey,
    toOffset: number,
    removed: readonly LogBatch[],
  ) => void;
  /** Counts durable __transaction_state appends (run statistics). */
  readonly countTxnLogAppend: () => void;
  /** __transaction_state-`index` is in a nemesis outage: its appends fail with NOT_ENOUGH_REPLICAS. */
  readonly txnLogOutage: (index: number) => boolean;
  /** The group coordinator's settings when the cluster has __consumer_offsets (issue 17); absent: no groups. */
  readonly groupCoordinator?: GroupCoordinatorSettings;
}

/**
 * What a broker's process knows of its broker: who it is, what it shares with the cluster, its
 * logs (which outlive the process) and its metadata image (which changes under the process). The
 * release is the process's own: a restart on another release starts a new process.
 */
export interface BrokerBase {
  readonly ctx: ClusterContext;
  readonly brokerId: string;
  readonly release: ReleaseProfile;
  readonly shared: BrokerShared;
  readonly logs: ReadonlyMap<PartitionKey, PartitionLog>;
  /** The broker's metadata image now. */
  readonly image: () => MetadataImage;
}

/**
 * The components of one running broker process (BrokerServer's), which its request handlers
 * (KafkaApis) act on; a restart makes new ones over the same logs.
 */
export interface BrokerProcess extends BrokerBase {
  readonly replicas: ReplicaManager;
  readonly coordinator: TransactionCoordinator;
  readonly verifier: AddPartitionsToTxnManager;
  readonly fetchers: Map<string, ReplicaFetcher>;
  /** The group coordinator (null in a cluster without __consumer_offsets). */
  readonly groups: GroupCoordinator | null;
  /** The process stopped: what it scheduled or awaited does nothing any more. */
  stopped: boolean;
}
