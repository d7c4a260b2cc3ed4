import { type AdminLookups, KafkaAdminClient, TransactionAbortOperator } from "./client/admin-client.js";
import type { ChoiceSource, Stream } from "../sim/choice-tape.js";
import { type LinkFaults, Network } from "../sim/network.js";
import type { Simulation, StopReason } from "../sim/simulation.js";
import { type BrokerShared, KafkaBroker } from "./server/kafka-broker.js";
import type { PartitionConfig } from "./broker/partition.js";
import type { PartitionLog } from "./broker/partition-log.js";
import { ClientMetadata, type KnownLeader } from "./client/client-metadata.js";
import { type Observation, ReadCommittedConsumer } from "./client/read-committed-consumer.js";
import { IdempotentProducer } from "./client/idempotent-producer.js";
import { producerBehaviour } from "./client/producer-behaviour.js";
import { TransactionalProducer, type WorkloadConfig, workloadStreamName } from "./client/transactional-producer.js";
import type { ClusterContext } from "./cluster-context.js";
import { clusterLayout, groupCoordinatorSettings, partitionConfigs } from "./cluster-layout.js";
import {
  type ClusterSnapshot,
  clusterSnapshot,
  type FinalPartitionRead,
  finalReads,
  type ProcessingView,
  processingView,
} from "./cluster-final-state.js";
import type { ClusterSpec, NodeSpec } from "./cluster-spec.js";
import { IdSequence } from "./common/id-sequence.js";
import { MemberIds } from "./coordinator/group/member-ids.js";
import type { PartitionKey, TransactionVersion } from "./common/types.js";
import type { AcceptedTxnOffsets } from "./coordinator/group/group-coordinator-shard.js";
import { ProducerIdManager } from "./coordinator/producer-id-manager.js";
import type { TransactionCoordinator } from "./coordinator/transaction-coordinator.js";
import { MARKER_CHANNEL } from "./coordinator/transaction-marker-channel-manager.js";
import { transactionStatePartitionFor, transactionStatePartitionKey } from "./coordinator/transaction-partitioning.js";
import type { LogObserverFactory } from "./broker/partition-log-observer.js";
import type { GhostObserver } from "./ghost.js";
import type { MetadataImage, PartitionRegistration } from "./metadata/metadata-image.js";
import type { AlterPartitionItem } from "./broker/replica-manager.js";
import { type LeaderChange, QuorumController } from "./metadata/quorum-controller.js";
import { Nemesis } from "./nemesis.js";
import { newCommitters } from "./offset-committers.js";
import type { OffsetCommitter } from "./client/offset-committer.js";
import { ProcessorGroup } from "./processor-group.js";
import { describeMessage, type KafkaRequest, type KafkaResponse, labelOf } from "./protocol.js";
import { type ReleaseName, type ReleaseProfile, releaseProfile } from "./release.js";
import type { ClusterEvents } from "./trace-events.js";
import { seedInitialEpochs } from "./initial-epochs.js";
import { producerSettings } from "./producer-settings.js";

/** First producer id handed out (ProducerIdManager blocks start elsewhere in Kafka; any value works). */
const FIRST_PRODUCER_ID = 1000;

/** Batches per partition a consumer fetch returns at most (the model bounds batches where Kafka bounds bytes). */
const CONSUMER_MAX_BATCHES = 50;

export interface ClusterRunOutcome {
  stop: StopReason;
  workloadEndMs: number;
  producersDone: boolean;
}

/**
 * The whole modelled cluster: brokers that each host every role (replicas of data and
 * __transaction_state partitions, a transaction coordinator, fetchers), the KRaft controller and
 * the delivery of its metadata to each broker, clients, network and nemesis.
 */
