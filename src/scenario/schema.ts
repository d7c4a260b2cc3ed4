import { z } from "zod";
import { PRODUCER_DEFAULTS } from "../kafka/client/producer-config.js";
import { MAX_VIRTUAL_TIME_MS, ms, probability, range } from "../kafka/faults/fault-settings.js";
import { nodeFaultSchemas } from "../kafka/faults/registry.js";
import { FLAG_NAMES, RELEASE_NAMES } from "../kafka/release.js";
import { EVENT_POINTS, MARKER_VALUES, OFFSETS_MARKER_VALUES } from "../oracle/protocol-coverage.js";
import { VIOLATION_KINDS } from "../oracle/violation.js";
import { scriptSchema } from "./script/script-schema.js";

/** Upper bounds that keep one seed within what the tool can honestly run. */
export const LIMITS = {
  brokers: 32,
  topics: 16,
  partitionsPerTopic: 64,
  producers: 64,
  transactionsPerProducer: 10_000,
  recordsPerTxn: 1_000,
  consumers: 8,
  /** A recorded trace (replay, shrink, report diagrams) takes about 1.3 KB per event: 2.6 GB at this bound. */
  maxEvents: 2_000_000,
  /** producers x transactions: about 2 KB of model state per record (7 KB with the trace recorded). */
  transactionsPerSeed: 50_000,
  /** producers x transactions x the most records per transaction. */
  recordsPerSeed: 200_000,
  virtualTimeMs: MAX_VIRTUAL_TIME_MS,
  seeds: 100_000_000,
} as const;

const nodeId = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, {
  message: "expected a node id such as broker-1 (lower case letters, digits, dashes)",
});
const release = z.enum(RELEASE_NAMES);

const flagShape = Object.fromEntries(
  FLAG_NAMES.map((name) => [
    name,
    name === "maxWriteTxnMarkersVersion" ? z.union([z.literal(1), z.literal(2)]).optional() : z.boolean().optional(),
  ]),
) as Record<(typeof FLAG_NAMES)[number], z.ZodOptional<z.ZodBoolean>>;
export const flagOverridesSchema = z.strictObject(flagShape);

const node = z.strictObject({
  id: nodeId,
  release,
  overrides: flagOverridesSchema.default({}),
});

const linkFaults = z.strictObject({
  delayMs: range().default([1, 5]),
  slow: z
    .strictObject({ probability: probability.default(0), delayMs: range().default([100, 1000]) })
    .default({ probability: 0, delayMs: [100, 1000] }),
  drop: probability.default(0),
  duplicate: probability.default(0),
  reorder: probability.default(0),
});

/**
 * Broker settings, in Kafka's config names, on the scenario's time scale (about 1/30 of Kafka's
 * defaults for timeouts, so that a run covers many transactions in a few simulated seconds).
 */
const brokerConfig = z.strictObject({
  requestTimeoutMs: ms().min(1).default(300),
  reconnectBackoffMs: ms().default(50),
  transactionMaxTimeoutMs: ms().min(1).default(900_000),
  abortTimedOutTransactionCleanupIntervalMs: ms().min(1).default(500),
  /** transactional.id.expiration.ms; null (the default): ids never expire within a run. */
  transactionalIdExpirationMs: ms().min(1).nullable().default(null),
  /** transaction.remove.expired.transaction.cleanup.interval.ms */
  removeExpiredTransactionalIdsIntervalMs: ms().min(1).default(500),
  txnLogLoadDelayMs: ms().default(20),
  txnLogAppendRetryBackoffMs: ms().min(1).default(20),
  /** add.partitions.to.txn.retry.backoff.ms and .max.ms (KAFKA-18654), Kafka's defaults unscaled as the client's retry backoff. */
  addPartitionsToTxnRetryBackoffMs: ms().min(1).default(20),
  addPartitionsToTxnRetryBackoffMaxMs: ms().default(100),
  replicaFetchWaitMaxMs: ms().min(1).default(500),
  replicaFetchBackoffMs: ms().min(1).default(100),
  replicaLagTimeMaxMs: ms().min(1).default(1_000),
  metadataPropagationDelayMs: range().default([1, 10]),
  controllerRpcDelayMs: range().default([1, 5]),
  brokerSessionTimeoutMs: ms().min(1).default(300),
  leaderImbalanceCheckIntervalMs: ms().default(3_000),
  /** producer.id.expiration.ms (absent: producer state never expires within a run, Kafka's default being a day). */
  producerIdExpirationMs: ms().min(1).optional(),
  /** producer.id.expiration.check.interval.ms (read only with producerIdExpirationMs). */
  producerIdExpirationCheckIntervalMs: ms().min(1).default(100),
  /**
   * One request per connection at a time, as Kafka's SocketServer mutes a connection until it has
   * answered (false, the default: a broker handles every request as it arrives).
   */
  oneRequestPerConnection: z.boolean().default(false),
});

