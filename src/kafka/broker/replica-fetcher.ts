import type { Connection, Network, RpcResult } from "../../sim/network.js";
import type { Simulation } from "../../sim/simulation.js";
import type { KafkaEvents } from "../trace-events.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { FetchPartition, FetchPartitionData, FetchRequest } from "../fetch-protocol.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import { UNDEFINED_EPOCH } from "./leader-epoch-cache.js";
import type { Partition } from "./partition.js";
import type { LogBatch } from "./log-batch.js";
import { MAX_FETCH_BATCHES, type ReplicationConfig } from "./replica-manager.js";

/** A fetched partition's state in its fetcher (PartitionFetchState). */
interface FetchState {
  partition: Partition;
  /** The leader epoch the follower fetches under (the leader answers FENCED_LEADER_EPOCH to older ones). */
  leaderEpoch: number;
  /** Not fetched before this time (backoff after a partition error). */
  delayedUntilMs: number;
}

/** What a fetcher reports of a truncation (the oracle's feed: the batches a follower lost). */
export type TruncationListener = (partition: Partition, offset: number, removed: readonly LogBatch[]) => void;

/** How a follower takes what it fetched (ReplicaManager.appendAsFollower). */
export type FollowerAppend = (partition: Partition, batches: readonly LogBatch[], leaderHighWatermark: number) => void;

/** Who fetches from whom, and what the fetcher does with the answers. */
export interface ReplicaFetcherOptions {
  readonly brokerId: string;
  readonly leader: string;
  readonly config: ReplicationConfig;
  readonly append: FollowerAppend;
  readonly onTruncate: TruncationListener;
}

/**
 * ReplicaFetcherThread (AbstractFetcherThread): one per leader this broker follows partitions of.
 * One Fetch in flight covering every followed partition of that leader, sent again as soon as the
 * previous answer is processed (the leader long-polls it); the fetch offset is the follower's log
 * end and acknowledges what it holds. A diverging epoch truncates the log (truncateOnFetchResponse);
 * batches of an epoch newer than the one fetched under are not taken (KAFKA-18723).
 */
export class ReplicaFetcher {
  private readonly fetched = new Map<PartitionKey, FetchState>();
  private connection: Connection | null = null;
  /** The fetch in flight (one at a time: the next is sent when its answer is processed). */
  private inFlight: FetchRequest | null = null;
  private wakeTimerSet = false;
  private stopped = false;

  readonly brokerId: string;
  readonly leader: string;
  private readonly config: ReplicationConfig;
  private readonly append: FollowerAppend;
  private readonly onTruncate: TruncationListener;

  constructor(
    private readonly sim: Simulation<KafkaEvents>,
    private readonly net: Network<KafkaRequest, KafkaResponse>,
    options: ReplicaFetcherOptions,
  ) {
    this.brokerId = options.brokerId;
    this.leader = options.leader;
    this.config = options.config;
    this.append = options.append;
    this.onTruncate = options.onTruncate;
  }

  get partitionCount(): number {
    return this.fetched.size;
  }

  /** Fetch `partition` from this leader under `leaderEpoch` (replacing an older epoch). */
  add(partition: Partition, leaderEpoch: number): void {
    this.fetched.set(partition.key, { partition, leaderEpoch, delayedUntilMs: 0 });
    this.maybeFetch();
  }

  remove(key: PartitionKey): void {
    this.fetched.delete(key);
  }

  stop(): void {
    this.stopped = true;
  }

  private maybeFetch(): void {
    if (this.stopped || this.inFlight !== null || this.fetched.size === 0) return;
    const now = this.sim.nowMs;
    const partitions: FetchPartition[] = [];
    let nextReadyMs = Number.POSITIVE_INFINITY;
    for (const state of this.fetched.values()) {
      if (state.delayedUntilMs > now) nextReadyMs = Math.min(nextReadyMs, state.delayedUntilMs);
      else partitions.push(fetchPartitionOf(state));
    }
    if (partitions.length === 0) return this.wakeAt(nextReadyMs);
    this.connection = this.connection?.open ? this.connection : this.net.connect(this.brokerId, this.leader);
    const request: FetchRequest = {
      api: "Fetch",
      replicaId: this.brokerId,
      maxWaitMs: this.config.replicaFetchWaitMaxMs,
      isolation: "READ_UNCOMMITTED",
      partitions,
    };
    this.inFlight = request;
    // A parked fetch may wait maxWaitMs at the leader: the request times out only after that.
    const timeoutMs = this.config.requestTimeoutMs + this.config.replicaFetchWaitMaxMs;
    this.net.request(this.connection, request, timeoutMs, this.onFetchResult);
  }

