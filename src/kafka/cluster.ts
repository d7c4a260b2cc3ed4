import type { ChoiceSource } from "../sim/choice-tape.js";
import { type LinkFaults, Network } from "../sim/network.js";
import type { Simulation, StopReason } from "../sim/simulation.js";
import { KafkaBroker } from "./broker/kafka-broker.js";
import type { LogBatch } from "./broker/partition-log.js";
import {
  type ConsumedRecord,
  type Observation,
  ReadCommittedConsumer,
  readPartition,
} from "./client/read-committed-consumer.js";
import { TransactionalProducer, workloadStreamName } from "./client/transactional-producer.js";
import type { ClusterContext, MetadataCache } from "./cluster-context.js";
import type { ClusterSpec, NodeSpec } from "./cluster-spec.js";
import { IdSequence } from "./common/id-sequence.js";
import { NO_PRODUCER_ID, type PartitionKey, partitionKey } from "./common/types.js";
import { ProducerIdManager, TransactionCoordinator } from "./coordinator/transaction-coordinator.js";
import { TransactionLog } from "./coordinator/transaction-log.js";
import type { TransactionStateName } from "./coordinator/transaction-state.js";
import type { GhostObserver } from "./ghost.js";
import { Nemesis } from "./nemesis.js";
import { describeMessage, type KafkaRequest, type KafkaResponse, labelOf } from "./protocol.js";
import { type ReleaseName, releaseProfile } from "./release.js";
import type { ClusterEvents } from "./trace-events.js";

/** First producer id handed out (ProducerIdManager blocks start elsewhere in Kafka; any value works). */
const FIRST_PRODUCER_ID = 1000;

/** What the final checks see of the cluster after the quiet period. */
export interface ClusterSnapshot {
  coordinator: string;
  coordinatorEpoch: number;
  transactions: {
    transactionalId: string;
    state: TransactionStateName;
    pendingState: TransactionStateName | null;
    producerId: number;
    producerEpoch: number;
    ghostTxn: string | null;
    partitions: PartitionKey[];
  }[];
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
}

export interface ClusterRunOutcome {
  stop: StopReason;
  workloadEndMs: number;
  producersDone: boolean;
}

/** The whole modelled cluster: coordinators, brokers, clients, network and nemesis. */
export class Cluster {
  readonly ctx: ClusterContext;
  readonly net: Network<KafkaRequest, KafkaResponse>;
  readonly log: TransactionLog;
  readonly brokers = new Map<string, KafkaBroker>();
  readonly coordinators = new Map<string, TransactionCoordinator>();
  readonly producers: TransactionalProducer[] = [];
  readonly consumers: ReadCommittedConsumer[] = [];
  readonly partitions: PartitionKey[] = [];
  private readonly leaders = new Map<PartitionKey, string>();
  private readonly nemesis: Nemesis;

  constructor(
    readonly spec: ClusterSpec,
    readonly sim: Simulation<ClusterEvents>,
    readonly choices: ChoiceSource,
    ghost: GhostObserver,
  ) {
    for (const topic of spec.topics) {
      topic.leaders.forEach((broker, i) => {
        const p = partitionKey(topic.name, i);
        this.partitions.push(p);
        this.leaders.set(p, broker);
      });
    }
    const coordinatorIds = new Set(spec.coordinators.map((c) => c.id));
    this.net = new Network<KafkaRequest, KafkaResponse>(
      sim,
      choices,
      (from, to) => this.linkFaults(coordinatorIds, from, to),
      labelOf,
      describeMessage,
    );
    const first = spec.coordinators[0];
    if (!first) throw new Error("a cluster needs a coordinator");
    const metadata: MetadataCache = {
      leaderOf: (p) => this.leaders.get(p) ?? null,
      coordinatorNode: () => this.log.leader,
    };
    this.ctx = { sim, net: this.net, choices, ghost, metadata, config: spec.broker };
    this.log = new TransactionLog(this.ctx, first.id, 0);
    const producerIds = new ProducerIdManager(FIRST_PRODUCER_ID);
    const markerIds = new IdSequence(1);
    for (const c of spec.coordinators) {
      this.coordinators.set(
        c.id,
        new TransactionCoordinator(this.ctx, c.id, this.profileOf(c), this.log, producerIds, markerIds),
      );
    }
    for (const b of spec.brokers) {
      const led = this.partitions.filter((p) => this.leaders.get(p) === b.id);
      this.brokers.set(b.id, new KafkaBroker(this.ctx, b.id, this.profileOf(b), led));
    }
    this.seedInitialEpochs(producerIds);
    for (let i = 0; i < spec.producers.count; i++) this.producers.push(this.newProducer(`p${i}`, `txn-${i}`));
    this.consumers.push(
      ...Array.from({ length: spec.consumers.count }, (_, i) => {
        const flags = { ...spec.globalOverrides };
        return new ReadCommittedConsumer(
          this.ctx,
          `c${i}`,
          this.partitions,
          spec.consumers.pollIntervalMs,
          spec.consumers.requestTimeoutMs,
          flags.consumerFiltersAborted ?? true,
          flags.consumerStopsAtLso === false,
        );
      }),
    );
    this.nemesis = new Nemesis(this);
  }