export class Cluster {
  readonly ctx: ClusterContext;
  readonly net: Network<KafkaRequest, KafkaResponse>;
  readonly controller: QuorumController;
  readonly brokers = new Map<string, KafkaBroker>();
  readonly producers: TransactionalProducer[] = [];
  /** Idempotent (non-transactional) producers beside the workload's transactional ones (most runs: none). */
  readonly idempotentProducers: IdempotentProducer[] = [];
  readonly consumers: ReadCommittedConsumer[] = [];
  /** Data partitions (what producers write and consumers read). */
  readonly partitions: PartitionKey[] = [];
  readonly transactionStatePartitions: PartitionKey[] = [];
  /** __consumer_offsets partitions (only in a cluster with consumer groups). */
  readonly consumerOffsetsPartitions: PartitionKey[] = [];
  private readonly nemesis: Nemesis;
  /** Every TxnOffsetCommit a group coordinator wrote (the ghost's view, for the processing checks). */
  readonly acceptedTxnOffsets: AcceptedTxnOffsets[] = [];
  /** The consume-transform-produce processors (issue 17), when the scenario has them. */
  readonly processors: ProcessorGroup | null;
  /** Consumers committing with a plain OffsetCommit (KAFKA-16371's ground), when the scenario has them. */
  readonly committers: OffsetCommitter[];
  private txnLogAppends = 0;
  /** Per __transaction_state partition index: the end of its nemesis outage (no entry: none yet). */
  private readonly txnLogOutageUntil = new Map<number, number>();
  /** Per broker: when its last metadata delivery is due (deliveries keep the controller's order). */
  private readonly lastMetadataDeliveryMs = new Map<string, number>();
  private readonly metadataStreams = new Map<string, Stream>();
  private readonly controllerStream: Stream;
  /** Brokers in controlled shutdown: they stop once their metadata shows they lead nothing. */
  private readonly shuttingDown = new Map<string, () => void>();

  constructor(
    readonly spec: ClusterSpec,
    readonly sim: Simulation<ClusterEvents>,
    readonly choices: ChoiceSource,
    ghost: GhostObserver,
    options: { logObservers?: LogObserverFactory } = {},
  ) {
    const layout = clusterLayout(spec);
    const assignments = layout.assignments;
    this.transactionStatePartitions.push(...layout.transactionStatePartitions);
    this.partitions.push(...layout.partitions);
    this.consumerOffsetsPartitions.push(...layout.consumerOffsetsPartitions);
    this.net = new Network<KafkaRequest, KafkaResponse>(
      sim,
      choices,
      (_from, _to, channel, direction) => this.linkFaults(channel, direction),
      labelOf,
      describeMessage,
    );
    this.net.model = spec.faults.network.model ?? "adversarial";
    this.ctx = {
      sim,
      net: this.net,
      choices,
      ghost,
      config: spec.broker,
      ...(options.logObservers ? { logObservers: options.logObservers } : {}),
      featuresOf: (id) => {
        const broker = this.brokers.get(id);
        return broker?.isRunning ? broker.metadataImage.features : undefined;
      },
    };
    this.controllerStream = choices.stream("controller");
    this.controller = new QuorumController(
      sim,
      spec.brokers.map((b) => b.id),
      assignments,
      (image, changes) => this.publish(image, changes),
      spec.broker.finalizedTransactionVersion,
    );
    const configs = partitionConfigs(spec, layout);
    const producerIds = new ProducerIdManager(FIRST_PRODUCER_ID);
    const markerIds = new IdSequence(1);
    this.createBrokers({ configs, producerIds, markerIds });
    seedInitialEpochs({
      producers: spec.producers,
      producerIds,
      transactionStatePartitionCount: this.transactionStatePartitions.length,
      replicaLogs: (key) => this.replicasOf(key).map((b) => this.logOf(b, key)),
    });
    for (let i = 0; i < spec.producers.count; i++) this.producers.push(this.newProducer(`p${i}`, `txn-${i}`));
    for (let i = 0; i < spec.consumers.count; i++) this.consumers.push(this.newConsumer(`c${i}`));
    for (let i = 0; i < (spec.producers.idempotent?.count ?? 0); i++)
      this.idempotentProducers.push(this.newIdempotentProducer(`i${i}`));
    const processors = spec.consumerOffsets?.processors;
    this.processors = processors ? new ProcessorGroup(this, processors) : null;
    this.committers = newCommitters(this, spec.consumerOffsets?.committers);
    this.nemesis = new Nemesis(this);
  }

