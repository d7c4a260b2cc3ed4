import type { TransactionVersion } from "../common/types.js";

/**
 * Kafka's producer defaults (ProducerConfig, in Kafka's own units), the source of every scaled
 * default below. Kafka counts batch.size in bytes; the model's records have no size, so a batch is
 * bounded by a record count instead (`recordsPerBatch`).
 */
export const KAFKA_PRODUCER_DEFAULTS = {
  "request.timeout.ms": 30_000,
  "delivery.timeout.ms": 120_000,
  "transaction.timeout.ms": 60_000,
  "max.block.ms": 60_000,
  /** 5 since Kafka 4.0 (KIP-1030); 0 before. */
  "linger.ms": 5,
  "retry.backoff.ms": 100,
  "max.in.flight.requests.per.connection": 5,
} as const;

/**
 * Scenarios run on a compressed clock: Kafka's timeouts divided by this, so that a run covers many
 * transactions in a few simulated seconds while keeping Kafka's ratios (delivery.timeout.ms is four
 * request timeouts, the transaction timeout two).
 */
export const TIME_SCALE = 30;

function scaled(ms: number): number {
  return Math.round(ms / TIME_SCALE);
}

/**
 * The producer defaults a scenario starts from: Kafka's, on the scenario's clock. Two exceptions,
 * both said here so they are said once: linger.ms (5 ms) scales below one virtual millisecond and
 * becomes 0 (the records of a transaction are appended in the same instant anyway, so they still
 * share batches); retry.backoff.ms stays 20 ms (Kafka's 100 ms grows exponentially up to
 * retry.backoff.max.ms, 1 s: 3 to 33 ms on this clock), so that retries do not flood the network.
 */
export const PRODUCER_DEFAULTS = {
  requestTimeoutMs: scaled(KAFKA_PRODUCER_DEFAULTS["request.timeout.ms"]),
  deliveryTimeoutMs: scaled(KAFKA_PRODUCER_DEFAULTS["delivery.timeout.ms"]),
  transactionTimeoutMs: scaled(KAFKA_PRODUCER_DEFAULTS["transaction.timeout.ms"]),
  maxBlockMs: scaled(KAFKA_PRODUCER_DEFAULTS["max.block.ms"]),
  lingerMs: scaled(KAFKA_PRODUCER_DEFAULTS["linger.ms"]),
  retryBackoffMs: 20,
  maxInFlightRequestsPerConnection: KAFKA_PRODUCER_DEFAULTS["max.in.flight.requests.per.connection"],
  /** batch.size (16 KB) in records: more than a transaction of the built-in workloads writes to one partition. */
  recordsPerBatch: 16,
} as const;

/** One producer instance's settings (Kafka's config names, in camel case, on the scenario's clock). */
export interface ProducerConfig {
  /** Node name in traces, e.g. "p0" (a restarted instance is "p0#2"). */
  name: string;
  transactionalId: string;
  /** Protocol the producer speaks: 0/1 = legacy (client AddPartitionsToTxn), 2 = KIP-890 part 2. */
  transactionVersion: TransactionVersion;
  transactionTimeoutMs: number;
  /** request.timeout.ms: a request without answer by then closes the connection. */
  requestTimeoutMs: number;
  retryBackoffMs: number;
  /** delivery.timeout.ms: a batch not acknowledged this long after it was created fails. */
  deliveryTimeoutMs: number;
  /** linger.ms: how long a batch that is not full waits for more records. */
  lingerMs: number;
  /** batch.size, in records. */
  recordsPerBatch: number;
  maxInFlightRequestsPerConnection: number;
  /** max.block.ms: how long initTransactions, commitTransaction and abortTransaction wait for their result. */
  maxBlockMs: number;
}