/** Explicit replica assignment: per partition, its replicas (the first is the preferred leader). */
const replicaAssignment = z.array(z.array(nodeId).min(1).max(LIMITS.brokers)).min(1).max(LIMITS.partitionsPerTopic);

const topic = z.strictObject({
  name: z.string().regex(/^[a-zA-Z0-9._]{1,64}$/, { message: "expected a topic name (letters, digits, . and _)" }),
  /** Number of partitions (with replicationFactor: assigned round robin over the brokers). */
  partitions: z.int().min(1).max(LIMITS.partitionsPerTopic).optional(),
  replicationFactor: z.int().min(1).max(LIMITS.brokers).optional(),
  /** Or the assignment itself (partitions and replicationFactor then follow from it). */
  replicas: replicaAssignment.optional(),
  minInsyncReplicas: z.int().min(1).max(LIMITS.brokers).default(1),
  uncleanLeaderElection: z.boolean().default(false),
});

/** __transaction_state: transaction.state.log.num.partitions, replication and min ISR. */
const transactionState = z.strictObject({
  partitions: z.int().min(1).max(LIMITS.partitionsPerTopic).optional(),
  replicationFactor: z.int().min(1).max(LIMITS.brokers).optional(),
  replicas: replicaAssignment.optional(),
  minInsyncReplicas: z.int().min(1).max(LIMITS.brokers).default(2),
});

const tv = z.union([z.literal(0), z.literal(1), z.literal(2)]);

const workload = z.strictObject({
  producers: z.int().min(1).max(LIMITS.producers).default(2),
  transactionVersion: tv.default(2),
  /**
   * The release of the producers' client (KafkaProducer), which may differ from the brokers': its
   * flags decide how the producer classifies errors. Absent: the newest release for a TV2 client
   * (transactionVersion 2), 3.x for an older one (0 or 1), which never uses TV2.
   */
  release: release.optional(),
  transactions: z.int().min(1).max(LIMITS.transactionsPerProducer).default(8),
  recordsPerTxn: range(LIMITS.recordsPerTxn).default([2, 4]),
  partitionsPerTxn: range(LIMITS.partitionsPerTopic * LIMITS.topics).default([1, 2]),
  abortRatio: probability.default(0.2),
  /**
   * Client faults: the probability that a send() fails at once in the producer (as Kafka's
   * RecordTooLargeException does for a record over max.request.size), and that a transaction has
   * no records at all (a consume-transform-produce loop whose poll returned nothing). Absent: 0.
   */
  sendErrorRatio: probability.optional(),
  emptyTxnRatio: probability.optional(),
  thinkMs: range().default([0, 20]),
  /**
   * The application's time between two send() calls of one transaction; [0, 0] (the default): every
   * record is handed over at once, before anything can pause the producer.
   */
  sendGapMs: range().default([0, 0]),
  startMs: range().default([0, 10]),
  // Producer settings, in Kafka's config names, defaulting to Kafka's defaults on the scenario's
  // clock (PRODUCER_DEFAULTS in src/kafka/client/producer-config.ts says how each is scaled).
  transactionTimeoutMs: ms().min(1).default(PRODUCER_DEFAULTS.transactionTimeoutMs),
  requestTimeoutMs: ms().min(1).default(PRODUCER_DEFAULTS.requestTimeoutMs),
  retryBackoffMs: ms().min(1).default(PRODUCER_DEFAULTS.retryBackoffMs),
  /** delivery.timeout.ms: how long a batch may take, retries included, before it fails. */
  deliveryTimeoutMs: ms().min(1).default(PRODUCER_DEFAULTS.deliveryTimeoutMs),
  /** linger.ms: how long a batch that is not full waits for more records before it may be sent. */
  lingerMs: ms().default(PRODUCER_DEFAULTS.lingerMs),
  /** batch.size, counted in records (the model's records have no size in bytes). */
  recordsPerBatch: z.int().min(1).max(LIMITS.recordsPerTxn).default(PRODUCER_DEFAULTS.recordsPerBatch),
  maxInFlightRequestsPerConnection: z.int().min(1).max(100).default(PRODUCER_DEFAULTS.maxInFlightRequestsPerConnection),
  /** max.block.ms: how long initTransactions, commitTransaction and abortTransaction wait before the application gives up. */
  maxBlockMs: ms().min(1).default(PRODUCER_DEFAULTS.maxBlockMs),
  initialProducerEpoch: z.int().min(0).max(32_766).nullable().default(null),
  /**
   * Idempotent (non-transactional) producers beside the transactional ones: rounds of send() to a
   * few partitions, with the settings above, and their own delivery.timeout.ms (at least
   * request.timeout.ms plus linger.ms, as Kafka requires). Absent: none.
   */
  idempotentProducers: z
    .strictObject({
      count: z.int().min(1).max(LIMITS.producers),
      rounds: z
        .int()
        .min(1)
        .max(LIMITS.transactionsPerProducer * 4),
      deliveryTimeoutMs: ms().min(1),
    })
    .optional(),
  consumers: z.int().min(0).max(LIMITS.consumers).default(1),
  /** fetch.max.wait.ms of the consumers' long-polled fetches. */
  consumerFetchMaxWaitMs: ms().default(500),
});

