import type { InboundRequest } from "../../sim/network.js";
import type { ClusterContext } from "../cluster-context.js";
import { Errors } from "../common/errors.js";
import type { IdSequence } from "../common/id-sequence.js";
import type { PartitionKey, TransactionResult } from "../common/types.js";
import type { ProducerIdManager } from "../coordinator/transaction-coordinator.js";
import { TransactionCoordinator } from "../coordinator/transaction-coordinator.js";
import type { TxnTransitMetadata } from "../coordinator/transaction-metadata.js";
import { coordinatorErrorFor } from "../coordinator/transaction-state-manager.js";
import {
  isTransactionStatePartition,
  TRANSACTION_STATE_TOPIC,
  transactionStatePartitionFor,
  transactionStatePartitionKey,
} from "../coordinator/transaction-partitioning.js";
import { GroupCoordinator, type GroupCoordinatorSettings } from "../coordinator/group/group-coordinator.js";
import type { GroupCoordinatorShard } from "../coordinator/group/group-coordinator-shard.js";
import {
  CONSUMER_OFFSETS_TOPIC,
  consumerOffsetsPartitionKey,
  isConsumerOffsetsPartition,
} from "../coordinator/group/group-partitioning.js";
import type { FindCoordinatorRequest } from "../fetch-protocol.js";
import type { GroupRequest } from "../group-protocol.js";
import type { MarkerOutcome } from "../ghost.js";
import { changedPartitions, isActive, type MetadataImage } from "../metadata/metadata-image.js";
import type { KafkaRequest, KafkaResponse, ProduceRequest, WriteTxnMarkersRequest } from "../protocol.js";
import type { ReleaseName, ReleaseProfile } from "../release.js";
import { ByteReader, WireFormatError } from "../wire/byte-buffer.js";
import {
  encodeWriteTxnMarkersResponse,
  readRequestHeader,
  readWriteTxnMarkersRequestBody,
  WRITE_TXN_MARKERS_API_KEY,
  type WritableTxnMarker,
  type WritableTxnMarkerResult,
} from "../wire/write-txn-markers.js";
import { AddPartitionsToTxnManager, produceErrorForVerification } from "./add-partitions-to-txn-manager.js";
import type { PartitionConfig } from "./partition.js";
import type { LogBatch, MarkerAppendResult, MarkerEpochRule, MarkerInput, PartitionLog } from "./partition-log.js";
import { PartitionLog as Log } from "./partition-log.js";
import { ReplicaFetcher } from "./replica-fetcher.js";
import { type AlterPartitionChannel, ReplicaManager, type ReplicationConfig } from "./replica-manager.js";

type Inbound = InboundRequest<KafkaRequest, KafkaResponse>;

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

/** The components of one running broker process; a restart makes new ones over the same logs. */
interface BrokerProcess {
  readonly replicas: ReplicaManager;
  readonly coordinator: TransactionCoordinator;
  readonly verifier: AddPartitionsToTxnManager;
  readonly fetchers: Map<string, ReplicaFetcher>;
  /** The group coordinator (null in a cluster without __consumer_offsets). */
  readonly groups: GroupCoordinator | null;
  stopped: boolean;
}

/**
 * A Kafka broker: KafkaApis over its ReplicaManager (the partitions it holds a replica of, leader or
 * follower), its transaction coordinator (for the __transaction_state partitions it leads), its
 * replica fetchers and its AddPartitionsToTxnManager, all acting on its own metadata image, which
 * follows the controller's after a delay. Its logs outlive its processes: a crash or a restart
 * keeps them (assumed flushed, see the model limits), and everything else starts anew.
 */
export class KafkaBroker {
  readonly logs = new Map<PartitionKey, PartitionLog>();
  private release: ReleaseProfile;
  private image: MetadataImage;
  private process: BrokerProcess | null = null;

  constructor(
    private readonly ctx: ClusterContext,
    readonly id: string,
    release: ReleaseProfile,
    private readonly partitionConfigs: ReadonlyMap<PartitionKey, PartitionConfig>,
    image: MetadataImage,
    private readonly shared: BrokerShared,
  ) {
    this.release = release;
    this.image = image;
    // Batches carry timestamps only when producer state can expire (producer.id.expiration.ms set).
    const expiration = ctx.config.producerIdExpiration;
    const timing = expiration ? { clock: () => ctx.sim.nowMs, producerIdExpirationMs: expiration.expirationMs } : {};
    for (const key of partitionConfigs.keys()) {
      const observer = ctx.logObservers?.forReplica(id, key, () => this.release.name) ?? null;
      this.logs.set(key, new Log(key, () => this.release.flags, { ...timing, observer }));
    }
    ctx.net.registerServer(id, (request) => this.handle(request));
  }

  get releaseName(): ReleaseName {
    return this.release.name;
  }

  get profile(): ReleaseProfile {
    return this.release;
  }

  get nowMs(): number {
    return this.ctx.sim.nowMs;
  }

  get isRunning(): boolean {
    return this.process !== null;
  }

  get metadataImage(): MetadataImage {
    return this.image;
  }

  /** The running process's replica manager (null while stopped). */
  get replicaManager(): ReplicaManager | null {
    return this.process?.replicas ?? null;
  }

  get coordinator(): TransactionCoordinator | null {
    return this.process?.coordinator ?? null;
  }

  /** The group coordinator shard of __consumer_offsets-`index` if this broker runs and serves it (the final checks). */
  groupShard(index: number): GroupCoordinatorShard | null {
    const lookup = this.process?.groups?.shardFor(index);
    return lookup?.kind === "ok" ? lookup.shard : null;
  }

  // ------------------------------------------------------------------ lifecycle

  /** Start a process on the current metadata image: every replica takes its role from it. */
  /** The cluster's group settings with this release's switches (KIP-447's generation check; the marker's TransactionVersion). */
  private groupSettings(settings: GroupCoordinatorSettings): GroupCoordinatorSettings {
    const flags = this.release.flags;
    const check = settings.options.txnOffsetCommitGenerationCheck && flags.txnOffsetCommitGenerationCheck;
    const tv = settings.options.markerTransactionVersionReachesLog && flags.groupCoordinatorPassesTransactionVersion;
    return {
      ...settings,
      options: {
        ...settings.options,
        txnOffsetCommitGenerationCheck: check,
        markerTransactionVersionReachesLog: tv,
        pendingOffsetsKeepRejectedPartitions: flags.pendingOffsetsKeepRejectedPartitions,
      },
    };
  }