  profileOf(node: NodeSpec, release: ReleaseName = node.release) {
    return releaseProfile(release, { ...node.overrides, ...this.spec.globalOverrides });
  }

  private linkFaults(coordinators: Set<string>, from: string, to: string): LinkFaults {
    const marker = this.spec.faults.markerRequests;
    return marker && coordinators.has(from) && this.brokers.has(to) ? marker : this.spec.faults.network;
  }

  newProducer(name: string, transactionalId: string): TransactionalProducer {
    const p = this.spec.producers;
    return new TransactionalProducer(
      this.ctx,
      {
        name,
        transactionalId,
        transactionVersion: p.transactionVersion,
        transactionTimeoutMs: p.transactionTimeoutMs,
        requestTimeoutMs: p.requestTimeoutMs,
        retryBackoffMs: p.retryBackoffMs,
        maxAttempts: p.maxAttempts,
      },
      {
        transactions: p.transactions,
        recordsPerTxn: p.recordsPerTxn,
        partitionsPerTxn: p.partitionsPerTxn,
        abortPpm: p.abortPpm,
        thinkMs: p.thinkMs,
        partitions: this.partitions,
      },
    );
  }

  /** Scenarios that start near epoch exhaustion pre-write an Empty record per transactional.id. */
  private seedInitialEpochs(producerIds: ProducerIdManager): void {
    const epoch = this.spec.producers.initialProducerEpoch;
    if (epoch === null) return;
    for (let i = 0; i < this.spec.producers.count; i++) {
      this.log.seed(`txn-${i}`, {
        producerId: producerIds.generateProducerId(),
        prevProducerId: NO_PRODUCER_ID,
        nextProducerId: NO_PRODUCER_ID,
        producerEpoch: epoch,
        lastProducerEpoch: -1,
        txnTimeoutMs: this.spec.producers.transactionTimeoutMs,
        txnState: "Empty",
        topicPartitions: [],
        txnStartTimestamp: -1,
        txnLastUpdateTimestamp: 0,
        clientTransactionVersion: this.spec.producers.transactionVersion >= 2 ? 2 : 0,
        ghostTxn: null,
      });
    }
  }

  /** The first coordinator takes __transaction_state (coordinator epoch 1) and starts loading it. */
  electFirstCoordinator(): void {
    const coordinator = this.coordinators.get(this.log.leader) as TransactionCoordinator;
    coordinator.onElection(this.log.elect(this.log.leader));
  }

  /** The node that owns __transaction_state, once it has loaded it (null while loading). */
  get servingCoordinator(): TransactionCoordinator | null {
    const coordinator = this.coordinators.get(this.log.leader) as TransactionCoordinator;
    return coordinator.state.isServing(this.log.epoch) ? coordinator : null;
  }

  /** Move __transaction_state to the next coordinator node (what the nemesis does; scripts call it too). */
  failover(): void {
    this.nemesis.failover();
  }