/**
 * The network model (see NetworkModel in src/sim/network.ts): `tcp`, the default, makes only the
 * faults TCP can; `adversarial` also lets a message be duplicated or reordered inside its
 * connection, and a partition lose what crosses it.
 */
export const NETWORK_MODELS = ["adversarial", "tcp"] as const;

const networkFaults = linkFaults.extend({ model: z.enum(NETWORK_MODELS).default("tcp") });

const faults = z.strictObject({
  windowMs: ms().default(20_000),
  network: networkFaults.default({
    model: "tcp",
    delayMs: [1, 5],
    slow: { probability: 0, delayMs: [100, 1000] },
    drop: 0,
    duplicate: 0,
    reorder: 0,
  }),
  markerRequests: linkFaults.optional(),
  nemesisTickMs: ms().default(100),
  // The registered faults (src/kafka/faults/registry.ts), each declaring its own settings.
  ...nodeFaultSchemas,
  /** At most this many brokers down at once (shutdowns and crashes); one is maintenance, two a bad day. */
  maxBrokersDown: z.int().min(1).max(LIMITS.brokers).default(1),
  /** A broker restarted on another release at a time: controlled shutdown, downtime, restart. */
  upgrades: z
    .array(z.strictObject({ atMs: ms(), node: nodeId, release, downtimeMs: ms().default(200) }))
    .max(64)
    .default([]),
  /**
   * An operator finalizes another transaction.version at a time (`kafka-features.sh upgrade` or
   * `downgrade --feature transaction.version=N`, UpdateFeatures to the controller), while clients run.
   */
  featureUpdates: z
    .array(z.strictObject({ atMs: ms(), transactionVersion: tv }))
    .max(64)
    .default([]),
  /** A rolling upgrade: each broker in order (default: all) upgraded, the next once it is back in every ISR. */
  rollingUpgrade: z
    .strictObject({
      startMs: ms(),
      release,
      order: z.array(nodeId).max(LIMITS.brokers).optional(),
      downtimeMs: ms().default(200),
    })
    .optional(),
  /**
   * An operator runs `kafka-transactions.sh abort` (Admin.abortTransaction, KIP-664) on every
   * transaction open at a partition leader for `openForMs`, for the whole run. Off unless given.
   */
  adminAbortTransaction: z
    .strictObject({
      checkIntervalMs: ms().min(1).default(200),
      openForMs: ms(),
      operatorDelayMs: range().default([0, 0]),
      retryBackoffMs: ms().min(1).default(20),
    })
    .optional(),
});

const bounds = z.strictObject({
  maxEvents: z.int().min(1).max(LIMITS.maxEvents).default(500_000),
  workloadDeadlineMs: ms().min(1).default(30_000),
  quietPeriodMs: ms().min(1).default(6_000),
});