  start(image: MetadataImage): void {
    if (this.process) throw new Error(`${this.id} is already running`);
    this.image = image;
    const process: BrokerProcess = {
      replicas: null as unknown as ReplicaManager,
      coordinator: null as unknown as TransactionCoordinator,
      verifier: null as unknown as AddPartitionsToTxnManager,
      fetchers: new Map(),
      groups: this.shared.groupCoordinator
        ? new GroupCoordinator(this.groupSettings(this.shared.groupCoordinator))
        : null,
      stopped: false,
    };
    const stopped = () => process.stopped;
    const config = this.ctx.config;
    const replicas = new ReplicaManager(
      this.ctx.sim,
      this.id,
      this.logs,
      this.partitionConfigs,
      () => this.image,
      this.shared.controller,
      { replicaLagTimeMaxMs: config.replicaLagTimeMaxMs },
    );
    const coordinator = new TransactionCoordinator(
      this.ctx,
      this.id,
      this.release,
      {
        log: {
          append: (partition, transactionalId, record, timeoutMs, onDone) =>
            this.appendTxnRecord(replicas, partition, transactionalId, record, timeoutMs, onDone),
          read: (partition) => this.logs.get(transactionStatePartitionKey(partition))?.batches ?? [],
        },
        leaderOf: (p) => this.leaderOf(p),
        stopped,
        finalizedTransactionVersion: () => this.image.features.transactionVersion,
      },
      this.shared.transactionStatePartitions,
      this.shared.producerIds,
      this.shared.markerIds,
    );
    const verifier = new AddPartitionsToTxnManager(
      this.ctx,
      this.id,
      (id) => this.coordinatorOf(id),
      stopped,
      config.requestTimeoutMs,
    );
    Object.assign(process, { replicas, coordinator, verifier });
    this.process = process;
    if (config.producerIdExpiration) this.scheduleProducerExpiration(process, config.producerIdExpiration);
    this.ctx.sim.emit(this.id, "broker.start", { release: this.release.name, imageOffset: image.offset });
    this.applyChanges(
      changedPartitions({ offset: -1, partitions: new Map(), brokers: new Map(), features: image.features }, image),
    );
    if (process.groups) this.scheduleGroupTimers(process, process.groups);
  }

  /**
   * UnifiedLog's PeriodicProducerExpirationCheck, every producer.id.expiration.check.interval.ms
   * from the process start, over every replica this broker holds (leaders and followers alike).
   */
  private scheduleProducerExpiration(
    process: BrokerProcess,
    expiration: { expirationMs: number; checkIntervalMs: number },
  ): void {
    this.ctx.sim.schedule(expiration.checkIntervalMs, () => {
      if (process.stopped) return;
      for (const [key, log] of this.logs) {
        const removed = log.removeExpiredProducers(expiration.expirationMs);
        if (removed.length > 0)
          this.ctx.sim.emit(this.id, "psm.expire", { partition: key, producers: removed.join(",") });
      }
      this.scheduleProducerExpiration(process, expiration);
    });
  }

  /** The group coordinator's heartbeat and rebalance timers, every half session timeout while the process lives. */
  private scheduleGroupTimers(process: BrokerProcess, groups: GroupCoordinator): void {
    const period = Math.max(1, Math.floor(groups.settings.group.sessionTimeoutMs / 2));
    this.ctx.sim.schedule(period, () => {
      if (process.stopped) return;
      for (const { groupId, removed } of groups.tick(this.nowMs))
        this.ctx.sim.emit(this.id, "group.members-expired", { group: groupId, members: removed.join(",") });
      this.scheduleGroupTimers(process, groups);
    });
  }

  /** The process stops (crash or shutdown): timers die, connections reset; the logs stay. */
  stop(reason: string): void {
    const process = this.process;
    if (!process) return;
    process.stopped = true;
    process.replicas.stop();
    // What lives in the broker's memory only goes with the process (the logs stay on disk).
    for (const log of this.logs.values()) log.onBrokerStop(reason !== "crash");
    for (const f of process.fetchers.values()) f.stop();
    this.process = null;
    this.ctx.net.nodeDown(this.id, reason);
    this.ctx.sim.emit(this.id, "broker.stop", { reason });
  }

  /** Restart on `release` (the same one, or an upgrade): a new process over the same logs. */
  restart(release: ReleaseProfile, image: MetadataImage): void {
    if (this.process) this.stop("restart");
    if (release.name !== this.release.name)
      this.ctx.sim.emit(this.id, "broker.upgrade", { from: this.release.name, to: release.name });
    this.release = release;
    this.ctx.net.nodeUp(this.id);
    this.start(image);
  }

  // ------------------------------------------------------------------ metadata

  /** A newer metadata image reached this broker (BrokerMetadataPublisher.onMetadataUpdate). */
  onMetadataUpdate(image: MetadataImage): void {
    if (image.offset <= this.image.offset) return;
    const before = this.image;
    this.image = image;
    if (this.process) this.applyChanges(changedPartitions(before, image));
  }

  /**
   * The replica manager first (roles change, parked work of lost leadership completes), then the
   * fetchers, then the transaction coordinator (onElection / onResignation), in Kafka's order.
   */
  private applyChanges(changes: ReturnType<typeof changedPartitions>): void {
    const process = this.process as BrokerProcess;
    const delta = process.replicas.applyDelta(changes);
    this.updateFetchers(process);
    for (const reg of delta.becameLeader)
      if (isTransactionStatePartition(reg.partition))
        process.coordinator.onElection(txnIndex(reg.partition), reg.leaderEpoch);
    for (const reg of delta.becameFollower)
      if (isTransactionStatePartition(reg.partition))
        process.coordinator.onResignation(txnIndex(reg.partition), reg.leaderEpoch);
    if (process.groups) this.applyGroupChanges(process.groups, delta);
  }

