import type { PartitionKey, TransactionVersion } from "../common/types.js";

/** Kafka's "no leader" (-1 in PartitionRegistration.leader), as a broker id. */
export const NO_LEADER = null;

/**
 * PartitionRegistration: one partition as the KRaft controller records it. `replicas` is the
 * assignment (replicas[0] is the preferred leader); `isr` the in-sync replicas; `leaderEpoch` bumps
 * on every leader change; `partitionEpoch` on every change at all (an ISR change included).
 */
export interface PartitionRegistration {
  readonly partition: PartitionKey;
  readonly replicas: readonly string[];
  readonly isr: readonly string[];
  readonly leader: string | null;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  /** Set by an unclean election: the leader was not in the ISR (data below its HW may be gone). */
  readonly leaderRecoveryState: "RECOVERED" | "RECOVERING";
}

/**
 * BrokerRegistration's liveness as the controller sees it: `active` (registered, unfenced),
 * `controlled-shutdown` (asked to shut down: leads nothing, in no ISR, still running), `fenced`
 * (its session expired or it stopped: out of every ISR).
 */
export type BrokerLiveness = "active" | "controlled-shutdown" | "fenced";

export interface BrokerRegistration {
  readonly id: string;
  readonly liveness: BrokerLiveness;
}

/**
 * FeaturesImage, reduced to the one feature the transaction protocol reads: the finalized
 * `transaction.version` level and the finalized-features epoch (the metadata offset of the image
 * that last changed it), which ApiVersions answers carry to clients (ApiVersionsResponse's
 * FinalizedFeaturesEpoch: a client keeps the answer with the highest epoch).
 */
export interface FeaturesImage {
  readonly transactionVersion: TransactionVersion;
  readonly epoch: number;
}

/**
 * A metadata image: the cluster's metadata as of one offset of the metadata log. Images are
 * immutable: the controller makes a new one per change and every broker holds the one it last
 * applied, so brokers (and clients that asked them) can be behind.
 */
export interface MetadataImage {
  /** Offset of the last metadata record in this image (0: the bootstrap image). */
  readonly offset: number;
  readonly partitions: ReadonlyMap<PartitionKey, PartitionRegistration>;
  readonly brokers: ReadonlyMap<string, BrokerRegistration>;
  readonly features: FeaturesImage;
}

export function isActive(image: MetadataImage, broker: string): boolean {
  return image.brokers.get(broker)?.liveness === "active";
}

/** The leader of `partition` in this image, or null (unknown partition, or offline). */
export function leaderIn(image: MetadataImage, partition: PartitionKey): string | null {
  return image.partitions.get(partition)?.leader ?? null;
}

/**
 * The partitions whose registration differs between two images, with both versions: what
 * TopicDelta.localChanges walks to find the partitions a broker must become leader or follower of.
 */
export function changedPartitions(
  before: MetadataImage,
  after: MetadataImage,
): { before: PartitionRegistration | null; after: PartitionRegistration }[] {
  const out: { before: PartitionRegistration | null; after: PartitionRegistration }[] = [];
  for (const [key, reg] of after.partitions) {
    const old = before.partitions.get(key) ?? null;
    if (old !== reg) out.push({ before: old, after: reg });
  }
  return out;
}
