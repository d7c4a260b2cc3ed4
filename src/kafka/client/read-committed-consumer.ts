import type { Stream } from "../../sim/choice-tape.js";
import { BoundExceeded } from "../../sim/bounds.js";
import { ConnectionPool } from "../../sim/network.js";
import type { PartitionLog } from "../broker/partition-log.js";
import type { AbortedTxn, LogBatch } from "../broker/log-batch.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { FetchPartitionData, FetchRequest } from "../fetch-protocol.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import type { ClientMetadata } from "./client-metadata.js";
import { hasCurrentLeader, type LeaderIdAndEpoch } from "../current-leader.js";

export interface ConsumedRecord {
  partition: PartitionKey;
  offset: number;
  value: string;
  producerId: number;
  ghostTxn: string | null;
}

/** How a consumer reads: Kafka's read_committed, or as one of the consumer mutants does. */
export interface ConsumerReadMode {
  /** Skip the data of aborted transactions (the consumer-ignores-aborted-index mutant does not). */
  readonly filterAborted: boolean;
  /** Read up to the high watermark instead of the last stable offset (the consumer-reads-past-lso mutant). */
  readonly readUncommittedBound: boolean;
}

/** Kafka's read_committed. */
export const READ_COMMITTED: ConsumerReadMode = { filterAborted: true, readUncommittedBound: false };

/**
 * CompletedFetch with READ_COMMITTED: aborted transactions whose first offset is at or below a
 * batch's last offset mark that producer as aborted; an ABORT control batch clears it; data batches
 * of aborted producers are skipped; control batches are never returned. The broker never filters.
 */
export function filterReadCommitted(
  partition: PartitionKey,
  batches: readonly LogBatch[],
  abortedTransactions: readonly AbortedTxn[],
  mode: Pick<ConsumerReadMode, "filterAborted"> = READ_COMMITTED,
): ConsumedRecord[] {
  const filterAborted = mode.filterAborted;
  const aborted = [...abortedTransactions].sort((a, b) => a.firstOffset - b.firstOffset);
  const abortedProducers = new Set<number>();
  let next = 0;
  const out: ConsumedRecord[] = [];
  for (const batch of batches) {
    if (batch.isTransactional && filterAborted) {
      while (next < aborted.length && (aborted[next] as AbortedTxn).firstOffset <= batch.lastOffset) {
        abortedProducers.add((aborted[next] as AbortedTxn).producerId);
        next++;
      }
      if (batch.control) {
        if (batch.control.type === "ABORT") abortedProducers.delete(batch.producerId);
        continue;
      }
      if (abortedProducers.has(batch.producerId)) continue;
    }
    if (batch.control) continue;
    batch.values.forEach((value, i) => {
      out.push({
        partition,
        offset: batch.baseOffset + i,
        value,
        producerId: batch.producerId,
        ghostTxn: batch.ghostTxn,
      });
    });
  }
  return out;
}

/** One Fetch from offset 0 with no batch limit, filtered as CompletedFetch does. */
export function readPartition(
  log: PartitionLog,
  mode: ConsumerReadMode = READ_COMMITTED,
): { records: ConsumedRecord[]; readBound: number } {
  const isolation = mode.readUncommittedBound ? "READ_UNCOMMITTED" : "READ_COMMITTED";
  const read = log.read(0, isolation, Number.MAX_SAFE_INTEGER);
  return {
    records: filterReadCommitted(log.partition, read.batches, read.abortedTransactions, mode),
    readBound: read.upperBound,
  };
}

/** A record as a consumer saw it during the run, with the virtual time of the poll. */
export interface Observation extends ConsumedRecord {
  atMs: number;
}

/** Bound on observations kept per consumer (a run that reads more is too big to check). */
const MAX_OBSERVATIONS = 200_000;

/** A choice that seeded runs always take (ppm 1e6) but a shrunk tape can turn off (option 0). */
const ALWAYS = 1_000_000;