  /** GroupCoordinatorService.onElection / onResignation for the __consumer_offsets partitions. */
  private applyGroupChanges(groups: GroupCoordinator, delta: ReturnType<ReplicaManager["applyDelta"]>): void {
    for (const reg of delta.becameLeader) {
      if (!isConsumerOffsetsPartition(reg.partition)) continue;
      const index = offsetsIndex(reg.partition);
      groups.onElection(index, reg.leaderEpoch, this.logs.get(reg.partition) as PartitionLog);
      const shard = groups.shardFor(index);
      this.ctx.sim.emit(this.id, "group.loaded", {
        partition: index,
        leaderEpoch: reg.leaderEpoch,
        groups: shard.kind === "ok" ? shard.shard.groups.size : 0,
      });
    }
    for (const reg of delta.becameFollower)
      if (isConsumerOffsetsPartition(reg.partition)) groups.onResignation(offsetsIndex(reg.partition), reg.leaderEpoch);
  }

  /** ReplicaFetcherManager: one fetcher per leader, fetching exactly what this broker follows of it. */
  private updateFetchers(process: BrokerProcess): void {
    const followed = process.replicas.followedByLeader();
    for (const [leader, fetcher] of process.fetchers) {
      const now = new Set((followed.get(leader) ?? []).map((p) => p.key));
      for (const key of [...this.logs.keys()]) if (!now.has(key)) fetcher.remove(key);
    }
    for (const [leader, partitions] of followed) {
      let fetcher = process.fetchers.get(leader);
      if (!fetcher) {
        fetcher = new ReplicaFetcher(
          this.ctx.sim,
          this.ctx.net,
          this.id,
          leader,
          this.replicationConfig(),
          (partition, batches, hw) => process.replicas.appendAsFollower(partition, batches, hw),
          (partition, offset, removed) => this.shared.onTruncate(this.id, partition.key, offset, removed),
        );
        process.fetchers.set(leader, fetcher);
      }
      for (const p of partitions) fetcher.add(p, p.leaderEpoch);
    }
  }

  private replicationConfig(): ReplicationConfig {
    const c = this.ctx.config;
    return {
      replicaFetchWaitMaxMs: c.replicaFetchWaitMaxMs,
      replicaFetchBackoffMs: c.replicaFetchBackoffMs,
      requestTimeoutMs: c.requestTimeoutMs,
    };
  }

  /** This broker's view of a partition's leader: null with none, undefined when the partition is unknown. */
  leaderOf(partition: PartitionKey): string | null | undefined {
    const reg = this.image.partitions.get(partition);
    return reg === undefined ? undefined : reg.leader;
  }

  /** The coordinator of a transactional.id in this broker's image (null: its partition has no live leader). */
  coordinatorOf(transactionalId: string): string | null {
    const index = transactionStatePartitionFor(transactionalId, this.shared.transactionStatePartitions);
    const leader = this.leaderOf(transactionStatePartitionKey(index)) ?? null;
    return leader !== null && isActive(this.image, leader) ? leader : null;
  }

  /** The group coordinator of a group id in this broker's image (null: no live leader, or no __consumer_offsets). */
  groupCoordinatorOf(groupId: string): string | null {
    const settings = this.shared.groupCoordinator;
    if (!settings) return null;
    const index = GroupCoordinator.partitionOf(groupId, settings);
    const leader = this.leaderOf(consumerOffsetsPartitionKey(index)) ?? null;
    return leader !== null && isActive(this.image, leader) ? leader : null;
  }

  // ------------------------------------------------------------------ KafkaApis

  private handle(request: Inbound): void {
    const process = this.process;
    if (!process) return; // the network refuses requests to a stopped broker; nothing reaches here
    const body = request.body;
    switch (body.api) {
      case "Produce":
        return this.handleProduce(process, request, body);
      case "WriteTxnMarkers":
        return this.handleWriteTxnMarkers(process, request, body);
      case "ApiVersions":
        return request.respond({
          api: "ApiVersions",
          errorCode: Errors.NONE,
          writeTxnMarkersMaxVersion: this.release.flags.maxWriteTxnMarkersVersion,
        });
      case "Fetch":
        return process.replicas.fetch(body, (response) => request.respond(response));
      case "Metadata":
        return request.respond(this.metadataResponse());
      case "FindCoordinator":
        return request.respond(this.findCoordinator(body));
      case "InitProducerId":
      case "AddPartitionsToTxn":
      case "EndTxn":
        return process.coordinator.handle(request);
      case "AddOffsetsToTxn":
        return this.handleAddOffsetsToTxn(process, request, body);
      case "JoinGroup":
      case "SyncGroup":
      case "Heartbeat":
      case "LeaveGroup":
      case "OffsetCommit":
      case "TxnOffsetCommit":
      case "OffsetFetch":
        return this.handleGroupRequest(process, request, body);
      default:
        throw new Error(`broker ${this.id} cannot handle ${(body as { api: string }).api}`);
    }
  }

  private metadataResponse(): KafkaResponse {
    const partitions = [...this.image.partitions.values()]
      .filter((reg) => !isTransactionStatePartition(reg.partition) && !isConsumerOffsetsPartition(reg.partition))
      .map((reg) => ({ partition: reg.partition, leader: reg.leader, leaderEpoch: reg.leaderEpoch }));
    return { api: "Metadata", errorCode: Errors.NONE, imageOffset: this.image.offset, partitions };
  }

  /** KafkaApis.getCoordinator(TRANSACTION): from this broker's image; COORDINATOR_NOT_AVAILABLE without a live leader. */
  private findCoordinator(body: FindCoordinatorRequest): KafkaResponse {
    const nodeId = body.keyType === "GROUP" ? this.groupCoordinatorOf(body.key) : this.coordinatorOf(body.key);
    return {
      api: "FindCoordinator",
      errorCode: nodeId === null ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NONE,
      nodeId,
    };
  }

  // ---------------------------------------------------------------- produce