  // ------------------------------------------------------------------ construction

  /** One KafkaBroker per node of the spec, each with the replicas assigned to it. */
  private createBrokers(parts: {
    configs: Map<PartitionKey, PartitionConfig>;
    producerIds: ProducerIdManager;
    markerIds: IdSequence;
  }): void {
    const { configs, producerIds, markerIds } = parts;
    const memberIds = new MemberIds(); // one for the cluster, as Kafka's random UUIDs never repeat
    for (const b of this.spec.brokers) {
      const mine = new Map([...configs].filter(([key]) => this.replicasOf(key).includes(b.id)));
      const shared: BrokerShared = {
        controller: { alterPartition: (item, onResult) => this.alterPartition(item, onResult) },
        producerIds,
        markerIds,
        transactionStatePartitions: this.spec.transactionState.partitions.length,
        onTruncate: (broker, partition, toOffset, removed) =>
          this.ctx.ghost.replicaTruncated({ broker, partition, toOffset, removed, atMs: this.sim.nowMs }),
        countTxnLogAppend: () => {
          this.txnLogAppends++;
        },
        txnLogOutage: (index) => (this.txnLogOutageUntil.get(index) ?? -1) > this.sim.nowMs,
        ...groupCoordinatorSettings(this.spec, memberIds, (accepted) => this.acceptedTxnOffsets.push(accepted)),
      };
      const broker = new KafkaBroker(this.ctx, b.id, {
        release: this.profileOf(b),
        partitionConfigs: mine,
        image: this.controller.image,
        shared,
      });
      this.brokers.set(b.id, broker);
    }
  }

  replicasOf(partition: PartitionKey): readonly string[] {
    return this.controller.registration(partition).replicas;
  }

  profileOf(node: NodeSpec, release: ReleaseName = node.release): ReleaseProfile {
    return releaseProfile(release, { ...node.overrides, ...this.spec.globalOverrides });
  }

  nodeSpec(id: string): NodeSpec {
    const spec = this.spec.brokers.find((b) => b.id === id);
    if (!spec) throw new Error(`unknown broker ${id}`);
    return spec;
  }

  /** The marker sender's requests get the marker faults (if the scenario sets them); everything else the network's. */
  private linkFaults(channel: string, direction: "request" | "response"): LinkFaults {
    const marker = this.spec.faults.markerRequests;
    return marker && channel === MARKER_CHANNEL && direction === "request" ? marker : this.spec.faults.network;
  }

  /** What every client knows when it starts: the leaders of the bootstrap metadata. */
  private bootstrapLeaders(): Map<PartitionKey, KnownLeader> {
    const image = this.controller.image;
    return new Map(
      this.partitions.map((p) => {
        const reg = image.partitions.get(p) as PartitionRegistration;
        return [p, { leader: reg.leader, leaderEpoch: reg.leaderEpoch }];
      }),
    );
  }

  /** A client's own metadata (for processors' consumers). */
  clientMetadataFor(client: string): ClientMetadata {
    return this.clientMetadata(client);
  }

  private clientMetadata(
    client: string,
    closed: () => boolean = () => false,
    onConnect: ((server: string) => void) | null = null,
  ): ClientMetadata {
    const p = this.spec.producers;
    return new ClientMetadata(this.ctx, client, {
      brokers: this.spec.brokers.map((b) => b.id),
      bootstrap: this.bootstrapLeaders(),
      config: { retryBackoffMs: p.retryBackoffMs, requestTimeoutMs: p.requestTimeoutMs },
      closed,
      onConnect,
    });
  }

