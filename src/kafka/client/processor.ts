import { ConnectionPool, type RpcResult } from "../../sim/network.js";
import type { LogBatch } from "../broker/log-batch.js";
import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { ClusterContext } from "../cluster-context.js";
import type { FetchPartitionData, FetchRequest } from "../fetch-protocol.js";
import type { KafkaRequest, KafkaResponse } from "../protocol.js";
import type { ClientMetadata } from "./client-metadata.js";
import type { ConsumerCoordinator } from "./consumer-coordinator.js";
import {
  type ConsumedRecord,
  everyErrorUpdated,
  filterReadCommitted,
  namesCurrentLeader,
} from "./read-committed-consumer.js";
import type { LeaderIdAndEpoch } from "../current-leader.js";
import type { ConsumerGroupMetadata } from "./txn-request.js";
import type { ProcessedWork, ProcessingHooks } from "./transactional-producer.js";

export interface ProcessorSettings {
  groupId: string;
  /** Output partition i receives what is read from input partition i modulo the output's size. */
  outputPartitions: readonly PartitionKey[];
  /** Input records per transaction at most. */
  maxRecordsPerTxn: number;
  pollMs: number;
  retryBackoffMs: number;
  requestTimeoutMs: number;
  fetchMaxWaitMs: number;
  /** OffsetFetch with require_stable (KIP-447); off only in a mutant. */
  requireStable: boolean;
  /** Back to the committed offsets after an abort; off only in a mutant. */
  seekToCommittedOnAbort: boolean;
}

/** What one processor transaction read, for the oracle's explanations. */
export interface ProcessedTxn {
  ghostTxn: string;
  processor: string;
  transactionalId: string;
  group: ConsumerGroupMetadata;
  inputs: { partition: PartitionKey; offset: number }[];
  atMs: number;
}

/** An output value names its input record after the usual `${ghostTxn}/${index}`: `q0.t3/0=orders-1@7`. */
export function outputValue(
  ghostTxn: string,
  index: number,
  input: { partition: PartitionKey; offset: number },
): string {
  return `${ghostTxn}/${index}=${input.partition}@${input.offset}`;
}

/** The input record an output value names, or null for any other value. */
export function inputOf(value: string): { partition: PartitionKey; offset: number } | null {
  const m = /=(.+)@(\d+)$/.exec(value);
  return m ? { partition: m[1] as PartitionKey, offset: Number(m[2]) } : null;
}

/** What a processor works with besides the cluster's handles and its name. */
export interface ProcessorOptions {
  readonly transactionalId: string;
  /** Its consumer's metadata. */
  readonly metadata: ClientMetadata;
  readonly settings: ProcessorSettings;
  /** Where it records every transaction it starts (the group's journal, for the oracle's explanations). */
  readonly journal: ProcessedTxn[];
}

/**
 * The consume-transform-produce loop of an exactly-once application (the shape of Kafka Streams'
 * StreamTask with EOS v2, reduced): on each assignment it asks the group coordinator for the
 * committed offsets with require_stable, retrying UNSTABLE_OFFSET_COMMIT (KIP-447), fetches its
 * input partitions read_committed from there, and hands the producer loop one transaction at a
 * time: the transformed records and the next input offsets with the consumer's group metadata
 * (sendOffsetsToTransaction). A transaction that aborted or whose outcome is unknown sends it back
 * to the committed offsets, as an application that closes and re-creates its task does.
 */
export class Processor implements ProcessingHooks {
  /** Bumped on each assignment, revocation and rewind: answers of an older round are ignored. */
  private round = 0;
  /** Where the next fetch of each assigned partition starts; absent until OffsetFetch answered. */
  private readonly fetchPositions = new Map<PartitionKey, number>();
  /** Fetched records not yet processed, per partition, in offset order. */
  private readonly buffered = new Map<PartitionKey, ConsumedRecord[]>();
  private assignment: readonly PartitionKey[] = [];
  private group: ConsumerGroupMetadata | null = null;
  private readonly connections: ConnectionPool<KafkaRequest, KafkaResponse>;
  private readonly processed: ProcessedTxn[];
  /** Set once the processor stops (closed, crashed): nothing is fetched or processed. */
  private stopped = false;
  /** Brokers with a Fetch of this consumer in flight, of any round (nodesWithPendingFetchRequests). */
  private readonly fetching = new Set<string>();
  /** A metadata refresh asked for by the fetcher and not yet answered. */
  private refreshing = false;
  coordinator: ConsumerCoordinator | null = null;

  readonly transactionalId: string;
  private readonly metadata: ClientMetadata;
  private readonly settings: ProcessorSettings;