  private handleProduce(process: BrokerProcess, request: Inbound, body: ProduceRequest): void {
    const partition = process.replicas.partitions.get(body.partition);
    if (!partition?.isLeader) {
      const known = this.image.partitions.has(body.partition);
      return request.respond(
        produceError(known ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.UNKNOWN_TOPIC_OR_PARTITION, "not the leader"),
      );
    }
    const log = partition.log;
    const transactional = body.transactionalId !== null;
    if (transactional && this.release.flags.transactionPartitionVerification) {
      const stale = log.staleEpochBeforeVerification(body.producerId, body.producerEpoch);
      if (stale !== null) {
        this.ctx.sim.emit(this.id, "produce.rejected", {
          partition: body.partition,
          pid: body.producerId,
          epoch: body.producerEpoch,
          seq: body.baseSequence,
          error: Errors.INVALID_PRODUCER_EPOCH,
        });
        return request.respond(produceError(Errors.INVALID_PRODUCER_EPOCH, `before verification: ${stale}`));
      }
      const supportsEpochBump = body.version >= 12;
      const guard = log.maybeStartTransactionVerification(
        body.producerId,
        body.baseSequence,
        body.producerEpoch,
        supportsEpochBump,
      );
      if (guard !== 0) {
        this.verifyProduce(process, request, body, guard, supportsEpochBump);
        return;
      }
    }
    this.appendProduce(process, request, body, 0);
  }

  /**
   * appendRecordsWithTransactionVerification: ask the coordinator whether (TV0/1) or to add (TV2)
   * the partition; a KAFKA-18654 leader asks again after add.partitions.to.txn.retry.backoff.ms while
   * the coordinator answers CONCURRENT_TRANSACTIONS (the previous transaction's markers still being
   * written), until add.partitions.to.txn.retry.backoff.max.ms (at most request.timeout.ms) has passed
   * since the first ask (maybeRetryOnConcurrentTransactions); then the producer gets the answer.
   */
  private verifyProduce(
    process: BrokerProcess,
    request: Inbound,
    body: ProduceRequest,
    guard: number,
    supportsEpochBump: boolean,
  ): void {
    const addPartition = supportsEpochBump && this.release.flags.supportsTransactionVersion2;
    const config = this.ctx.config;
    const retryTimeoutMs = Math.min(config.addPartitionsToTxnRetryBackoffMaxMs, config.requestTimeoutMs);
    const startedAtMs = this.ctx.sim.nowMs;
    const ask = (): void =>
      process.verifier.verify(
        {
          api: "AddPartitionsToTxn",
          version: addPartition ? 5 : 4,
          transactionalId: body.transactionalId as string,
          producerId: body.producerId,
          producerEpoch: body.producerEpoch,
          partitions: [body.partition],
          verifyOnly: !addPartition,
          ghostTxn: body.ghostTxn,
        },
        (errorCode) => {
          const retry =
            errorCode === Errors.CONCURRENT_TRANSACTIONS &&
            this.release.flags.addPartitionsRetryOnServer &&
            this.ctx.sim.nowMs - startedAtMs < retryTimeoutMs;
          if (retry) {
            this.ctx.sim.schedule(config.addPartitionsToTxnRetryBackoffMs, () => {
              if (this.process === process) ask();
            });
            return;
          }
          const mapped = produceErrorForVerification(errorCode, body.version);
          if (mapped !== Errors.NONE) {
            this.ctx.sim.emit(this.id, "produce.verify-failed", {
              partition: body.partition,
              pid: body.producerId,
              epoch: body.producerEpoch,
              error: mapped,
            });
            return request.respond(produceError(mapped, `verification: coordinator answered ${errorCode}`));
          }
          this.appendProduce(process, request, body, guard);
        },
      );
    ask();
  }

  /** appendRecords with acks=all: the log's checks, then the wait for the ISR (DelayedProduce). */
  private appendProduce(process: BrokerProcess, request: Inbound, body: ProduceRequest, guard: number): void {
    process.replicas.appendToLeader(
      body.partition,
      body.timeoutMs,
      (log) => {
        const result = log.appendData({
          producerId: body.producerId,
          producerEpoch: body.producerEpoch,
          baseSequence: body.baseSequence,
          isTransactional: body.transactionalId !== null,
          values: body.values,
          ghostTxn: body.ghostTxn,
          verificationGuard: guard,
        });
        if (result.kind === "error") {
          this.ctx.sim.emit(this.id, "produce.rejected", {
            partition: body.partition,
            pid: body.producerId,
            epoch: body.producerEpoch,
            seq: body.baseSequence,
            error: result.errorCode,
          });
          return { waitForOffset: null, value: produceError(result.errorCode, result.reason) };
        }
        if (result.kind === "duplicate") {
          this.ctx.sim.emit(this.id, "produce.duplicate", {
            partition: body.partition,
            pid: body.producerId,
            seq: body.baseSequence,
            offset: result.firstOffset,
          });
          return { waitForOffset: result.lastOffset + 1, value: produceOk(result.firstOffset) };
        }
        const batch = result.batch;
        this.ctx.sim.emit(this.id, "produce.append", {
          partition: body.partition,
          pid: body.producerId,
          epoch: body.producerEpoch,
          seq: body.baseSequence,
          offset: batch.baseOffset,
          txn: body.ghostTxn,
          corr: request.correlationId,
        });
        this.ctx.ghost.batchAppended({ broker: this.id, partition: body.partition, batch, atMs: this.nowMs });
        return { waitForOffset: batch.lastOffset + 1, value: produceOk(batch.baseOffset) };
      },
      (errorCode, value) => {
        if (errorCode !== Errors.NONE || value === null)
          return request.respond(produceError(errorCode, "append failed"));
        request.respond(value);
      },
    );
  }

  // ---------------------------------------------------------------- groups (issue 17)

