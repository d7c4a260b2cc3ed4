import type { LeaderIdAndEpoch } from "./current-leader.js";
import type { AbortedTxn, Isolation, LogBatch } from "./broker/log-batch.js";
import type { PartitionKey } from "./common/types.js";

/**
 * Fetch (v12+ semantics): one request per destination broker covering many partitions, from a
 * follower (replicaId set: reads up to the log end, and its fetch offset acknowledges what it has)
 * or a consumer (replicaId null: reads up to the high watermark, or the last stable offset for
 * read_committed). The broker answers at once when any partition has data, an error or a diverging
 * epoch, else parks the request up to maxWaitMs (fetch purgatory, fetch.min.bytes = 1).
 */
export interface FetchRequest {
  api: "Fetch";
  /** The fetching follower's broker id, or null for a consumer. */
  replicaId: string | null;
  maxWaitMs: number;
  isolation: Isolation;
  partitions: FetchPartition[];
}

export interface FetchPartition {
  partition: PartitionKey;
  fetchOffset: number;
  /** The leader epoch the fetcher believes current (-1: unknown, no check). */
  currentLeaderEpoch: number;
  /** A follower's epoch of its last fetched batch (truncation detection); -1 for consumers. */
  lastFetchedEpoch: number;
  /** Cap on batches returned (a bound of the model, where Kafka caps bytes). */
  maxBatches: number;
}

export interface FetchResponse {
  api: "Fetch";
  errorCode: number;
  partitions: FetchPartitionData[];
}

/** Where a follower's log diverged from the leader's: truncate to at most endOffset (FetchResponse.DivergingEpoch). */
export interface DivergingEpoch {
  epoch: number;
  endOffset: number;
}

export interface FetchPartitionData {
  partition: PartitionKey;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  batches: LogBatch[];
  abortedTransactions: AbortedTxn[];
  divergingEpoch: DivergingEpoch | null;
  /** KIP-951 (v16+): the leader the broker knows, filled with NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH only. */
  currentLeader: LeaderIdAndEpoch;
}

/** Metadata: the answering broker's view (its own metadata image, possibly behind the controller). */
export interface MetadataRequest {
  api: "Metadata";
}

export interface MetadataResponse {
  api: "Metadata";
  errorCode: number;
  /** Offset of the metadata image the broker answered from. */
  imageOffset: number;
  partitions: { partition: PartitionKey; leader: string | null; leaderEpoch: number }[];
}

/** FindCoordinator: the leader of the key's __transaction_state (or, for a group, __consumer_offsets) partition, as the broker sees it. */
export interface FindCoordinatorRequest {
  api: "FindCoordinator";
  key: string;
  /** GROUP: the leader of the group's __consumer_offsets partition (absent: TRANSACTION). */
  keyType?: "GROUP";
}

export interface FindCoordinatorResponse {
  api: "FindCoordinator";
  errorCode: number;
  /** The coordinator's broker id, or null with COORDINATOR_NOT_AVAILABLE. */
  nodeId: string | null;
}