  /** A transactional producer of the workload; `offsetsFor` makes it commit input offsets too (a processor). */
  newProducer(
    name: string,
    transactionalId: string,
    offsetsFor?: WorkloadConfig["offsetsFor"],
    processing?: Pick<WorkloadConfig, "transactions" | "processing">,
  ): TransactionalProducer {
    const p = this.spec.producers;
    let producer: TransactionalProducer | null = null;
    producer = new TransactionalProducer(
      this.ctx,
      producerSettings(p, { name, transactionalId }),
      {
        transactions: p.transactions,
        recordsPerTxn: p.recordsPerTxn,
        partitionsPerTxn: p.partitionsPerTxn,
        abortPpm: p.abortPpm,
        sendErrorPpm: p.sendErrorPpm ?? 0,
        emptyTxnPpm: p.emptyTxnPpm ?? 0,
        thinkMs: p.thinkMs,
        sendGapMs: p.sendGapMs,
        partitions: this.upstreamPartitions(),
        ...(offsetsFor ? { offsetsFor } : {}),
        ...processing,
      },
      this.clientMetadata(
        name,
        () => producer?.state === "closed",
        (server) => producer?.onConnection(server),
      ),
      // The client's own release, with the global overrides (a mutant's): never a broker's profile.
      producerBehaviour(releaseProfile(p.release, this.spec.globalOverrides).flags),
    );
    return producer;
  }

  /**
   * An idempotent producer (enable.idempotence without transactional.id) with the workload's
   * producer settings and its own delivery.timeout.ms, writing rounds of records to the partitions
   * the transactional producers write.
   */
  private newIdempotentProducer(name: string): IdempotentProducer {
    const p = this.spec.producers;
    const idem = p.idempotent as NonNullable<typeof p.idempotent>;
    let producer: IdempotentProducer | null = null;
    producer = new IdempotentProducer(
      this.ctx,
      producerSettings(p, { name, transactionalId: name }, idem.deliveryTimeoutMs),
      {
        rounds: idem.rounds,
        recordsPerRound: p.recordsPerTxn,
        partitionsPerRound: p.partitionsPerTxn,
        thinkMs: p.thinkMs,
        partitions: this.upstreamPartitions(),
      },
      this.clientMetadata(name, () => producer?.isClosed ?? false),
      producerBehaviour(releaseProfile(p.release, this.spec.globalOverrides).flags),
    );
    return producer;
  }

  /** What the workload's producers write: every data partition, or only the input topic's when processors read it. */
  private upstreamPartitions(): readonly PartitionKey[] {
    const offsets = this.spec.consumerOffsets;
    if (!offsets?.processors) return this.partitions;
    return this.partitions.filter((p) => p.startsWith(`${offsets.inputTopic}-`));
  }

  private newConsumer(name: string): ReadCommittedConsumer {
    const c = this.spec.consumers;
    const flags = { ...this.spec.globalOverrides };
    let consumer: ReadCommittedConsumer | null = null;
    consumer = new ReadCommittedConsumer(this.ctx, name, {
      partitions: this.partitions,
      metadata: this.clientMetadata(name, () => consumer?.isStopped ?? false),
      config: {
        fetchMaxWaitMs: c.fetchMaxWaitMs,
        requestTimeoutMs: c.requestTimeoutMs,
        retryBackoffMs: c.retryBackoffMs,
        maxBatchesPerPartition: CONSUMER_MAX_BATCHES,
      },
      mode: {
        filterAborted: flags.consumerFiltersAborted ?? true,
        readUncommittedBound: flags.consumerStopsAtLso === false,
      },
    });
    return consumer;
  }

  /** The nemesis: __transaction_state-`index` refuses appends until `untilMs` (NOT_ENOUGH_REPLICAS). */
  startTransactionLogOutage(index: number, untilMs: number): void {
    this.txnLogOutageUntil.set(index, Math.max(untilMs, this.txnLogOutageUntil.get(index) ?? -1));
  }