  /**
   * KafkaApis.handleAddOffsetsToTxnRequest: the group's __consumer_offsets partition joins the
   * transaction through the transaction coordinator's AddPartitionsToTxn handling.
   */
  private handleAddOffsetsToTxn(
    process: BrokerProcess,
    request: Inbound,
    body: Extract<GroupRequest, { api: "AddOffsetsToTxn" }>,
  ): void {
    const respond = (errorCode: number) => request.respond({ api: "AddOffsetsToTxn", errorCode });
    const settings = this.shared.groupCoordinator;
    if (!settings) return respond(Errors.UNKNOWN_TOPIC_OR_PARTITION);
    const partition = consumerOffsetsPartitionKey(GroupCoordinator.partitionOf(body.groupId, settings));
    process.coordinator.handleAddPartitionsToTxn(
      {
        api: "AddPartitionsToTxn",
        version: 3,
        transactionalId: body.transactionalId,
        producerId: body.producerId,
        producerEpoch: body.producerEpoch,
        partitions: [partition],
        verifyOnly: false,
        ghostTxn: body.ghostTxn,
      },
      (errorCode, results) => respond(errorCode !== Errors.NONE ? errorCode : (results[0]?.errorCode ?? Errors.NONE)),
    );
  }

  /** The group APIs, answered by the shard of the group's __consumer_offsets partition if this broker leads it. */
  private handleGroupRequest(
    process: BrokerProcess,
    request: Inbound,
    body: Exclude<GroupRequest, { api: "AddOffsetsToTxn" }>,
  ): void {
    const lookup = process.groups?.shardForGroup(body.groupId) ?? { kind: "error", errorCode: Errors.NOT_COORDINATOR };
    if (lookup.kind === "error") return request.respond(groupErrorResponse(body.api, lookup.errorCode));
    const shard = lookup.shard;
    const key = consumerOffsetsPartitionKey(shard.partitionIndex);
    const emit = (errorCode: number, member: string, gen: number) =>
      this.groupAnswered(key, body.api, body.groupId, member, gen, errorCode, -1, null);
    const now = this.nowMs;
    switch (body.api) {
      case "OffsetFetch": {
        const partitions = shard.fetchOffsets(body.groupId, body.partitions, body.requireStable);
        emit(partitions.find((p) => p.errorCode !== Errors.NONE)?.errorCode ?? Errors.NONE, "", -1);
        return request.respond({ api: "OffsetFetch", errorCode: Errors.NONE, partitions: [...partitions] });
      }
      case "SyncGroup": {
        const r = shard.syncGroup(body.groupId, body.memberId, body.groupInstanceId, body.generationId, now);
        emit(r.errorCode, body.memberId, body.generationId);
        return request.respond({ api: "SyncGroup", errorCode: r.errorCode, assignment: [...r.assignment] });
      }
      case "Heartbeat": {
        const errorCode = shard.heartbeat(body.groupId, body.memberId, body.groupInstanceId, body.generationId, now);
        emit(errorCode, body.memberId, body.generationId);
        return request.respond({ api: "Heartbeat", errorCode });
      }
      case "TxnOffsetCommit":
        return this.verifyTxnOffsetCommit(process, request, body, key, shard);
      default:
        // JoinGroup, LeaveGroup and OffsetCommit may write: through the leader's append path.
        return this.writeGroupRecords(process, key, request, body.api, () => {
          if (body.api === "JoinGroup") {
            const r = shard.joinGroup(body.groupId, body.memberId, body.groupInstanceId, now);
            emit(r.errorCode, r.memberId, r.generationId);
            return { api: "JoinGroup", ...r };
          }
          if (body.api === "LeaveGroup") {
            const errorCode = shard.leaveGroup(body.groupId, body.memberId, body.groupInstanceId, now);
            emit(errorCode, body.memberId, -1);
            return { api: "LeaveGroup", errorCode };
          }
          const errorCode = shard.commitOffsets(body, body.offsets);
          emit(errorCode, body.memberId, body.generationId);
          return { api: "OffsetCommit", errorCode };
        });
    }
  }

  /** The trace's group.request, and the ghost's view of the same answer (coverage of group states). */
  private groupAnswered(
    partition: PartitionKey,
    api: string,
    groupId: string,
    memberId: string,
    generationId: number,
    errorCode: number,
    producerId: number,
    ghostTxn: string | null,
  ): void {
    this.ctx.sim.emit(this.id, "group.request", {
      api,
      group: groupId,
      member: memberId,
      gen: generationId,
      error: errorCode,
    });
    this.ctx.ghost.groupRequestAnswered?.({
      broker: this.id,
      partition,
      api,
      groupId,
      memberId,
      generationId,
      errorCode,
      producerId,
      ghostTxn,
      atMs: this.nowMs,
    });
  }

  /**
   * A group write on the leader of the offsets partition: the shard writes into the log, and the
   * answer waits until the in-sync replicas have it (CoordinatorRuntime's deferred events on the
   * high watermark). Refused appends answer as GroupCoordinatorService.normalizeException maps them
   * (the transaction coordinator's mapping of the same append errors).
   */
  private writeGroupRecords(
    process: BrokerProcess,
    key: PartitionKey,
    request: Inbound,
    api: Exclude<GroupRequest, { api: "AddOffsetsToTxn" }>["api"],
    write: () => KafkaResponse & { errorCode: number },
  ): void {
    process.replicas.appendToLeader(
      key,
      this.ctx.config.requestTimeoutMs,
      (log) => {
        const before = log.logEndOffset;
        const response = write();
        return { waitForOffset: log.logEndOffset > before ? log.logEndOffset : null, value: response };
      },
      (errorCode, response) => {
        if (errorCode !== Errors.NONE || response === null)
          return request.respond(groupErrorResponse(api, coordinatorErrorFor(errorCode)));
        request.respond(response);
      },
    );
  }

