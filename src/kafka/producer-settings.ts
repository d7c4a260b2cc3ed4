import type { ProducerConfig } from "./client/producer-config.js";
import type { ProducerSpec } from "./cluster-spec.js";

/**
 * A producer's client settings from the scenario's producer spec: the transactional producers and
 * the idempotent one are configured alike (one KafkaProducer config), except for the ids and, for
 * the idempotent producer, its own delivery.timeout.ms.
 */
export function producerSettings(
  p: ProducerSpec,
  ids: { name: string; transactionalId: string },
  deliveryTimeoutMs: number = p.deliveryTimeoutMs,
): ProducerConfig {
  return {
    name: ids.name,
    transactionalId: ids.transactionalId,
    transactionVersion: p.transactionVersion,
    transactionTimeoutMs: p.transactionTimeoutMs,
    requestTimeoutMs: p.requestTimeoutMs,
    retryBackoffMs: p.retryBackoffMs,
    deliveryTimeoutMs,
    lingerMs: p.lingerMs,
    recordsPerBatch: p.recordsPerBatch,
    maxInFlightRequestsPerConnection: p.maxInFlightRequestsPerConnection,
    maxBlockMs: p.maxBlockMs,
  };
}
