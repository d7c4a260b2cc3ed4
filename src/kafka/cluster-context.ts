import type { ChoiceSource } from "../sim/choice-tape.js";
import type { Network } from "../sim/network.js";
import type { Simulation } from "../sim/simulation.js";
import type { KafkaEvents } from "./trace-events.js";
import type { PartitionKey, TransactionVersion } from "./common/types.js";
import type { GhostObserver } from "./ghost.js";
import type { KafkaRequest, KafkaResponse } from "./protocol.js";

/** Broker and coordinator settings, in Kafka's config names where Kafka has one. */
export interface BrokerConfig {
  /** request.timeout.ms of the coordinator's marker sender (InterBrokerSendThread / NetworkClient). */
  requestTimeoutMs: number;
  /** reconnect.backoff.ms of NetworkClient. */
  reconnectBackoffMs: number;
  /** transaction.max.timeout.ms */
  transactionMaxTimeoutMs: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  abortTimedOutTransactionCleanupIntervalMs: number;
  /** Finalized transaction.version feature level (used for coordinator-initiated aborts). */
  finalizedTransactionVersion: TransactionVersion;
  /** Latency of a durable append to __transaction_state (acks=-1), drawn per write. */
  txnLogAppendDelayMs: { min: number; max: number };
  /** Probability (ppm) that a __transaction_state append fails with COORDINATOR_NOT_AVAILABLE. */
  txnLogAppendFailurePpm: number;
  /** Time a new coordinator spends loading __transaction_state before it serves requests. */
  txnLogLoadDelayMs: number;
  /** Time for followers to replicate an append (high watermark advance), drawn per append. */
  replicationDelayMs: { min: number; max: number };
  /** Backoff before the marker sender retries a failed CompleteX append. */
  txnLogAppendRetryBackoffMs: number;
}

export interface MetadataCache {
  /** Leader broker of a partition, or null if the partition does not exist. */
  leaderOf(partition: PartitionKey): string | null;
  /** The node that currently owns __transaction_state (what FindCoordinator answers). */
  coordinatorNode(): string;
}

/** The shared handles every node of the model receives. */
export interface ClusterContext {
  readonly sim: Simulation<KafkaEvents>;
  readonly net: Network<KafkaRequest, KafkaResponse>;
  readonly choices: ChoiceSource;
  readonly ghost: GhostObserver;
  readonly metadata: MetadataCache;
  readonly config: BrokerConfig;
}