  /** Restart a node on another release (rolling upgrade). */
  upgrade(node: string, release: ReleaseName): void {
    this.nemesis.upgrade(node, release);
  }

  /** Workload phase (faults on), then a quiet phase (faults off, producers stopped). */
  /** `abort` is polled between events: true ends the run at once (no quiet phase, no final checks). */
  run(abort: () => boolean = () => false): ClusterRunOutcome {
    const { sim, spec } = this;
    this.electFirstCoordinator();
    const startRange = spec.producers.startMs;
    this.producers.forEach((p, i) => {
      // Producers after the first are always started in seeded runs; a shrunk tape can drop them.
      if (i > 0 && !this.choices.chance(workloadStreamName("start"), 1_000_000)) p.skip();
      else p.start(this.choices.between(workloadStreamName("start"), startRange.min, startRange.max));
    });
    for (const c of this.consumers) c.start();
    this.nemesis.start();
    sim.scheduleAt(spec.faults.windowMs, () => this.endFaults());
    // Asked before every event: a plain loop, no closure per producer.
    const producersDone = () => {
      for (const p of this.producers) if (!p.isDone) return false;
      return true;
    };
    const bounds = { maxEvents: spec.bounds.maxEvents, maxTimeMs: spec.bounds.workloadDeadlineMs };
    let stop = sim.run(bounds, () => producersDone() || abort());
    const workloadEndMs = sim.nowMs;
    const done = producersDone();
    if (stop === "max-events" || abort())
      return { stop: abort() ? "stopped" : stop, workloadEndMs, producersDone: done };
    this.endFaults();
    for (const p of this.producers) p.stop();
    sim.emit("cluster", "quiet-period", { untilMs: sim.nowMs + spec.bounds.quietPeriodMs });
    stop = sim.run({ maxEvents: spec.bounds.maxEvents, maxTimeMs: sim.nowMs + spec.bounds.quietPeriodMs }, abort);
    for (const c of this.consumers) c.stop();
    return { stop, workloadEndMs, producersDone: done };
  }

  private endFaults(): void {
    if (!this.net.faultsActive) return;
    this.net.faultsActive = false;
    this.nemesis.stop();
    this.sim.emit("cluster", "faults-off", {});
  }

  /** Every partition as the cluster's consumers read it now (default read_committed if there are none). */
  finalReads(): FinalPartitionRead[] {
    const consumer = this.consumers[0];
    return this.partitions.map((partition) => {
      const brokerId = this.leaders.get(partition) as string;
      const broker = this.brokers.get(brokerId) as KafkaBroker;
      const log = broker.logs.get(partition);
      if (!log) throw new Error(`${brokerId} does not hold ${partition}`);
      const { records, readBound } = consumer ? consumer.readAll(log) : readPartition(log);
      return {
        partition,
        broker: brokerId,
        brokerRelease: broker.releaseName,
        readBound,
        highWatermark: log.highWatermark,
        records,
      };
    });
  }

  /** What each consumer polled during the run, in poll order. */
  consumerObservations(): { consumer: string; observations: readonly Observation[] }[] {
    return this.consumers.map((c) => ({ consumer: c.name, observations: c.observations }));
  }

  snapshot(): ClusterSnapshot {
    const owner = this.coordinators.get(this.log.leader) as TransactionCoordinator;
    const transactions = [...owner.state.all()].map((m) => ({
      transactionalId: m.transactionalId,
      state: m.state,
      pendingState: m.pendingState,
      producerId: m.producerId,
      producerEpoch: m.producerEpoch,
      ghostTxn: m.ghostTxn,
      partitions: [...m.topicPartitions],
    }));
    const partitions = this.partitions.map((partition) => {
      const brokerId = this.leaders.get(partition) as string;
      const broker = this.brokers.get(brokerId) as KafkaBroker;
      const log = broker.logs.get(partition);
      if (!log) throw new Error(`${brokerId} does not hold ${partition}`);
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
        broker: brokerId,
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
    return { coordinator: this.log.leader, coordinatorEpoch: this.log.epoch, transactions, partitions };
  }
}