  logOf(broker: string, partition: PartitionKey): PartitionLog {
    const log = this.brokers.get(broker)?.logs.get(partition);
    if (!log) throw new Error(`${broker} holds no replica of ${partition}`);
    return log;
  }

  // ------------------------------------------------------------------ metadata and controller

  /** A controller decision: the leadership changes to the ghost, the image to every broker after its own delay. */
  private publish(image: MetadataImage, changes: readonly LeaderChange[]): void {
    for (const c of changes) this.ctx.ghost.leaderChanged(c);
    const { min, max } = this.spec.broker.metadataPropagationDelayMs;
    for (const broker of this.brokers.values()) {
      let stream = this.metadataStreams.get(broker.id);
      if (!stream) {
        stream = this.choices.stream(`metadata-propagation:${broker.id}`);
        this.metadataStreams.set(broker.id, stream);
      }
      const at = Math.max(this.sim.nowMs + stream.between(min, max), this.lastMetadataDeliveryMs.get(broker.id) ?? 0);
      this.lastMetadataDeliveryMs.set(broker.id, at);
      this.sim.scheduleAt(at, () => this.deliverMetadata(broker, image));
    }
  }

  private deliverMetadata(broker: KafkaBroker, image: MetadataImage): void {
    broker.onMetadataUpdate(image);
    const stop = this.shuttingDown.get(broker.id);
    if (stop && this.leadsNothing(broker.id, broker.metadataImage)) {
      this.shuttingDown.delete(broker.id);
      stop();
    }
  }

  private leadsNothing(broker: string, image: MetadataImage): boolean {
    for (const reg of image.partitions.values()) if (reg.leader === broker) return false;
    return true;
  }

  /** AlterPartition from a leader: to the controller and back, each way after a drawn delay. */
  private alterPartition(
    item: AlterPartitionItem,
    onResult: (errorCode: number, registration: PartitionRegistration) => void,
  ): void {
    const { broker, partition, leaderEpoch, partitionEpoch, newIsr } = item;
    const { min, max } = this.spec.broker.controllerRpcDelayMs;
    this.sim.schedule(this.controllerStream.between(min, max), () => {
      const result = this.controller.alterPartition(partition, broker, leaderEpoch, partitionEpoch, newIsr);
      this.sim.schedule(this.controllerStream.between(min, max), () => onResult(result.errorCode, result.registration));
    });
  }

  // ------------------------------------------------------------------ broker lifecycle (nemesis and scripts)

  /**
   * Controlled shutdown: the controller moves the broker's leadership away; the broker stops once
   * its own metadata shows it leads nothing; `then` runs after it stopped.
   */
  controlledShutdown(broker: string, then: () => void = () => {}): void {
    const b = this.brokerOf(broker);
    if (!b.isRunning) return then();
    this.sim.emit("controller", "broker.controlled-shutdown", { broker });
    this.shuttingDown.set(broker, () => {
      b.stop("controlled shutdown");
      this.controller.fence(broker);
      then();
    });
    this.controller.controlledShutdown(broker);
    // It led nothing already: no new image would tell it; stop on the image it has.
    if (this.leadsNothing(broker, b.metadataImage) && this.leadsNothing(broker, this.controller.image)) {
      const stop = this.shuttingDown.get(broker);
      this.shuttingDown.delete(broker);
      stop?.();
    }
  }

  /** A crash: the process dies now; the controller fences it when its session times out. */
  crash(broker: string): void {
    const b = this.brokerOf(broker);
    if (!b.isRunning) return;
    b.stop("crash");
    this.sim.schedule(this.spec.broker.brokerSessionTimeoutMs, () => {
      if (!b.isRunning) this.controller.fence(broker);
    });
  }