  constructor(
    private readonly ctx: ClusterContext,
    readonly name: string,
    options: ProcessorOptions,
  ) {
    this.transactionalId = options.transactionalId;
    this.metadata = options.metadata;
    this.settings = options.settings;
    this.connections = new ConnectionPool(ctx.net, `${name}-consumer`);
    this.processed = options.journal;
  }

  get pollMs(): number {
    return this.settings.pollMs;
  }

  stop(): void {
    this.stopped = true;
    this.reset([]);
  }

  // ------------------------------------------------------------------ RebalanceListener

  assigned(group: ConsumerGroupMetadata, partitions: readonly PartitionKey[]): void {
    // Closing gracefully, the loop processes nothing more until its consumer has left.
    if (this.stopped) return;
    this.group = group;
    this.reset(partitions);
    this.fetchCommitted();
  }

  revoked(_reason: string): void {
    this.group = null;
    this.reset([]);
  }

  private reset(partitions: readonly PartitionKey[]): void {
    this.round++;
    this.assignment = [...partitions];
    this.fetchPositions.clear();
    this.buffered.clear();
  }

  // ------------------------------------------------------------------ ProcessingHooks

  next(ghostTxn: string): ProcessedWork | null {
    if (this.stopped || this.group === null || this.coordinator?.state !== "stable") return null;
    const inputs: ConsumedRecord[] = [];
    for (const p of this.assignment) {
      const queue = this.buffered.get(p) ?? [];
      while (queue.length > 0 && inputs.length < this.settings.maxRecordsPerTxn)
        inputs.push(queue.shift() as ConsumedRecord);
    }
    // The poll that drained a buffer sends that partition's next fetch.
    this.fetchAll();
    if (inputs.length === 0) return null;
    const records = inputs.map((r, i) => ({
      partition: this.outputFor(r.partition),
      value: outputValue(ghostTxn, i, r),
    }));
    const last = new Map<PartitionKey, number>();
    for (const r of inputs) last.set(r.partition, r.offset + 1);
    const offsets = [...last].map(([partition, offset]) => ({ partition, offset }));
    this.processed.push({
      ghostTxn,
      processor: this.name,
      transactionalId: this.transactionalId,
      group: this.group,
      inputs: inputs.map((r) => ({ partition: r.partition, offset: r.offset })),
      atMs: this.ctx.sim.nowMs,
    });
    return { records, offsets, group: this.group };
  }

  ended(_ghostTxn: string, outcome: "committed" | "aborted" | "unknown"): void {
    if (outcome === "committed" || this.stopped || !this.settings.seekToCommittedOnAbort) return;
    // Back to the committed offsets: what this transaction read is read again.
    this.reset(this.assignment);
    if (this.group !== null) this.fetchCommitted();
  }

  private outputFor(input: PartitionKey): PartitionKey {
    const index = Number(/-(\d+)$/.exec(input)?.[1] ?? 0);
    const out = this.settings.outputPartitions;
    return out[index % out.length] as PartitionKey;
  }

  // ------------------------------------------------------------------ committed offsets and fetches

  private fetchCommitted(): void {
    const round = this.round;
    const partitions = [...this.assignment];
    if (partitions.length === 0) return;
    const request: KafkaRequest = {
      api: "OffsetFetch",
      groupId: this.settings.groupId,
      partitions,
      requireStable: this.settings.requireStable,
    };
    this.metadata.findGroupCoordinator(this.settings.groupId, (node) => {
      if (round !== this.round) return;
      if (node === null) return this.retryCommitted(round);
      this.ctx.net.request(this.connections.to(node), request, this.settings.requestTimeoutMs, (r) => {
        if (round === this.round) this.onCommitted(round, r);
      });
    });
  }

  private onCommitted(round: number, r: RpcResult<KafkaResponse>): void {
    const body = r.kind === "response" && r.body.api === "OffsetFetch" ? r.body : null;
    const failed = body === null || body.errorCode !== Errors.NONE || body.partitions.some((p) => p.errorCode !== 0);
    if (failed) {
      if (
        body === null ||
        body.errorCode === Errors.NOT_COORDINATOR ||
        body.errorCode === Errors.COORDINATOR_NOT_AVAILABLE
      )
        this.metadata.markGroupCoordinatorUnknown(this.settings.groupId);
      // UNSTABLE_OFFSET_COMMIT: a transaction holds pending offsets; ask again once it completed.
      return this.retryCommitted(round);
    }
    for (const p of body.partitions) {
      this.fetchPositions.set(p.partition, Math.max(0, p.offset));
      this.buffered.set(p.partition, []);
    }
    this.fetchAll();
  }

