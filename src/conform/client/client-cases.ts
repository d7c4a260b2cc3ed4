/**
 * The client surface's table: every transactional request of the producer (plus Produce and the
 * coordinator lookup), every error a broker answers to one of them (and a dropped connection),
 * under transaction.version 1 and 2. One cell is one fresh producer brought to that request and
 * answered with that error (jvm/PROTOCOL.md, `transactionManager`).
 */

/**
 * A request of the producer; EndTxn twice, since a commit and an abort are classified apart, and
 * InitProducerId twice: at initTransactions, and as KIP-360's epoch bump after an abort (TV0/1).
 */
export type ClientApi =
  | "FindCoordinator"
  | "InitProducerId"
  | "InitProducerId(bump)"
  | "AddPartitionsToTxn"
  | "Produce"
  | "AddOffsetsToTxn"
  | "TxnOffsetCommit"
  | "EndTxn(COMMIT)"
  | "EndTxn(ABORT)";

export const CLIENT_APIS: readonly ClientApi[] = [
  "FindCoordinator",
  "InitProducerId",
  "InitProducerId(bump)",
  "AddPartitionsToTxn",
  "Produce",
  "AddOffsetsToTxn",
  "TxnOffsetCommit",
  "EndTxn(COMMIT)",
  "EndTxn(ABORT)",
];

/** The connection drops before the answer (ClientResponse.wasDisconnected): no error code at all. */
export const DISCONNECTED = "DISCONNECTED";

/**
 * Kafka's error codes (org.apache.kafka.common.protocol.Errors) of the errors the table answers:
 * those the brokers send to these requests and those the producer's handlers name. The harness
 * checks each against the release's own Errors (its reply's errorCode).
 */
export const CLIENT_ERRORS: Readonly<Record<string, number>> = {
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  MESSAGE_TOO_LARGE: 10,
  NETWORK_EXCEPTION: 13,
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
  UNSUPPORTED_VERSION: 35,
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
  FENCED_INSTANCE_ID: 82,
  INVALID_RECORD: 87,
  PRODUCER_FENCED: 90,
  STALE_MEMBER_EPOCH: 113,
  TRANSACTION_ABORTABLE: 120,
};

/** Every error of the table, in code order, then the dropped connection. */
export const CLIENT_ERROR_NAMES: readonly string[] = [
  ...Object.keys(CLIENT_ERRORS).sort((a, b) => (CLIENT_ERRORS[a] as number) - (CLIENT_ERRORS[b] as number)),
  DISCONNECTED,
];

/** The finalized transaction.version levels of the table (a 3.9 client sees neither: it stays on TV1's requests). */
export const CLIENT_TRANSACTION_VERSIONS: readonly (1 | 2)[] = [1, 2];

export interface ClientCase {
  api: ClientApi;
  /** An Errors name of CLIENT_ERRORS, or DISCONNECTED. */
  error: string;
  transactionVersion: 1 | 2;
}

/** Every cell of the table, in api, transaction version, error order. */
export function clientCases(
  apis: readonly ClientApi[] = CLIENT_APIS,
  errors: readonly string[] = CLIENT_ERROR_NAMES,
  versions: readonly (1 | 2)[] = CLIENT_TRANSACTION_VERSIONS,
): ClientCase[] {
  const out: ClientCase[] = [];
  for (const api of apis)
    for (const transactionVersion of versions) for (const error of errors) out.push({ api, error, transactionVersion });
  return out;
}

export type ClientClass = "fatal" | "abortable" | "retry" | "failed" | "ok" | "unsent";

/**
 * What a producer did with one answer, as both sides report it (jvm/PROTOCOL.md's reply fields).
 * The fields of COMPARED_FIELDS are held to each other; the rest say why.
 */
export interface ClientAnswer {
  /** The client sent a request of the api (false: never at this transaction version). */
  sent: boolean;
  /** TransactionManager.State while the request was in flight. */
  before: string;
  /** isTransactionV2Enabled when it was sent. */
  transactionV2: boolean;
  /** The State after the answer. */
  state: string;
  class: ClientClass;
  /** The client-side epoch bump flag (clientSideEpochBumpRequired). */
  epochBumpRequired: boolean;
  /** The request (Produce: the batch) will be sent again. */
  requeued: boolean;
  /** A coordinator lookup is queued: TRANSACTION or GROUP. */
  coordinatorLookup: "TRANSACTION" | "GROUP" | null;
  /** The error kept (Kafka: lastError's class, and its cause's; the model: its reason text). */
  lastError: string | null;
  /** Kafka only: the cause of lastError, the waiting call's outcome, what was thrown, the request version. */
  detail?: Record<string, unknown>;
}

export const COMPARED_FIELDS = [
  "sent",
  "before",
  "transactionV2",
  "state",
  "class",
  "epochBumpRequired",
  "requeued",
  "coordinatorLookup",
] as const satisfies readonly (keyof ClientAnswer)[];

export type ComparedField = (typeof COMPARED_FIELDS)[number];

export function caseLabel(c: ClientCase): string {
  return `${c.api} ${c.error} TV${c.transactionVersion}`;
}
