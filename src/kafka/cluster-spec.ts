import type { LinkFaults } from "../sim/network.js";
import type { BrokerConfig } from "./cluster-context.js";
import type { TransactionVersion } from "./common/types.js";
import type { ReleaseFlags, ReleaseName } from "./release.js";
import type { Range } from "./faults/fault-settings.js";
import type { NodeFaultSpecs } from "./faults/registry.js";

/** A broker with its release and flag overrides. Every broker hosts every role. */
export interface NodeSpec {
  id: string;
  release: ReleaseName;
  overrides: Partial<ReleaseFlags>;
}

/** A topic: each partition's replicas in assignment order (replicas[0] is the preferred leader). */
export interface TopicSpec {
  name: string;
  partitions: { replicas: string[] }[];
  /** min.insync.replicas of the topic. */
  minInsyncReplicas: number;
  /** unclean.leader.election.enable of the topic (always false for __transaction_state). */
  uncleanLeaderElectionEnable: boolean;
}

export type { Range };

export interface ProducerSpec {
  count: number;
  transactionVersion: TransactionVersion;
  /** The producers' client release: its flags (with the global overrides) are the producer's behaviour. */
  release: ReleaseName;
  transactions: number;
  recordsPerTxn: Range;
  partitionsPerTxn: Range;
  abortPpm: number;
  /** Client faults (0 when absent): a send() that fails at once; a transaction without records. */
  sendErrorPpm?: number;
  emptyTxnPpm?: number;
  thinkMs: Range;
  /** Time between two send() calls of one transaction (max 0: every record at once). */
  sendGapMs: Range;
  startMs: Range;
  transactionTimeoutMs: number;
  requestTimeoutMs: number;
  retryBackoffMs: number;
  /** delivery.timeout.ms, linger.ms, batch.size (in records), max.in.flight.requests.per.connection, max.block.ms. */
  deliveryTimeoutMs: number;
  lingerMs: number;
  recordsPerBatch: number;
  maxInFlightRequestsPerConnection: number;
  maxBlockMs: number;
  /** Pre-existing producer epoch (written to __transaction_state before the run), e.g. near exhaustion. */
  initialProducerEpoch: number | null;
  /** Idempotent (non-transactional) producers `i0`, `i1`...: rounds of sends, their delivery.timeout.ms. Absent: none. */
  idempotent?: IdempotentProducerSpec;
}

export interface IdempotentProducerSpec {
  count: number;
  rounds: number;
  deliveryTimeoutMs: number;
}

export interface ConsumerSpec {
  count: number;
  /** fetch.max.wait.ms */
  fetchMaxWaitMs: number;
  requestTimeoutMs: number;
  retryBackoffMs: number;
}

/** A broker restarted on another release at a time (controlled shutdown, restart, catch-up). */
export interface TimedUpgrade {
  atMs: number;
  node: string;
  release: ReleaseName;
  downtimeMs: number;
}

/**
 * A rolling upgrade as operators run it: from `startMs`, each broker in `order` is shut down
 * (controlled), restarted on `release` after `downtimeMs`, and the next one waits until it is back
 * in every ISR it belongs to; preferred-leader election then moves leadership back.
 */
export interface RollingUpgradeSpec {
  startMs: number;
  release: ReleaseName;
  order: string[];
  downtimeMs: number;
}

/** The faults of a run; the registered ones (src/kafka/faults/registry.ts) declare their own part. */
export interface FaultSpec extends NodeFaultSpecs {
  /** Faults (other than scheduled upgrades) happen only before this virtual time. */
  windowMs: number;
  /** Default faults on every link. */
  network: LinkFaults;
  /** Faults on the marker channel's connections (WriteTxnMarkers), replacing the default there. */
  markerRequests: LinkFaults | null;
  /** The nemesis draws node-level faults every tick. */
  nemesisTickMs: number;
  /** At most this many brokers down at once by the nemesis's hand (always at least one left running). */
  maxBrokersDown: number;
  upgrades: TimedUpgrade[];
  /** transaction.version finalized anew at a time (UpdateFeatures), in time order. */
  featureUpdates: { atMs: number; transactionVersion: TransactionVersion }[];
  rollingUpgrade: RollingUpgradeSpec | null;
  /** An operator aborts transactions left open with Admin.abortTransaction (KIP-664); null: never (the default). */
  adminAbortTransaction: AdminAbortSpec | null;
}