  private retryCommitted(round: number): void {
    this.ctx.sim.schedule(this.settings.retryBackoffMs, () => {
      if (round === this.round && !this.stopped) this.fetchCommitted();
    });
  }

  /**
   * AbstractFetch.prepareFetchRequests: one read_committed Fetch per leader broker, covering every
   * assigned partition it leads with a known position and nothing left in the buffer, long-polled
   * there; a broker with a fetch in flight gets none (nodesWithPendingFetchRequests), whichever
   * round sent it. Called when positions are known, when a fetch comes back and when the loop has
   * drained a buffer (KafkaConsumer.poll sends fetches on each poll).
   */
  private fetchAll(): void {
    if (this.stopped) return;
    const byLeader = new Map<string, PartitionKey[]>();
    let leaderUnknown = false;
    for (const partition of this.assignment) {
      if (!this.fetchPositions.has(partition) || (this.buffered.get(partition)?.length ?? 0) > 0) continue;
      const leader = this.metadata.leaderOf(partition)?.leader ?? null;
      if (leader === null) {
        leaderUnknown = true;
        continue;
      }
      if (this.fetching.has(leader)) continue;
      const list = byLeader.get(leader) ?? [];
      list.push(partition);
      byLeader.set(leader, list);
    }
    for (const [broker, partitions] of byLeader) this.fetchFrom(broker, partitions);
    if (leaderUnknown) this.refreshThenFetch();
  }

  private fetchFrom(broker: string, partitions: readonly PartitionKey[]): void {
    const round = this.round;
    this.fetching.add(broker);
    const request: FetchRequest = {
      api: "Fetch",
      replicaId: null,
      maxWaitMs: this.settings.fetchMaxWaitMs,
      isolation: "READ_COMMITTED",
      partitions: partitions.map((partition) => ({
        partition,
        fetchOffset: this.fetchPositions.get(partition) ?? 0,
        currentLeaderEpoch: this.metadata.leaderOf(partition)?.leaderEpoch ?? -1,
        lastFetchedEpoch: -1,
        maxBatches: this.settings.maxRecordsPerTxn,
      })),
    };
    const timeoutMs = this.settings.requestTimeoutMs + this.settings.fetchMaxWaitMs;
    this.ctx.net.request(this.connections.to(broker), request, timeoutMs, (r) => {
      this.fetching.delete(broker);
      if (this.stopped) return;
      // An answer to an older round is dropped whole: the positions it was asked at are gone.
      let refresh = r.kind !== "response";
      const body = round === this.round && r.kind === "response" && r.body.api === "Fetch" ? r.body : null;
      // AbstractFetch.handleFetchSuccess (KIP-951): leaders named by the errors, taken after every answer.
      const partitionsWithUpdatedLeaderInfo = new Map<PartitionKey, LeaderIdAndEpoch>();
      for (const data of body?.partitions ?? []) {
        if (namesCurrentLeader(data)) partitionsWithUpdatedLeaderInfo.set(data.partition, data.currentLeader);
        refresh = this.take(request, data) || refresh;
      }
      const updated = this.metadata.updatePartitionLeadership(partitionsWithUpdatedLeaderInfo);
      if (refresh) this.refreshThenFetch();
      // With every erring partition's new leader known, the next fetch need not wait for the refresh.
      if (!refresh || (body !== null && everyErrorUpdated(body.partitions, updated))) this.fetchAll();
    });
  }

  /** One partition's answer into its buffer; true when the metadata must be refreshed. */
  private take(request: FetchRequest, data: FetchPartitionData): boolean {
    if (data.errorCode !== Errors.NONE) return true;
    const asked = request.partitions.find((p) => p.partition === data.partition);
    // FetchCollector drops an answer whose fetch offset is no longer the position.
    if (!asked || this.fetchPositions.get(data.partition) !== asked.fetchOffset || data.batches.length === 0)
      return false;
    // A batch may start below the position (whole batches come back): CompletedFetch skips those records.
    const records = filterReadCommitted(data.partition, data.batches, data.abortedTransactions).filter(
      (r) => r.offset >= asked.fetchOffset,
    );
    (this.buffered.get(data.partition) as ConsumedRecord[]).push(...records);
    this.fetchPositions.set(data.partition, (data.batches[data.batches.length - 1] as LogBatch).lastOffset + 1);
    return false;
  }

  /** Metadata.requestUpdate, once at a time, then fetch again. */
  private refreshThenFetch(): void {
    if (this.refreshing) return;
    this.refreshing = true;
    this.metadata.requestUpdate(() => {
      this.refreshing = false;
      this.fetchAll();
    });
  }
}