const kind = z.enum(VIOLATION_KINDS);

export const expectationSchema = z.strictObject({
  /** No violation of any kind over the run. */
  clean: z.boolean().optional(),
  /** Kinds that must each be found within `within` seeds. */
  find: z.array(kind).default([]),
  /** Kinds of which at least one must be found within `within` seeds (e.g. a mutant's symptoms). */
  findAny: z.array(kind).default([]),
  within: z.int().min(1).max(LIMITS.seeds).optional(),
  /** Kinds that may also appear (consequences of what is found) without failing the run. */
  allow: z.array(kind).default([]),
  /**
   * Where found violations may be: anything found elsewhere is unexpected. A violation is in place
   * when the broker where it showed runs one of `brokerRelease`, or (for a marker) the coordinator
   * that sent it ran one of `coordinatorRelease`.
   */
  where: z
    .strictObject({
      brokerRelease: z.array(release).min(1).optional(),
      coordinatorRelease: z.array(release).min(1).optional(),
    })
    .optional(),
});

/** A pattern over the abstract marker-arrival state (see oracle/protocol-coverage.ts): every field given must match. */
const markerPattern = z.strictObject({
  release: release.optional(),
  wire: z
    .string()
    .regex(/^(v1|v2-tv[0-2])$/, { message: "expected v1, v2-tv0, v2-tv1 or v2-tv2" })
    .optional(),
  arrival: z.enum(MARKER_VALUES.arrival).optional(),
  leaderTxn: z.enum(MARKER_VALUES.leaderTxn).optional(),
  producer: z.enum(MARKER_VALUES.producer).optional(),
  rule: z.enum(["legacy", "strict-tv2", "kafka-19999-equal-epoch", "unchecked", "tv-unknown"]).optional(),
  result: z.enum(MARKER_VALUES.result).optional(),
  role: z.enum(MARKER_VALUES.role).optional(),
  leader: z.enum(MARKER_VALUES.leader).optional(),
});

/**
 * A pattern over a marker arrival at a __consumer_offsets partition (the group coordinator's
 * offsets-marker state): the same fields as a marker pattern, with `pending` for `leaderTxn` and the
 * marker's result (`marker`: COMMIT completes the pending offsets, ABORT discards them).
 */
const offsetsMarkerPattern = markerPattern.omit({ leaderTxn: true }).extend({
  pending: z.enum(OFFSETS_MARKER_VALUES.pending).optional(),
  marker: z.enum(OFFSETS_MARKER_VALUES.marker).optional(),
});

/** A situation a sweep must reach for its result to mean something; unreached, the run fails. */
const coverageGoal = z.strictObject({
  name: z.string().min(1).max(200),
  marker: markerPattern.optional(),
  offsetsMarker: offsetsMarkerPattern.optional(),
  event: z.enum(EVENT_POINTS).optional(),
  /** How many seeds must reach it (default 1). */
  minSeeds: z.int().min(1).max(LIMITS.seeds).default(1),
});

/** A processor restart fault (crash or graceful): how often, how long down, how often with a new transactional.id. */
const processorRestart = z
  .strictObject({
    probability: probability.default(0),
    downMs: range(60_000).default([100, 1_000]),
    newTransactionalIdRate: probability.default(0),
  })
  .default({ probability: 0, downMs: [100, 1_000], newTransactionalIdRate: 0 });

/**
 * The consume-transform-produce workload (issue 17): processors of one group read `inputTopic`
 * (which the workload's producers fill), write `outputTopic` and commit their input offsets in the
 * same transaction. Absent: no consumer groups (and no change to content hashes).
 */