/** The consumer's fetch settings (Kafka's config names). */
export interface ConsumerFetchConfig {
  /** fetch.max.wait.ms: how long a broker parks a fetch with nothing to return. */
  fetchMaxWaitMs: number;
  requestTimeoutMs: number;
  /** retry.backoff.ms after an error or a failed fetch. */
  retryBackoffMs: number;
  /** Batches per partition per fetch (the model bounds batches where Kafka bounds bytes). */
  maxBatchesPerPartition: number;
}

/** What a consumer reads, through which metadata, and how. */
export interface ReadCommittedConsumerOptions {
  /** The partitions it is assigned (all of them, from offset 0). */
  readonly partitions: readonly PartitionKey[];
  readonly metadata: ClientMetadata;
  readonly config: ConsumerFetchConfig;
  readonly mode: ConsumerReadMode;
}

/**
 * A read_committed consumer (KafkaConsumer's fetcher, AbstractFetch): one Fetch in flight per
 * leader broker, covering every assigned partition that broker leads as far as the consumer knows,
 * long-polled there (fetch.max.wait.ms); the next fetch to that broker goes out when the answer is
 * in. A partition error (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH) refreshes the metadata; when the
 * answer named a newer leader for each such partition (KIP-951) the next fetch goes to it at once. It
 * records what it saw and when (for the premature-read check).
 */
export class ReadCommittedConsumer {
  private readonly positions = new Map<PartitionKey, number>();
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  readonly observations: Observation[] = [];
  private stopped = false;
  private readonly pollStream: Stream;
  /** Brokers with a fetch in flight (or a retry scheduled). */
  private readonly busy = new Set<string>();

  private readonly partitions: readonly PartitionKey[];
  private readonly metadata: ClientMetadata;
  private readonly config: ConsumerFetchConfig;
  private readonly mode: ConsumerReadMode;

  constructor(
    private readonly ctx: ClusterContext,
    readonly name: string,
    options: ReadCommittedConsumerOptions,
  ) {
    const { partitions } = options;
    this.partitions = partitions;
    this.metadata = options.metadata;
    this.config = options.config;
    this.mode = options.mode;
    for (const p of partitions) this.positions.set(p, 0);
    this.connections = new ConnectionPool(ctx.net, name);
    this.pollStream = ctx.choices.stream(`consumer:${name}`);
  }

  start(): void {
    this.fetchAll();
  }