  /** Restart a stopped broker, on `release` (an upgrade) or its current one; it registers again (unfenced). */
  restart(broker: string, release: ReleaseName | null = null): void {
    const b = this.brokerOf(broker);
    if (b.isRunning) return;
    const profile = this.profileOf(this.nodeSpec(broker), release ?? b.releaseName);
    // The broker catches up with the metadata log before it registers.
    this.controller.fence(broker);
    b.restart(profile, this.controller.image);
    this.controller.unfence(broker);
  }

  brokerOf(id: string): KafkaBroker {
    const b = this.brokers.get(id);
    if (!b) throw new Error(`unknown broker ${id}`);
    return b;
  }

  /** Move the leadership of the __transaction_state partition of `transactionalId` (a coordinator failover). */
  failover(transactionalId: string): boolean {
    const index = transactionStatePartitionFor(transactionalId, this.transactionStatePartitions.length);
    return this.controller.moveLeader(transactionStatePartitionKey(index));
  }

  /** The coordinator serving `transactionalId` now: the leader of its partition, running and done loading (else null). */
  servingCoordinatorFor(transactionalId: string): TransactionCoordinator | null {
    const { broker, coordinatorEpoch } = this.coordinatorOf(transactionalId);
    const coordinator = broker === null ? null : this.brokerOf(broker).coordinator;
    if (!coordinator) return null;
    const index = coordinator.state.partitionFor(transactionalId);
    return coordinator.state.isServing(index, coordinatorEpoch) ? coordinator : null;
  }

  /** The current leader of a partition (the controller's view), or null while it has none. */
  leaderOf(partition: PartitionKey): string | null {
    return this.controller.registration(partition).leader;
  }

  /** Every partition `broker` is a replica of has a leader (it is back and nothing it holds is offline). */
  allPartitionsLed(broker: string): boolean {
    if (!this.brokerOf(broker).isRunning) return false;
    for (const reg of this.controller.image.partitions.values())
      if (reg.replicas.includes(broker) && reg.leader === null) return false;
    return true;
  }

  /**
   * UpdateFeatures for transaction.version: every registered broker's release must know the level
   * (4.0 and later know levels 1 and 2; a broker's own override of supportsTransactionVersion2 counts).
   */
  updateTransactionVersion(level: TransactionVersion): number {
    return this.controller.updateTransactionVersion(level, (id) => {
      const broker = this.brokers.get(id);
      return level === 0 || broker?.profile.flags.supportsTransactionVersion2 === true;
    });
  }

  /** An operator's upgrade of one broker: controlled shutdown, `downtimeMs` down, restart on `release`. */
  upgradeBroker(broker: string, release: ReleaseName, downtimeMs: number, then: () => void): void {
    this.nemesis.upgrade(broker, release, downtimeMs, then);
  }

  /** The broker coordinating `transactionalId` now (the controller's view), and its coordinator epoch. */
  coordinatorOf(transactionalId: string): { broker: string | null; coordinatorEpoch: number } {
    const index = transactionStatePartitionFor(transactionalId, this.transactionStatePartitions.length);
    const reg = this.controller.registration(transactionStatePartitionKey(index));
    return { broker: reg.leader, coordinatorEpoch: reg.leaderEpoch };
  }

  // ------------------------------------------------------------------ the run

