import type { ChoiceSource } from "../sim/choice-tape.js";
import type { Network } from "../sim/network.js";
import type { Simulation } from "../sim/simulation.js";
import type { TransactionVersion } from "./common/types.js";
import type { KafkaEvents } from "./trace-events.js";
import type { FeaturesImage } from "./metadata/metadata-image.js";
import type { LogObserverFactory } from "./broker/partition-log-observer.js";
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
  /**
   * transactional.id.expiration.ms: an id in Empty/CompleteCommit/CompleteAbort not updated for this
   * long is removed (a tombstone in __transaction_state). Null: never within a run (Kafka's default,
   * 7 days, is far beyond any run), and no expiration task is scheduled.
   */
  transactionalIdExpirationMs: number | null;
  /** transaction.remove.expired.transaction.cleanup.interval.ms: how often the expiration task runs. */
  removeExpiredTransactionalIdsIntervalMs: number;
  /**
   * transaction.version finalized in the controller's bootstrap image; an operator may change it
   * later (faults.featureUpdates), and each broker then reads its own image's level.
   */
  finalizedTransactionVersion: TransactionVersion;
  /** Time a new coordinator spends loading a __transaction_state partition before it serves its ids. */
  txnLogLoadDelayMs: number;
  /** Backoff before the marker sender retries a failed CompleteX append. */
  txnLogAppendRetryBackoffMs: number;
  /** add.partitions.to.txn.retry.backoff.ms: a leader's wait before it asks the coordinator again (KAFKA-18654). */
  addPartitionsToTxnRetryBackoffMs: number;
  /** add.partitions.to.txn.retry.backoff.max.ms: how long it keeps retrying CONCURRENT_TRANSACTIONS (capped by requestTimeoutMs). */
  addPartitionsToTxnRetryBackoffMaxMs: number;
  /** replica.fetch.wait.max.ms: how long a leader parks a follower's fetch with nothing new. */
  replicaFetchWaitMaxMs: number;
  /** replica.fetch.backoff.ms: a follower's wait after a failed fetch or a partition error. */
  replicaFetchBackoffMs: number;
  /** replica.lag.time.max.ms: a follower not caught up for this long leaves the ISR. */
  replicaLagTimeMaxMs: number;
  /** How long a controller decision takes to reach each broker (drawn per broker and update, in order). */
  metadataPropagationDelayMs: { min: number; max: number };
  /** One way of an AlterPartition between a leader and the controller (drawn per message). */
  controllerRpcDelayMs: { min: number; max: number };
  /** broker.session.timeout.ms: a broker that stopped heartbeating is fenced this long after it crashed. */
  brokerSessionTimeoutMs: number;
  /** leader.imbalance.check.interval.ms of auto.leader.rebalance (0: no preferred-leader election). */
  leaderImbalanceCheckIntervalMs: number;
  /** producer.id.expiration.ms and its check interval (absent: producer state never expires). */
  producerIdExpiration?: { expirationMs: number; checkIntervalMs: number };
  /**
   * Each broker handles the requests of one connection one at a time, in order, as Kafka's
   * SocketServer does (it mutes a connection from reading a request until the response is sent).
   * Absent or false: a broker handles every request as it arrives, so a producer's pipelined
   * produce requests to one leader are verified and appended concurrently.
   */
  oneRequestPerConnection?: boolean;
}

/** The shared handles every node of the model receives. */
export interface ClusterContext {
  readonly sim: Simulation<KafkaEvents>;
  readonly net: Network<KafkaRequest, KafkaResponse>;
  readonly choices: ChoiceSource;
  readonly ghost: GhostObserver;
  readonly config: BrokerConfig;
  /**
   * The finalized features a broker answers ApiVersions with: its own metadata image's (undefined
   * while it is not running, or in a harness without brokers).
   */
  readonly featuresOf?: (broker: string) => FeaturesImage | undefined;
  /** Observers of every replica's log (trace validation against Kafka's classes); absent in fuzzing. */
  readonly logObservers?: LogObserverFactory;
}