  /**
   * TxnOffsetCommit: with KIP-890 verification (KAFKA-15449, 3.7+) the transaction coordinator is
   * asked first (a TV2 v5 request adds the offsets partition to the transaction), then the shard
   * validates and writes together (KAFKA-15784's order). Under txnOffsetCommitUnverified (3.6) the
   * shard writes at once, with no guard; under txnOffsetValidateBeforeVerify (3.7 before KAFKA-15784)
   * the shard validates at the request's arrival and writes after the verification, unvalidated.
   */
  private verifyTxnOffsetCommit(
    process: BrokerProcess,
    request: Inbound,
    body: Extract<GroupRequest, { api: "TxnOffsetCommit" }>,
    key: PartitionKey,
    shard: GroupCoordinatorShard,
  ): void {
    const flags = this.release.flags;
    // KAFKA-15449's bug switch (3.6): the group coordinator's path skipped the verification.
    if (!flags.transactionPartitionVerification || flags.txnOffsetCommitUnverified)
      return this.writeTxnOffsets(process, request, body, key, 0, false);
    const log = this.logs.get(key) as PartitionLog;
    // UnifiedLog.maybeStartTransactionVerification refuses a stale epoch first (KAFKA-18042), on the
    // group coordinator's path too (CoordinatorPartitionWriter -> ReplicaManager); the error goes back
    // as it is (CoordinatorOperationExceptionHelper maps only coordinator-side errors).
    const stale = log.staleEpochBeforeVerification(body.producerId, body.producerEpoch);
    if (stale !== null) {
      this.emitTxnOffsetCommit(key, body, Errors.INVALID_PRODUCER_EPOCH);
      return request.respond({ api: "TxnOffsetCommit", errorCode: Errors.INVALID_PRODUCER_EPOCH });
    }
    const supportsEpochBump = body.version >= 5;
    const guard = log.maybeStartTransactionVerification(body.producerId, -1, body.producerEpoch, supportsEpochBump);
    if (guard === 0) return this.writeTxnOffsets(process, request, body, key, 0, false);
    // KAFKA-15784's bug switch: GroupCoordinator.doTxnCommitOffsets validated under the group lock
    // before ReplicaManager.appendRecords started the asynchronous verification.
    const validatedBefore = flags.txnOffsetValidateBeforeVerify;
    if (validatedBefore) {
      const invalid = shard.validateTransactionalOffsetCommit(body);
      if (invalid !== Errors.NONE) {
        this.emitTxnOffsetCommit(key, body, invalid);
        return request.respond({ api: "TxnOffsetCommit", errorCode: invalid });
      }
      this.ctx.sim.emit(this.id, "group.txn-offsets-validated", {
        group: body.groupId,
        member: body.memberId,
        gen: body.generationId,
        groupGen: shard.group(body.groupId).generationId,
        txn: body.ghostTxn,
      });
    }
    const addPartition = supportsEpochBump && flags.supportsTransactionVersion2;
    process.verifier.verify(
      {
        api: "AddPartitionsToTxn",
        version: addPartition ? 5 : 4,
        transactionalId: body.transactionalId,
        producerId: body.producerId,
        producerEpoch: body.producerEpoch,
        partitions: [key],
        verifyOnly: !addPartition,
        ghostTxn: body.ghostTxn,
      },
      (errorCode) => {
        const mapped = txnOffsetCommitErrorForVerification(errorCode);
        if (mapped !== Errors.NONE) return request.respond({ api: "TxnOffsetCommit", errorCode: mapped });
        this.writeTxnOffsets(process, request, body, key, guard, validatedBefore);
      },
    );
  }

  /** The shard's write of a TxnOffsetCommit (validated first unless `validatedBefore`), through the leader's append path. */
  private writeTxnOffsets(
    process: BrokerProcess,
    request: Inbound,
    body: Extract<GroupRequest, { api: "TxnOffsetCommit" }>,
    key: PartitionKey,
    guard: number,
    validatedBefore: boolean,
  ): void {
    this.writeGroupRecords(process, key, request, "TxnOffsetCommit", () => {
      const lookup = process.groups?.shardForGroup(body.groupId);
      if (!lookup || lookup.kind === "error") return { api: "TxnOffsetCommit", errorCode: Errors.NOT_COORDINATOR };
      const input = { ...body, verificationGuard: guard };
      const errorCode = lookup.shard.commitTransactionalOffsets(input, validatedBefore);
      this.emitTxnOffsetCommit(key, body, errorCode);
      if (errorCode === Errors.NONE)
        this.ctx.sim.emit(this.id, "group.txn-offsets", {
          group: body.groupId,
          member: body.memberId,
          gen: body.generationId,
          pid: body.producerId,
          epoch: body.producerEpoch,
          offsets: body.offsets.map((o) => `${o.partition}@${o.offset}`).join(","),
          txn: body.ghostTxn,
        });
      return { api: "TxnOffsetCommit", errorCode };
    });
  }

  private emitTxnOffsetCommit(
    key: PartitionKey,
    body: Extract<GroupRequest, { api: "TxnOffsetCommit" }>,
    errorCode: number,
  ): void {
    const { groupId, memberId, generationId, producerId, ghostTxn } = body;
    this.groupAnswered(key, body.api, groupId, memberId, generationId, errorCode, producerId, ghostTxn);
  }

  // ---------------------------------------------------------------- __transaction_state

  /** The coordinator's durable write: an acks=all append to the partition this broker leads. */
  private appendTxnRecord(
    replicas: ReplicaManager,
    index: number,
    transactionalId: string,
    record: TxnTransitMetadata,
    timeoutMs: number,
    onDone: (errorCode: number) => void,
  ): void {
    const key = transactionStatePartitionKey(index);
    const finish = (errorCode: number, batch: LogBatch | null) => {
      if (errorCode === Errors.NONE) this.shared.countTxnLogAppend();
      this.ctx.sim.emit(this.id, errorCode === Errors.NONE ? "txnlog.append" : "txnlog.append-failed", {
        txnId: transactionalId,
        state: record.txnState,
        partition: index,
        offset: batch?.baseOffset ?? -1,
        error: errorCode,
      });
      onDone(errorCode);
    };
    // A nemesis outage is an ISR below min.insync.replicas: ReplicaManager checks leadership first,
    // then refuses with NOT_ENOUGH_REPLICAS before writing.
    if (replicas.leaderPartition(key) !== null && this.shared.txnLogOutage(index))
      return finish(Errors.NOT_ENOUGH_REPLICAS, null);
    replicas.appendToLeader(
      key,
      timeoutMs,
      (log) => {
        const batch = log.appendTxnRecord({ transactionalId, value: record });
        return { waitForOffset: batch.lastOffset + 1, value: batch };
      },
      finish,
    );
  }

  // ---------------------------------------------------------------- WriteTxnMarkers

