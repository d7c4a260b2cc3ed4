import { AddPartitionsToTxnManager } from "../broker/add-partitions-to-txn-manager.js";
import type { PartitionConfig } from "../broker/partition.js";
import { PartitionLog } from "../broker/partition-log.js";
import { ReplicaFetcher } from "../broker/replica-fetcher.js";
import { ReplicaManager, type ReplicationConfig } from "../broker/replica-manager.js";
import type { ClusterContext } from "../cluster-context.js";
import type { PartitionKey } from "../common/types.js";
import { GroupCoordinator, type GroupCoordinatorSettings } from "../coordinator/group/group-coordinator.js";
import type { GroupCoordinatorShard } from "../coordinator/group/group-coordinator-shard.js";
import { consumerOffsetsPartitionIndex, isConsumerOffsetsPartition } from "../coordinator/group/group-partitioning.js";
import { TransactionCoordinator } from "../coordinator/transaction-coordinator.js";
import {
  isTransactionStatePartition,
  transactionStatePartitionIndex,
} from "../coordinator/transaction-partitioning.js";
import { changedPartitions, type MetadataImage } from "../metadata/metadata-image.js";
import type { ReleaseName, ReleaseProfile } from "../release.js";
import type { BrokerBase, BrokerProcess, BrokerShared, Inbound } from "./broker-process.js";
import { ConnectionMute } from "./connection-mute.js";
import { KafkaApis } from "./kafka-apis.js";
import { coordinatorOf, groupCoordinatorOf, leaderOf } from "./metadata-cache.js";
import { transactionStateLog } from "./transaction-state-log.js";

export type { BrokerShared } from "./broker-process.js";

/** What a broker is made of besides the cluster's handles and its id. */
export interface KafkaBrokerOptions {
  /** The release it starts on. */
  readonly release: ReleaseProfile;
  /** The partitions it holds a replica of, with their settings. */
  readonly partitionConfigs: ReadonlyMap<PartitionKey, PartitionConfig>;
  /** The controller's image when the broker is made. */
  readonly image: MetadataImage;
  readonly shared: BrokerShared;
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
  /** The running process's request handlers (null while stopped). */
  private apis: KafkaApis | null = null;
  /** The running process's SocketServer mutes, when the cluster models them (null: requests are handled as they come). */
  private mute: ConnectionMute | null = null;

  private readonly partitionConfigs: ReadonlyMap<PartitionKey, PartitionConfig>;
  private readonly shared: BrokerShared;

