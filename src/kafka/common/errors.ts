/** Kafka error codes used by the transaction protocol (org.apache.kafka.common.protocol.Errors). */
export const Errors = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  BROKER_NOT_AVAILABLE: 8,
  REPLICA_NOT_AVAILABLE: 9,
  MESSAGE_TOO_LARGE: 10,
  OFFSET_METADATA_TOO_LARGE: 12,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  ILLEGAL_GENERATION: 22,
  UNKNOWN_MEMBER_ID: 25,
  REBALANCE_IN_PROGRESS: 27,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  FENCED_INSTANCE_ID: 82,
  UNSTABLE_OFFSET_COMMIT: 88,
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  CONCURRENT_TRANSACTIONS: 51,
  TRANSACTION_COORDINATOR_FENCED: 52,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  OPERATION_NOT_ATTEMPTED: 55,
  KAFKA_STORAGE_ERROR: 56,
  UNKNOWN_PRODUCER_ID: 59,
  GROUP_ID_NOT_FOUND: 69,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  INVALID_UPDATE_VERSION: 95,
  INELIGIBLE_REPLICA: 107,
  STALE_MEMBER_EPOCH: 113,
  NETWORK_EXCEPTION: 13,
  PRODUCER_FENCED: 90,
  TRANSACTION_ABORTABLE: 120,
} as const;

export type ErrorName = keyof typeof Errors;
export type ErrorCode = (typeof Errors)[ErrorName];

const namesByCode = new Map<number, ErrorName>(
  (Object.keys(Errors) as ErrorName[]).map((name) => [Errors[name], name]),
);

export function errorName(code: number): string {
  return namesByCode.get(code) ?? `UNKNOWN_ERROR(${code})`;
}

export function errorCode(name: string): ErrorCode | undefined {
  return (Errors as Record<string, ErrorCode>)[name];
}

/** A broken model invariant: Kafka would throw IllegalStateException here. Reported as a model bug. */
export class IllegalStateException extends Error {
  override readonly name = "IllegalStateException";
}

/** Kafka's TransactionCoordinatorFencedException, where the model throws it (a replayed marker, KAFKA-9144). */
export class TransactionCoordinatorFencedException extends Error {
  override readonly name = "TransactionCoordinatorFencedException";
}

/**
 * Kafka's InvalidTxnStateException where the model throws it: a replica's append of a
 * non-transactional batch inside the producer's open transaction (ProducerAppendInfo).
 */
export class InvalidTxnStateException extends Error {
  override readonly name = "InvalidTxnStateException";
}

/** Kafka's OutOfOrderSequenceException, where the model throws it (a follower's append, KAFKA-6003). */
export class OutOfOrderSequenceException extends Error {
  override readonly name = "OutOfOrderSequenceException";
}