  private handleWriteTxnMarkers(process: BrokerProcess, request: Inbound, body: WriteTxnMarkersRequest): void {
    const flags = this.release.flags;
    let markers: WritableTxnMarker[];
    let version: number;
    let correlationId: number; // the header's id, echoed in the response
    try {
      const reader = new ByteReader(body.bytes);
      const header = readRequestHeader(reader);
      version = header.apiVersion;
      correlationId = header.correlationId;
      if (header.apiKey !== WRITE_TXN_MARKERS_API_KEY || version < 1 || version > flags.maxWriteTxnMarkersVersion) {
        // SocketServer.parseRequestHeader: InvalidRequestException for a version that is not enabled;
        // processChannelException closes the connection without a response.
        return this.refuseMarkers(
          request,
          body,
          version,
          `WriteTxnMarkers v${version} is not supported (max v${flags.maxWriteTxnMarkersVersion})`,
        );
      }
      markers = readWriteTxnMarkersRequestBody(reader, version);
      reader.expectEnd("WriteTxnMarkersRequest");
    } catch (e) {
      if (e instanceof WireFormatError)
        return this.refuseMarkers(request, body, -1, `unparseable request: ${e.message}`);
      throw e;
    }
    if (markers.length !== body.ghosts.length) throw new Error("ghost side-car does not match the markers");

    const results: WritableTxnMarkerResult[] = markers.map((marker) => ({
      producerId: marker.producerId,
      topics: marker.topics.map((topic) => ({
        name: topic.name,
        partitions: topic.partitionIndexes.map((index) => ({ partitionIndex: index, errorCode: Errors.NONE })),
      })),
    }));
    let remaining = results.reduce((n, r) => n + r.topics.reduce((m, t) => m + t.partitions.length, 0), 0);
    const respond = () =>
      request.respond({
        api: "WriteTxnMarkers",
        bytes: encodeWriteTxnMarkersResponse(version, correlationId, results),
      });
    if (remaining === 0) return respond();
    markers.forEach((marker, i) => {
      const ghost = body.ghosts[i] as WriteTxnMarkersRequest["ghosts"][number];
      marker.topics.forEach((topic, ti) => {
        topic.partitionIndexes.forEach((index, pi) => {
          const slot = (results[i] as WritableTxnMarkerResult).topics[ti]?.partitions[pi] as { errorCode: number };
          this.applyMarker(
            process,
            `${topic.name}-${index}`,
            marker,
            ghost,
            version,
            request.correlationId,
            (errorCode) => {
              slot.errorCode = errorCode;
              remaining--;
              if (remaining === 0) respond();
            },
          );
        });
      });
    });
  }

  /**
   * GroupCoordinatorService.completeTransaction at an offsets partition: the shard decides the
   * producer's pending offsets and writes the marker through the log's checks, with the request's
   * TransactionVersion (see docs/model.md). Not this broker's shard: NOT_LEADER_OR_FOLLOWER, as
   * KafkaApis maps NOT_COORDINATOR, with nothing judged.
   */
  private completeOffsetsTransaction(
    process: BrokerProcess,
    partition: PartitionKey,
    input: MarkerInput,
  ): MarkerAppendResult {
    const lookup = process.groups?.shardFor(offsetsIndex(partition));
    if (!lookup || lookup.kind === "error")
      return {
        kind: "error",
        errorCode: Errors.NOT_LEADER_OR_FOLLOWER,
        rule: "unchecked",
        storedEpochBefore: -1,
        storedCoordinatorEpochBefore: -1,
        openTxnBefore: false,
        reason: "no group coordinator for the partition",
      };
    const done = lookup.shard.completeTransaction(input);
    const entries = done.materialized?.entries ?? [];
    this.ctx.sim.emit(this.id, "group.complete-txn", {
      partition,
      pid: input.producerId,
      result: input.result,
      pending: entries.length,
      moved: entries.filter((e) => e.materialized).length,
      tv: done.transactionVersionSeen,
      txn: input.ghostTxn,
    });
    return done.append;
  }

  private refuseMarkers(request: Inbound, body: WriteTxnMarkersRequest, version: number, reason: string): void {
    this.ctx.sim.emit(this.id, "markers.refused", { version, reason });
    this.ctx.ghost.markerRequestRefused({
      broker: this.id,
      brokerRelease: this.release.name,
      version,
      reason,
      markerIds: body.ghosts.map((g) => g.markerId),
      atMs: this.nowMs,
    });
    request.closeConnection(reason);
  }