  /** Workload phase (faults on), then a quiet phase (faults off, producers stopped). */
  /** `abort` is polled between events: true ends the run at once (no quiet phase, no final checks). */
  run(abort: () => boolean = () => false): ClusterRunOutcome {
    const { sim, spec } = this;
    this.startBrokers();
    const startRange = spec.producers.startMs;
    this.producers.forEach((p, i) => {
      // Producers after the first are always started in seeded runs; a shrunk tape can drop them.
      if (i > 0 && !this.choices.chance(workloadStreamName("start"), 1_000_000)) p.skip();
      else p.start(this.choices.between(workloadStreamName("start"), startRange.min, startRange.max));
    });
    for (const c of this.consumers) c.start();
    // After every other start draw, from each one's own stream: a run without them draws as before.
    for (const p of this.idempotentProducers)
      p.start(this.choices.between(workloadStreamName(p.config.name), startRange.min, startRange.max));
    this.processors?.start();
    for (const k of this.committers) k.start();
    this.nemesis.start();
    this.startOperator();
    sim.scheduleAt(spec.faults.windowMs, () => this.endFaults());
    // Asked before every event: a plain loop, no closure per producer.
    const upstreamDone = () => {
      for (const p of this.producers) if (!p.isDone) return false;
      return true;
    };
    const processors = this.processors;
    const producersDone = processors ? () => processors.isDone : upstreamDone;
    if (processors) this.watchProcessors(processors, upstreamDone);
    const bounds = { maxEvents: spec.bounds.maxEvents, maxTimeMs: spec.bounds.workloadDeadlineMs };
    let stop = sim.run(bounds, () => producersDone() || abort());
    const workloadEndMs = sim.nowMs;
    const done = producersDone();
    if (stop === "max-events" || abort())
      return { stop: abort() ? "stopped" : stop, workloadEndMs, producersDone: done };
    this.endFaults();
    for (const p of this.producers) p.stop();
    for (const p of this.idempotentProducers) p.stop();
    this.processors?.stop();
    for (const k of this.committers) k.stop();
    sim.emit("cluster", "quiet-period", { untilMs: sim.nowMs + spec.bounds.quietPeriodMs });
    stop = sim.run({ maxEvents: spec.bounds.maxEvents, maxTimeMs: sim.nowMs + spec.bounds.quietPeriodMs }, abort);
    for (const c of this.consumers) c.stop();
    return { stop, workloadEndMs, producersDone: done };
  }

  /** Processors stop once the upstream producers are done and nothing was processed for a while. */
  private watchProcessors(processors: ProcessorGroup, upstreamDone: () => boolean): void {
    const every = this.spec.consumerOffsets?.processors?.pollMs ?? 50;
    const check = () => {
      if (processors.isDone) return;
      if (upstreamDone()) processors.maybeStopIdle();
      else processors.markBusy();
      this.sim.schedule(every, check);
    };
    this.sim.schedule(every, check);
  }

  /** The operator of `kafka-transactions.sh abort`, when the scenario has one (it acts for the whole run). */
  private startOperator(): void {
    const settings = this.spec.faults.adminAbortTransaction;
    if (!settings) return;
    const lookups: AdminLookups = {
      leaderOf: (partition) => this.leaderOf(partition),
      logOf: (broker, partition) => {
        const b = this.brokers.get(broker);
        return b?.isRunning ? b.logs.get(partition) : undefined;
      },
    };
    const admin = new KafkaAdminClient(this.ctx, lookups, settings.retryBackoffMs);
    new TransactionAbortOperator(this.ctx, admin, this.partitions, lookups, settings).start();
  }

  /** Every broker starts on the bootstrap image: replicas take their roles, coordinators load. */
  startBrokers(): void {
    for (const broker of this.brokers.values()) if (!broker.isRunning) broker.start(this.controller.image);
  }

  private endFaults(): void {
    if (!this.net.faultsActive) return;
    this.net.faultsActive = false;
    this.nemesis.stop();
    this.sim.emit("cluster", "faults-off", {});
  }

  get txnLogAppendCount(): number {
    return this.txnLogAppends;
  }

  // ------------------------------------------------------------------ what the oracle reads at the end

  /** Every partition as the cluster's consumers read it now (default read_committed if there are none). */
  finalReads(): FinalPartitionRead[] {
    return finalReads(this);
  }

  /** What the processing checks read at the end (null without processors). */
  processingView(): ProcessingView | null {
    return processingView(this);
  }

  /** What each consumer polled during the run, in poll order. */
  consumerObservations(): { consumer: string; observations: readonly Observation[] }[] {
    return this.consumers.map((c) => ({ consumer: c.name, observations: c.observations }));
  }

  snapshot(): ClusterSnapshot {
    return clusterSnapshot(this);
  }
}
