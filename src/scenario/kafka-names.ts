/**
 * Kafka's own property names, accepted where a scenario field models that property: a Kafka
 * engineer writes `min.insync.replicas: 2` in a topic, or `--set workload.transaction.timeout.ms=500`,
 * and the scenario reads `minInsyncReplicas`. Each map of the scenario that models Kafka settings
 * lists the properties it has (what src/scenario/to-cluster-spec.ts hands the model as that
 * property). Values stay on the scenario's clock (docs/scenarios.md: timeouts about 1/30 of Kafka's).
 * Settings with no Kafka property of the same meaning (batch.size counts bytes, recordsPerBatch
 * records; leader.imbalance.check.interval.seconds is in seconds) are left out on purpose.
 */

type Path = readonly (string | number)[];

/** Per map of a scenario (list positions written []), Kafka's property name -> the scenario's field. */
const KAFKA_PROPERTIES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // The finalized feature level (kafka-features.sh upgrade --feature transaction.version=2).
  cluster: { "transaction.version": "transactionVersion" },
  "cluster.topics[]": {
    "min.insync.replicas": "minInsyncReplicas",
    "unclean.leader.election.enable": "uncleanLeaderElection",
  },
  "cluster.transactionState": {
    "transaction.state.log.num.partitions": "partitions",
    "transaction.state.log.replication.factor": "replicationFactor",
    "transaction.state.log.min.isr": "minInsyncReplicas",
    "min.insync.replicas": "minInsyncReplicas",
  },
  // Broker settings: the coordinator's marker sender and transaction timers, replication, the controller.
  "cluster.config": {
    "request.timeout.ms": "requestTimeoutMs",
    "reconnect.backoff.ms": "reconnectBackoffMs",
    "transaction.max.timeout.ms": "transactionMaxTimeoutMs",
    "transaction.abort.timed.out.transaction.cleanup.interval.ms": "abortTimedOutTransactionCleanupIntervalMs",
    "transactional.id.expiration.ms": "transactionalIdExpirationMs",
    "transaction.remove.expired.transaction.cleanup.interval.ms": "removeExpiredTransactionalIdsIntervalMs",
    "add.partitions.to.txn.retry.backoff.ms": "addPartitionsToTxnRetryBackoffMs",
    "add.partitions.to.txn.retry.backoff.max.ms": "addPartitionsToTxnRetryBackoffMaxMs",
    "replica.fetch.wait.max.ms": "replicaFetchWaitMaxMs",
    "replica.fetch.backoff.ms": "replicaFetchBackoffMs",
    "replica.lag.time.max.ms": "replicaLagTimeMaxMs",
    "broker.session.timeout.ms": "brokerSessionTimeoutMs",
    "producer.id.expiration.ms": "producerIdExpirationMs",
    "producer.id.expiration.check.interval.ms": "producerIdExpirationCheckIntervalMs",
  },
  // The producers' (and for request.timeout.ms, retry.backoff.ms and fetch.max.wait.ms, the consumers') settings.
  workload: {
    "transaction.timeout.ms": "transactionTimeoutMs",
    "request.timeout.ms": "requestTimeoutMs",
    "retry.backoff.ms": "retryBackoffMs",
    "delivery.timeout.ms": "deliveryTimeoutMs",
    "linger.ms": "lingerMs",
    "max.in.flight.requests.per.connection": "maxInFlightRequestsPerConnection",
    "max.block.ms": "maxBlockMs",
    "fetch.max.wait.ms": "consumerFetchMaxWaitMs",
  },
  processing: {
    "group.id": "groupId",
    "session.timeout.ms": "sessionTimeoutMs",
    // The Java consumer sends max.poll.interval.ms as JoinGroup's rebalance timeout.
    "max.poll.interval.ms": "rebalanceTimeoutMs",
  },
  "processing.offsetsTopic": {
    "offsets.topic.num.partitions": "partitions",
    "offsets.topic.replication.factor": "replicationFactor",
    "min.insync.replicas": "minInsyncReplicas",
  },
};

/** The location key of a map's path: cluster.topics[0] -> "cluster.topics[]". */
function locationOf(path: Path): string {
  return path.map((p, i) => (typeof p === "number" ? "[]" : i === 0 ? p : `.${p}`)).join("");
}

/** Kafka's property names the map at `path` accepts, each with its field ({} where none). */
export function kafkaNamesAt(path: Path): Readonly<Record<string, string>> {
  return KAFKA_PROPERTIES[locationOf(path)] ?? {};
}

/** Every map path pattern with its Kafka names (for documentation and the JSON Schema's aliases). */
export function kafkaPropertyTable(): Readonly<Record<string, Readonly<Record<string, string>>>> {
  return KAFKA_PROPERTIES;
}

/** A key written with Kafka's name, renamed to the scenario's field. */
export interface KafkaRename {
  /** The map holding it. */
  path: (string | number)[];
  kafkaName: string;
  field: string;
}

/**
 * The scenario as written with every Kafka property name renamed to its field, in place (key order
 * kept), and what was renamed. A map that has both names for one field keeps both: the schema then
 * refuses the Kafka name as an unknown field, and `conflicts` says why.
 */
export function renameKafkaNames(data: unknown): { renames: KafkaRename[]; conflicts: KafkaRename[] } {
  const renames: KafkaRename[] = [];
  const conflicts: KafkaRename[] = [];
  const visit = (value: unknown, path: (string | number)[]) => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) visit(v, [...path, i]);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const map = value as Record<string, unknown>;
    const names = kafkaNamesAt(path);
    if (Object.keys(map).some((k) => Object.hasOwn(names, k))) {
      const entries = Object.entries(map);
      for (const key of Object.keys(map)) delete map[key];
      for (const [key, v] of entries) {
        const field = Object.hasOwn(names, key) ? (names[key] as string) : null;
        if (field !== null && !entries.some(([k]) => k === field)) {
          map[field] = v;
          renames.push({ path, kafkaName: key, field });
        } else {
          if (field !== null) conflicts.push({ path, kafkaName: key, field });
          map[key] = v;
        }
      }
    }
    for (const [key, v] of Object.entries(map)) if (key !== "script") visit(v, [...path, key]);
  };
  visit(data, []);
  return { renames, conflicts };
}