  /**
   * One marker at one partition: an acks=all append (origin COORDINATOR) through Kafka's checks, in
   * their order; the ghost hears how the leader judged it. `onDone` gets the partition's error once
   * the ISR has the marker (or at once when it was refused).
   */
  private applyMarker(
    process: BrokerProcess,
    partition: PartitionKey,
    marker: WritableTxnMarker,
    ghost: WriteTxnMarkersRequest["ghosts"][number],
    version: number,
    correlationId: number,
    onDone: (errorCode: number) => void,
  ): void {
    const result: TransactionResult = marker.transactionResult ? "COMMIT" : "ABORT";
    const leaderEpoch = process.replicas.partitions.get(partition)?.leaderEpoch ?? -1;
    const report = (judged: MarkerJudgement) =>
      this.ctx.ghost.markerApplied(
        markerOutcome(this, partition, leaderEpoch, marker, ghost, version, correlationId, result, judged),
      );
    process.replicas.appendToLeader(
      partition,
      this.ctx.config.requestTimeoutMs,
      (log) => {
        const input = {
          producerId: marker.producerId,
          producerEpoch: marker.producerEpoch,
          result,
          coordinatorEpoch: marker.coordinatorEpoch,
          transactionVersion: marker.transactionVersion,
          ghostTxn: ghost.ghostTxn,
        };
        // KafkaApis hands __consumer_offsets partitions to the group coordinator (completeTransaction).
        const outcome = isConsumerOffsetsPartition(partition)
          ? this.completeOffsetsTransaction(process, partition, input)
          : log.appendMarker(input);
        // Every marker event starts with the marker and how the leader judged it and ends with which copy
        // it was (the fields are written out: object spreads here cost more than the append itself).
        const { producerId: pid, producerEpoch: epoch, coordinatorEpoch: ce, transactionVersion: tv } = marker;
        const { storedEpochBefore: stored, rule } = outcome;
        const { ghostTxn: txn, markerId, resend } = ghost;
        const reportNothingAppended = (errorCode: number) =>
          report({
            storedEpochBefore: outcome.storedEpochBefore,
            storedCoordinatorEpochBefore: outcome.storedCoordinatorEpochBefore,
            openTxnBefore: outcome.openTxnBefore,
            rule: outcome.rule,
            errorCode,
            markerOffset: null,
            completed: null,
            closedBatches: [],
          });
        if (outcome.kind === "error") {
          // biome-ignore format: one line per part of the event
          this.ctx.sim.emit(this.id, "marker.rejected", {
            partition, pid, epoch, stored, ce, tv, rule,
            error: outcome.errorCode,
            txn, marker: markerId, resend, v: version, corr: correlationId,
          });
          reportNothingAppended(outcome.errorCode);
          return { waitForOffset: null, value: outcome.errorCode };
        }
        const completed = outcome.completed;
        // biome-ignore format: one line per part of the event
        this.ctx.sim.emit(this.id, "marker.append", {
          partition, pid, epoch, stored, ce, tv, rule,
          result, offset: outcome.batch.baseOffset, closedFrom: completed ? completed.firstOffset : -1,
          txn, marker: markerId, resend, v: version, corr: correlationId,
        });
        report({
          storedEpochBefore: outcome.storedEpochBefore,
          storedCoordinatorEpochBefore: outcome.storedCoordinatorEpochBefore,
          openTxnBefore: outcome.openTxnBefore,
          rule: outcome.rule,
          errorCode: Errors.NONE,
          markerOffset: outcome.batch.baseOffset,
          completed,
          closedBatches: completed
            ? log.dataBatchesOf(marker.producerId, completed.firstOffset, completed.lastOffset)
            : [],
        });
        return { waitForOffset: outcome.batch.lastOffset + 1, value: Errors.NONE };
      },
      (errorCode, judged) => {
        if (judged === null) {
          // Refused before the log saw it (not the leader, too few in-sync replicas): the leader judged nothing.
          report({
            storedEpochBefore: -1,
            storedCoordinatorEpochBefore: -1,
            openTxnBefore: false,
            rule: "unchecked",
            errorCode,
            markerOffset: null,
            completed: null,
            closedBatches: [],
          });
        }
        onDone(errorCode !== Errors.NONE ? errorCode : (judged ?? Errors.NONE));
      },
    );
  }
}

/** The index of a __transaction_state partition key. */
function txnIndex(partition: PartitionKey): number {
  return Number(partition.slice(TRANSACTION_STATE_TOPIC.length + 1));
}

/** The index of a __consumer_offsets partition key. */
function offsetsIndex(partition: PartitionKey): number {
  return Number(partition.slice(CONSUMER_OFFSETS_TOPIC.length + 1));
}

/** A group API's answer carrying only an error. */
function groupErrorResponse(
  api: Exclude<GroupRequest, { api: "AddOffsetsToTxn" }>["api"],
  errorCode: number,
): KafkaResponse {
  switch (api) {
    case "JoinGroup":
      return { api, errorCode, memberId: "", generationId: -1, leaderId: null };
    case "SyncGroup":
      return { api, errorCode, assignment: [] };
    case "OffsetFetch":
      return { api, errorCode, partitions: [] };
    default:
      return { api, errorCode };
  }
}

/**
 * A TxnOffsetCommit's verification answer as the group coordinator returns it: a fence stays a fence,
 * the transient ones become COORDINATOR_NOT_AVAILABLE (retriable for the producer); simplified.
 */
function txnOffsetCommitErrorForVerification(errorCode: number): number {
  const asProduce = produceErrorForVerification(errorCode, 11);
  return asProduce === Errors.NOT_ENOUGH_REPLICAS ? Errors.COORDINATOR_NOT_AVAILABLE : asProduce;
}

/** What the leader's checks made of one marker at one partition. */
type MarkerJudgement = Pick<
  MarkerOutcome,
  | "storedEpochBefore"
  | "storedCoordinatorEpochBefore"
  | "openTxnBefore"
  | "rule"
  | "errorCode"
  | "markerOffset"
  | "completed"
  | "closedBatches"
> & { rule: MarkerEpochRule };

/** The ghost's record of one marker at one partition, every field written out in one literal (spreading a shared part made V8 build it slowly). */
function markerOutcome(
  broker: KafkaBroker,
  partition: PartitionKey,
  leaderEpoch: number,
  marker: WritableTxnMarker,
  ghost: WriteTxnMarkersRequest["ghosts"][number],
  version: number,
  correlationId: number,
  result: TransactionResult,
  judged: MarkerJudgement,
): MarkerOutcome {
  return {
    markerId: ghost.markerId,
    resend: ghost.resend,
    ghostTxn: ghost.ghostTxn,
    transactionalId: ghost.transactionalId,
    broker: broker.id,
    brokerRelease: broker.releaseName,
    partition,
    leaderEpoch,
    requestVersion: version,
    correlationId,
    transactionVersionSeen: marker.transactionVersion,
    producerId: marker.producerId,
    markerEpoch: marker.producerEpoch,
    coordinatorEpoch: marker.coordinatorEpoch,
    result,
    atMs: broker.nowMs,
    storedEpochBefore: judged.storedEpochBefore,
    storedCoordinatorEpochBefore: judged.storedCoordinatorEpochBefore,
    openTxnBefore: judged.openTxnBefore,
    rule: judged.rule,
    errorCode: judged.errorCode,
    markerOffset: judged.markerOffset,
    completed: judged.completed,
    closedBatches: judged.closedBatches,
  };
}

function produceError(errorCode: number, message: string): KafkaResponse {
  return { api: "Produce", errorCode, baseOffset: -1, errorMessage: message };
}

function produceOk(baseOffset: number): KafkaResponse {
  return { api: "Produce", errorCode: Errors.NONE, baseOffset, errorMessage: null };
}