const processing = z.strictObject({
  inputTopic: z.string(),
  outputTopic: z.string(),
  processors: z.int().min(1).max(8).default(3),
  groupId: z.string().default("eos-app"),
  /** __consumer_offsets: offsets.topic.num.partitions, replication and min ISR (as for topics). */
  offsetsTopic: z
    .strictObject({
      partitions: z.int().min(1).max(LIMITS.partitionsPerTopic).optional(),
      replicationFactor: z.int().min(1).max(LIMITS.brokers).optional(),
      replicas: replicaAssignment.optional(),
      minInsyncReplicas: z.int().min(1).max(LIMITS.brokers).default(2),
    })
    .default({ minInsyncReplicas: 2 }),
  sessionTimeoutMs: ms().min(1).default(3_000),
  rebalanceTimeoutMs: ms().min(1).default(3_000),
  /** Transactions per processor instance at most. */
  transactions: z.int().min(1).max(LIMITS.transactionsPerProducer).default(40),
  maxRecordsPerTxn: z.int().min(1).max(100).default(5),
  pollMs: ms().min(1).default(20),
  /** After the upstream producers finished, the processors stop once idle this long. */
  idleStopMs: ms().min(1).default(1_500),
  /** Per processor per nemesis tick: a pause of both its consumer and producer (past the session timeout: a zombie). */
  pause: z
    .strictObject({ probability: probability.default(0), durationMs: range(60_000).default([100, 1_000]) })
    .default({ probability: 0, durationMs: [100, 1_000] }),
  /**
   * Per processor per nemesis tick: a crash (no LeaveGroup); the application restarts it after
   * downMs, with the same transactional.id, or with a new one at newTransactionalIdRate (EOS v2:
   * the transactional.id is not tied to the input partitions, so nothing fences the old instance's
   * producer by epoch).
   */
  crash: processorRestart,
  /**
   * Per processor per nemesis tick: a graceful restart. The loop lets its transaction complete, the
   * producer closes, the consumer sends LeaveGroup (the group rebalances at once, not after the
   * session timeout), and the application starts again after downMs, with a new transactional.id
   * at newTransactionalIdRate.
   */
  leave: processorRestart,
  /**
   * Plain committers (absent: none): consumers of their own group, with manual assignment of the
   * input topic's partitions, that commit their position with OffsetCommit and offset metadata
   * (sometimes longer than offset.metadata.max.bytes, 4096) and read it back with require_stable
   * OffsetFetch after each restart, as an at-least-once application does (KAFKA-16371's ground).
   */
  committers: z
    .strictObject({
      count: z.int().min(1).max(8).default(2),
      groupId: z.string().default("plain-app"),
      commitIntervalMs: ms().min(1).default(200),
      commitsPerRestart: z.int().min(1).max(1_000).default(3),
      metadataTooLargeRatio: probability.default(0),
    })
    .optional(),
});

export const scenarioSchema = z.strictObject({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{0,63}$/, { message: "expected a name of lower case letters, digits, dots and dashes" }),
  description: z.string().max(2_000).default(""),
  cluster: z.strictObject({
    /** Every broker hosts every role: replicas, the transaction coordinator of what it leads, fetchers. */
    brokers: z.array(node).min(1).max(LIMITS.brokers),
    transactionState: transactionState.default({ minInsyncReplicas: 2 }),
    topics: z.array(topic).min(1).max(LIMITS.topics),
    transactionVersion: tv.default(2),
    config: brokerConfig.default(brokerConfig.parse({})),
  }),
  workload: workload.default(workload.parse({})),
  faults: faults.default(faults.parse({})),
  bounds: bounds.default(bounds.parse({})),
  /** A scripted scenario: exact steps with expected outcomes instead of the fuzzed workload. */
  script: scriptSchema.optional(),
  processing: processing.optional(),
  /** Default number of seeds for `eosfuzz run` on this scenario. */
  seeds: z.int().min(1).max(LIMITS.seeds).default(200),
  expect: expectationSchema.default({ clean: true, find: [], findAny: [], allow: [] }),
  /**
   * A generic scenario: each seed first draws its own setting within the scenario's (`everything`:
   * the releases, transaction.version changes, expiry clocks, epochs, admin aborts, processors,
   * client behaviours, and each fault off or at a fraction of its rate; see
   * src/fuzz/run-shaping/everything.ts), and with it what Kafka itself shows there. Absent: no draw
   * (and no change to content hashes).
   */
  draw: z.enum(["everything"]).optional(),
  /** Abstract protocol states the sweep must reach (checked on top of `expect`). Absent: no goals (and no change to content hashes). */
  coverage: z.strictObject({ goals: z.array(coverageGoal).max(64).default([]) }).optional(),
});

export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Scenario = z.output<typeof scenarioSchema>;
export type Expectation = z.output<typeof expectationSchema>;
export type CoverageGoal = z.output<typeof coverageGoal>;
export type MarkerPattern = z.output<typeof markerPattern>;