/** The operator of `kafka-transactions.sh abort` (client/admin-client.ts). */
export interface AdminAbortSpec {
  /** How often the operator looks at every partition's open transactions (DescribeProducers). */
  checkIntervalMs: number;
  /** A transaction open at a leader at least this long is aborted. */
  openForMs: number;
  /** Between DescribeProducers and abortTransaction: the operator's own latency (drawn per abort). */
  operatorDelayMs: Range;
  /** retry.backoff.ms of the admin client. */
  retryBackoffMs: number;
}

export interface RunBoundsSpec {
  /** Hard cap on simulation events for one seed. */
  maxEvents: number;
  /** Workload deadline: producers that are not done by then are stopped. */
  workloadDeadlineMs: number;
  /** Fault-free time after the workload, before the final checks (must exceed the txn timeout). */
  quietPeriodMs: number;
}

/** __transaction_state: its partition count (transaction.state.log.num.partitions) and assignment. */
export interface TransactionStateSpec {
  partitions: { replicas: string[] }[];
  /** transaction.state.log.min.isr */
  minInsyncReplicas: number;
}

/**
 * __consumer_offsets and its group coordinators (issue 17): present only in a cluster that runs
 * consumer groups; absent, the cluster is exactly what it was before groups were modelled.
 */
export interface ConsumerOffsetsSpec {
  /** offsets.topic.num.partitions, with each partition's replicas. */
  partitions: { replicas: string[] }[];
  /** offsets.topic's min.insync.replicas. */
  minInsyncReplicas: number;
  /** The topic whose partitions every group's members share (their subscription). */
  inputTopic: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** KIP-447's generation check on TxnOffsetCommit (off models the pre-2.5 gap). */
  txnOffsetCommitGenerationCheck: boolean;
  /** Whether the marker's TransactionVersion reaches the offsets partition's check (Kafka: true; false drops it). */
  markerTransactionVersionReachesLog: boolean;
  /** The consume-transform-produce workload (issue 17): absent, no processors. */
  processors?: ProcessorsSpec;
  /** Consumers committing with a plain OffsetCommit carrying metadata (KAFKA-16371's ground): absent, none. */
  committers?: CommittersSpec;
}

/**
 * Plain committers: consumers of one group (manual assignment) that commit the input topic's
 * partitions with OffsetCommit and metadata, and read them back with require_stable OffsetFetch.
 */
export interface CommittersSpec {
  count: number;
  groupId: string;
  commitIntervalMs: number;
  commitsPerRestart: number;
  /** Per partition per commit: metadata longer than offset.metadata.max.bytes (4096). */
  metadataTooLargePpm: number;
}

/** A processor restart fault: how often, how long the slot is down, how often with a new transactional.id. */
export interface ProcessorRestartSpec {
  ppm: number;
  downMs: { min: number; max: number };
  newTransactionalIdPpm: number;
}

/** Processors of one group: they read the input topic and write the output topic transactionally. */
export interface ProcessorsSpec {
  count: number;
  groupId: string;
  outputTopic: string;
  /** Transactions per processor instance at most. */
  transactions: number;
  maxRecordsPerTxn: number;
  pollMs: number;
  /** Per processor per nemesis tick during the fault window: pause (a zombie), crash or leave, and restart. */
  pause: { ppm: number; durationMs: { min: number; max: number } };
  crash: ProcessorRestartSpec;
  leave: ProcessorRestartSpec;
  /** After the upstream producers finished, processors stop once idle this long. */
  idleStopMs: number;
}

/** Everything the model needs to build and run one cluster (produced from a scenario). */
export interface ClusterSpec {
  brokers: NodeSpec[];
  transactionState: TransactionStateSpec;
  topics: TopicSpec[];
  broker: BrokerConfig;
  producers: ProducerSpec;
  consumers: ConsumerSpec;
  faults: FaultSpec;
  bounds: RunBoundsSpec;
  /** Flag overrides applied to every node (how mutants are applied). */
  globalOverrides: Partial<ReleaseFlags>;
  /** Consumer groups and __consumer_offsets (absent: none). */
  consumerOffsets?: ConsumerOffsetsSpec;
  /** A generic scenario's per-seed draw (the run first draws its setting within this spec); absent: none. */
  draw?: "everything";
}