  constructor(
    private readonly ctx: ClusterContext,
    readonly id: string,
    options: KafkaBrokerOptions,
  ) {
    const { partitionConfigs } = options;
    this.release = options.release;
    this.image = options.image;
    this.partitionConfigs = partitionConfigs;
    this.shared = options.shared;
    // Batches carry timestamps only when producer state can expire (producer.id.expiration.ms set).
    const expiration = ctx.config.producerIdExpiration;
    const timing = expiration ? { clock: () => ctx.sim.nowMs, producerIdExpirationMs: expiration.expirationMs } : {};
    for (const key of partitionConfigs.keys()) {
      const observer = ctx.logObservers?.forReplica(id, key, () => this.release.name) ?? null;
      this.logs.set(key, new PartitionLog(key, () => this.release.flags, { ...timing, observer }));
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

  /** The running process's request handlers take the request. */
  private handle(request: Inbound): void {
    // The network refuses requests to a stopped broker; nothing reaches here without a process.
    if (this.mute) this.mute.receive(request);
    else this.apis?.handle(request);
  }

  // ------------------------------------------------------------------ lifecycle

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

  /** Start a process on the current metadata image: every replica takes its role from it. */
  start(image: MetadataImage): void {
    if (this.process) throw new Error(`${this.id} is already running`);
    this.image = image;
    const base: BrokerBase = {
      ctx: this.ctx,
      brokerId: this.id,
      release: this.release,
      shared: this.shared,
      logs: this.logs,
      image: () => this.image,
    };
    const process = this.newProcess(base);
    this.process = process;
    const apis = new KafkaApis(process);
    this.apis = apis;
    this.mute = this.ctx.config.oneRequestPerConnection
      ? new ConnectionMute(
          this.ctx.sim,
          (request) => apis.handle(request),
          () => process.stopped,
        )
      : null;
    const expiration = this.ctx.config.producerIdExpiration;
    if (expiration) this.scheduleProducerExpiration(process, expiration);
    this.ctx.sim.emit(this.id, "broker.start", { release: this.release.name, imageOffset: image.offset });
    this.applyChanges(
      changedPartitions({ offset: -1, partitions: new Map(), brokers: new Map(), features: image.features }, image),
    );
    if (process.groups) this.scheduleGroupTimers(process, process.groups);
  }

  /** The components of a new process, in Kafka's order of construction. */
  private newProcess(base: BrokerBase): BrokerProcess {
    const groups = this.shared.groupCoordinator
      ? new GroupCoordinator(this.groupSettings(this.shared.groupCoordinator))
      : null;
    // The components ask whether their own process stopped (it is made below, before they run).
    const isStopped = () => process.stopped;
    const config = this.ctx.config;
    const replicas = new ReplicaManager(this.ctx.sim, this.id, {
      logs: this.logs,
      configs: this.partitionConfigs,
      image: () => this.image,
      controller: this.shared.controller,
      config: { replicaLagTimeMaxMs: config.replicaLagTimeMaxMs },
    });
    const coordinator = new TransactionCoordinator(this.ctx, this.id, {
      release: this.release,
      host: {
        log: transactionStateLog(base, replicas),
        leaderOf: (p) => this.leaderOf(p),
        stopped: isStopped,
        finalizedTransactionVersion: () => this.image.features.transactionVersion,
      },
      partitionCount: this.shared.transactionStatePartitions,
      producerIds: this.shared.producerIds,
      markerIds: this.shared.markerIds,
    });
    const verifier = new AddPartitionsToTxnManager(
      this.ctx,
      this.id,
      (id) => this.coordinatorOf(id),
      isStopped,
      config.requestTimeoutMs,
    );
    const process: BrokerProcess = {
      ...base,
      replicas,
      coordinator,
      verifier,
      fetchers: new Map(),
      groups,
      stopped: false,
    };
    return process;
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
    this.apis = null;
    this.mute = null;
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
        process.coordinator.onElection(transactionStatePartitionIndex(reg.partition), reg.leaderEpoch);
    for (const reg of delta.becameFollower)
      if (isTransactionStatePartition(reg.partition))
        process.coordinator.onResignation(transactionStatePartitionIndex(reg.partition), reg.leaderEpoch);
    if (process.groups) this.applyGroupChanges(process.groups, delta);
  }

  /** GroupCoordinatorService.onElection / onResignation for the __consumer_offsets partitions. */
  private applyGroupChanges(groups: GroupCoordinator, delta: ReturnType<ReplicaManager["applyDelta"]>): void {
    for (const reg of delta.becameLeader) {
      if (!isConsumerOffsetsPartition(reg.partition)) continue;
      const index = consumerOffsetsPartitionIndex(reg.partition);
      groups.onElection(index, reg.leaderEpoch, this.logs.get(reg.partition) as PartitionLog);
      const shard = groups.shardFor(index);
      this.ctx.sim.emit(this.id, "group.loaded", {
        partition: index,
        leaderEpoch: reg.leaderEpoch,
        groups: shard.kind === "ok" ? shard.shard.groups.size : 0,
      });
    }
    for (const reg of delta.becameFollower)
      if (isConsumerOffsetsPartition(reg.partition))
        groups.onResignation(consumerOffsetsPartitionIndex(reg.partition), reg.leaderEpoch);
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
        fetcher = new ReplicaFetcher(this.ctx.sim, this.ctx.net, {
          brokerId: this.id,
          leader,
          config: this.replicationConfig(),
          append: (partition, batches, hw) => process.replicas.appendAsFollower(partition, batches, hw),
          onTruncate: (partition, offset, removed) => this.shared.onTruncate(this.id, partition.key, offset, removed),
        });
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
    return leaderOf(this.image, partition);
  }

  /** The coordinator of a transactional.id in this broker's image (null: its partition has no live leader). */
  coordinatorOf(transactionalId: string): string | null {
    return coordinatorOf(this.image, this.shared, transactionalId);
  }

  /** The group coordinator of a group id in this broker's image (null: no live leader, or no __consumer_offsets). */
  groupCoordinatorOf(groupId: string): string | null {
    return groupCoordinatorOf(this.image, this.shared, groupId);
  }
}