  stop(): void {
    this.stopped = true;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /**
   * The oracle's final read (after the quiet period): everything this consumer's Fetch would return
   * from offset 0, read straight from the leader's log instead of through the network.
   */
  readAll(log: PartitionLog): { records: ConsumedRecord[]; readBound: number } {
    return readPartition(log, this.mode);
  }

  /** Send a fetch to every leader that has none in flight. */
  private fetchAll(): void {
    const byLeader = new Map<string, PartitionKey[]>();
    for (const p of this.partitions) {
      const leader = this.metadata.leaderOf(p)?.leader ?? null;
      if (leader === null || this.busy.has(leader)) continue;
      const list = byLeader.get(leader) ?? [];
      list.push(p);
      byLeader.set(leader, list);
    }
    for (const [broker, partitions] of byLeader) this.fetchFrom(broker, partitions);
  }

  private fetchFrom(broker: string, partitions: readonly PartitionKey[]): void {
    // Always true in seeded runs; a shrunk tape that ends here stops the fetching.
    if (this.stopped || !this.pollStream.chance(ALWAYS)) return;
    this.busy.add(broker);
    const request: FetchRequest = {
      api: "Fetch",
      replicaId: null,
      maxWaitMs: this.config.fetchMaxWaitMs,
      isolation: this.mode.readUncommittedBound ? "READ_UNCOMMITTED" : "READ_COMMITTED",
      partitions: partitions.map((partition) => ({
        partition,
        fetchOffset: this.positions.get(partition) ?? 0,
        currentLeaderEpoch: this.metadata.leaderOf(partition)?.leaderEpoch ?? -1,
        lastFetchedEpoch: -1,
        maxBatches: this.config.maxBatchesPerPartition,
      })),
    };
    const timeoutMs = this.config.requestTimeoutMs + this.config.fetchMaxWaitMs;
    this.ctx.net.request(this.connections.to(broker), request, timeoutMs, (r) => {
      let refresh = r.kind !== "response";
      // AbstractFetch.handleFetchSuccess (KIP-951): the leaders named by NOT_LEADER_OR_FOLLOWER and
      // FENCED_LEADER_EPOCH, taken after every partition's answer; each erring partition still
      // asks for a refresh (FetchCollector.handleInitializeErrors).
      const partitionsWithUpdatedLeaderInfo = new Map<PartitionKey, LeaderIdAndEpoch>();
      if (r.kind === "response" && r.body.api === "Fetch") {
        for (const data of r.body.partitions) {
          if (namesCurrentLeader(data)) partitionsWithUpdatedLeaderInfo.set(data.partition, data.currentLeader);
          refresh = this.take(request, data) || refresh;
        }
      }
      const updated = this.metadata.updatePartitionLeadership(partitionsWithUpdatedLeaderInfo);
      if (!refresh) return this.afterFetch(broker);
      // Every partition that erred has its new leader: fetch from it now, the refresh runs alongside.
      // Otherwise the model waits for the refresh before this broker's next fetch (the partitions
      // that did learn a new leader go to it now).
      if (r.kind === "response" && r.body.api === "Fetch" && everyErrorUpdated(r.body.partitions, updated)) {
        this.metadata.requestUpdate(() => this.fetchAll());
        return this.afterFetch(broker);
      }
      this.metadata.requestUpdate(() => this.afterFetch(broker));
      if (updated.length > 0) this.fetchAll();
    });
  }

  private afterFetch(broker: string): void {
    this.busy.delete(broker);
    this.fetchAll();
  }

  /** One partition's answer: records observed, the position moved; true when metadata must be refreshed. */
  private take(request: FetchRequest, data: FetchPartitionData): boolean {
    if (data.errorCode !== Errors.NONE) return true;
    const asked = request.partitions.find((p) => p.partition === data.partition);
    if (!asked || this.positions.get(data.partition) !== asked.fetchOffset || data.batches.length === 0) return false;
    const records = filterReadCommitted(data.partition, data.batches, data.abortedTransactions, this.mode);
    const atMs = this.ctx.sim.nowMs;
    for (const r of records) {
      // A consumer that silently forgot what it read would make the client checks wrong: a bound, reported.
      if (this.observations.length >= MAX_OBSERVATIONS)
        throw new BoundExceeded(`records observed by ${this.name}`, MAX_OBSERVATIONS);
      this.observations.push({
        partition: r.partition,
        offset: r.offset,
        value: r.value,
        producerId: r.producerId,
        ghostTxn: r.ghostTxn,
        atMs,
      });
    }
    const last = data.batches[data.batches.length - 1] as LogBatch;
    this.positions.set(data.partition, last.lastOffset + 1);
    if (records.length > 0)
      this.ctx.sim.emit(this.name, "consumer.poll", {
        partition: data.partition,
        records: records.length,
        upTo: last.lastOffset,
      });
    return false;
  }
}

/** A partition answer whose error names the partition's current leader (AbstractFetch.handleFetchSuccess's test). */
export function namesCurrentLeader(data: FetchPartitionData): boolean {
  const named = data.errorCode === Errors.NOT_LEADER_OR_FOLLOWER || data.errorCode === Errors.FENCED_LEADER_EPOCH;
  return named && hasCurrentLeader(data.currentLeader);
}

/** Every partition answered with an error got a newer leader from the answer. */
export function everyErrorUpdated(
  partitions: readonly FetchPartitionData[],
  updated: readonly PartitionKey[],
): boolean {
  return partitions.every((data) => data.errorCode === Errors.NONE || updated.includes(data.partition));
}