  private wakeAt(timeMs: number): void {
    if (this.wakeTimerSet || !Number.isFinite(timeMs)) return;
    this.wakeTimerSet = true;
    this.sim.scheduleAt(timeMs, () => {
      this.wakeTimerSet = false;
      this.maybeFetch();
    });
  }

  /** The answer to the fetch in flight (bound once: no closure per fetch). */
  private readonly onFetchResult = (result: RpcResult<KafkaResponse>): void =>
    this.onResult(result, this.inFlight as FetchRequest);

  /** The leader answers the partitions in the order asked (FetchResponse mirrors FetchRequest). */
  private onResult(result: RpcResult<KafkaResponse>, request: FetchRequest): void {
    this.inFlight = null;
    if (this.stopped) return;
    if (result.kind !== "response" || result.body.api !== "Fetch") {
      // A broken connection: back off (replica.fetch.backoff.ms) and fetch again.
      this.connection = null;
      for (const state of this.fetched.values())
        state.delayedUntilMs = this.sim.nowMs + this.config.replicaFetchBackoffMs;
      return this.maybeFetch();
    }
    const partitions = result.body.partitions;
    for (let i = 0; i < partitions.length; i++) {
      const data = partitions[i] as FetchPartitionData;
      const state = this.fetched.get(data.partition);
      // Removed, or re-added under another epoch, while the fetch travelled: its answer is stale.
      if (!state || state.leaderEpoch !== request.partitions[i]?.currentLeaderEpoch) continue;
      this.processPartition(state, data);
    }
    this.maybeFetch();
  }

  private processPartition(state: FetchState, data: FetchPartitionData): void {
    const { partition } = state;
    if (data.errorCode !== Errors.NONE) {
      // NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH: wait for metadata to move on.
      state.delayedUntilMs = this.sim.nowMs + this.config.replicaFetchBackoffMs;
      return;
    }
    if (data.divergingEpoch !== null) return this.truncate(partition, data.divergingEpoch);
    this.append(partition, batchesUpToEpoch(data.batches, state.leaderEpoch), data.highWatermark);
  }

  /**
   * truncateOnFetchResponse: where the leader says the follower's last epoch ended. When the follower
   * knows the same epoch it truncates to the earlier of both ends; when it only knows an older one,
   * to that one's end (a further round of fetching narrows it down).
   */
  private truncate(partition: Partition, diverging: { epoch: number; endOffset: number }): void {
    const log = partition.log;
    let offset: number;
    if (diverging.epoch === UNDEFINED_EPOCH) offset = Math.min(log.highWatermark, log.logEndOffset);
    else {
      const own = log.leaderEpochCache.endOffsetFor(diverging.epoch, log.logEndOffset);
      offset = own.epoch === diverging.epoch ? Math.min(diverging.endOffset, own.startOffset) : own.startOffset;
      if (own.epoch === UNDEFINED_EPOCH) offset = Math.min(diverging.endOffset, log.logEndOffset);
    }
    const before = log.logEndOffset;
    const removed = log.truncateTo(offset);
    this.sim.emit(this.brokerId, "replica.truncate", {
      partition: partition.key,
      from: before,
      to: log.logEndOffset,
      epoch: diverging.epoch,
      batches: removed.length,
    });
    this.onTruncate(partition, log.logEndOffset, removed);
  }
}

/** What the follower asks of one partition: from its log end, under its epoch, with its last fetched epoch. */
function fetchPartitionOf({ partition, leaderEpoch }: FetchState): FetchPartition {
  return {
    partition: partition.key,
    fetchOffset: partition.log.logEndOffset,
    currentLeaderEpoch: leaderEpoch,
    lastFetchedEpoch: partition.log.leaderEpochCache.latestEpoch,
    maxBatches: MAX_FETCH_BATCHES,
  };
}

/** The batches before the first of an epoch newer than `leaderEpoch` (all of them, as a rule: no copy then). */
function batchesUpToEpoch(batches: readonly LogBatch[], leaderEpoch: number): readonly LogBatch[] {
  for (let i = 0; i < batches.length; i++)
    if (((batches[i] as LogBatch).partitionLeaderEpoch ?? 0) > leaderEpoch) return batches.slice(0, i);
  return batches;
}
