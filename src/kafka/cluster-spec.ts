import type { LinkFaults } from "../sim/network.js";
import type { BrokerConfig } from "./cluster-context.js";
import type { TransactionVersion } from "./common/types.js";
import type { ReleaseFlags, ReleaseName } from "./release.js";

/** A coordinator-capable node or a broker, with its release and flag overrides. */
export interface NodeSpec {
  id: string;
  release: ReleaseName;
  overrides: Partial<ReleaseFlags>;
}

/** A topic; leaders[i] is the broker leading partition i. */
export interface TopicSpec {
  name: string;
  leaders: string[];
}

export interface Range {
  min: number;
  max: number;
}

export interface ProducerSpec {
  count: number;
  transactionVersion: TransactionVersion;
  transactions: number;
  recordsPerTxn: Range;
  partitionsPerTxn: Range;
  abortPpm: number;
  thinkMs: Range;
  startMs: Range;
  transactionTimeoutMs: number;
  requestTimeoutMs: number;
  retryBackoffMs: number;
  maxAttempts: number;
  /** Pre-existing producer epoch (written to __transaction_state before the run), e.g. near exhaustion. */
  initialProducerEpoch: number | null;
}

export interface ConsumerSpec {
  count: number;
  pollIntervalMs: number;
  requestTimeoutMs: number;
}

export interface TimedUpgrade {
  atMs: number;
  node: string;
  release: ReleaseName;
}

export interface FaultSpec {
  /** Faults (other than scheduled upgrades) happen only before this virtual time. */
  windowMs: number;
  /** Default faults on every link. */
  network: LinkFaults;
  /** Faults on coordinator -> broker links (WriteTxnMarkers), replacing the default there. */
  markerRequests: LinkFaults | null;
  /** The nemesis draws node-level faults every tick. */
  nemesisTickMs: number;
  brokerStall: { ppm: number; durationMs: Range };
  linkPartition: { ppm: number; durationMs: Range; oneWayPpm: number };
  coordinatorFailover: { ppm: number; resignDelayMs: Range };
  producerPause: { ppm: number; durationMs: Range };
  producerRestart: { ppm: number; zombiePauseMs: Range };
  upgrades: TimedUpgrade[];
}

export interface RunBoundsSpec {
  /** Hard cap on simulation events for one seed. */
  maxEvents: number;
  /** Workload deadline: producers that are not done by then are stopped. */
  workloadDeadlineMs: number;
  /** Fault-free time after the workload, before the final checks (must exceed the txn timeout). */
  quietPeriodMs: number;
}

/** Everything the model needs to build and run one cluster (produced from a scenario). */
export interface ClusterSpec {
  coordinators: NodeSpec[];
  brokers: NodeSpec[];
  topics: TopicSpec[];
  broker: BrokerConfig;
  producers: ProducerSpec;
  consumers: ConsumerSpec;
  faults: FaultSpec;
  bounds: RunBoundsSpec;
  /** Flag overrides applied to every node (how mutants are applied). */
  globalOverrides: Partial<ReleaseFlags>;
}
