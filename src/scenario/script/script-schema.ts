import { z } from "zod";
import { Errors, type ErrorName } from "../../kafka/common/errors.js";
import { TRANSACTION_STATE_NAMES } from "../../kafka/coordinator/transaction-state.js";
import { RELEASE_NAMES } from "../../kafka/release.js";

/**
 * Scripted scenarios: instead of a fuzzed workload, an exact list of steps (client operations,
 * network control, cluster control, direct requests with explicit fields, checks) with the outcome
 * each step must have. Each step names its action in `do`.
 */

/** Bounds that keep a script honest. */
export const SCRIPT_LIMITS = {
  steps: 1_000,
  producers: 16,
  values: 1_000,
  markers: 64,
  stepTimeoutMs: 3_600_000,
} as const;

const name = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, {
  message: "expected a name such as p0 or stale-copy (lower case letters, digits, dashes)",
});
/** A node id, a producer name, or `coordinator` (the node that owns __transaction_state at that moment). */
const nodeRef = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, { message: "expected a node id, a producer name or coordinator" });
const partition = z
  .string()
  .regex(/^[a-zA-Z0-9._]{1,64}-[0-9]{1,5}$/, { message: "expected a partition such as orders-1 (topic-index)" });
const errorName = z.enum(Object.keys(Errors) as [ErrorName, ...ErrorName[]]);
const txnState = z.enum(TRANSACTION_STATE_NAMES as [string, ...string[]]);
const epoch = z.int().min(-1).max(32_767);
const producerId = z.int().min(-1).max(Number.MAX_SAFE_INTEGER);
const int32 = z.int().min(-1).max(2_147_483_647);
const note = z.string().max(500).optional();
const timeoutMs = z.int().min(1).max(SCRIPT_LIMITS.stepTimeoutMs).optional();

/** What a request step may expect of its response (and of the coordinator's state afterwards). */
const responseExpect = z.strictObject({
  /** The error code by Kafka's name; for WriteTxnMarkers every partition must have it. */
  error: errorName.optional(),
  producerId: producerId.optional(),
  producerEpoch: epoch.optional(),
  /** The coordinator's TransactionMetadata state of the step's transactional.id after the step. */
  state: txnState.optional(),
});

const producerStep = <D extends string>(action: D) =>
  z.strictObject({ do: z.literal(action), producer: name, note, timeoutMs, expect: responseExpect.optional() });

const markerSpec = z.strictObject({
  producerId,
  producerEpoch: epoch,
  result: z.enum(["COMMIT", "ABORT"]),
  coordinatorEpoch: int32,
  /**
   * Only carried by v2; a v1 request drops it and the leader reads 0. -1 is TV_UNKNOWN, which a
   * KIP-1228 leader refuses (UNKNOWN_SERVER_ERROR).
   */
  transactionVersion: z.int().min(-1).max(127).default(0),
  partitions: z.array(partition).min(1).max(64),
  /** Ghost only: the transaction attempt this marker is meant for (e.g. p0.t1), for the oracle. */
  forTransaction: z.string().max(64).optional(),
});

/** Direct requests with explicit fields, as a test harness would send them (from node `harness`). */
const requestBody = z.discriminatedUnion("api", [
  z.strictObject({
    api: z.literal("WriteTxnMarkers"),
    version: z.union([z.literal(1), z.literal(2)]),
    markers: z.array(markerSpec).min(1).max(SCRIPT_LIMITS.markers),
  }),
  z.strictObject({
    api: z.literal("InitProducerId"),
    transactionalId: z.string().min(1).max(249),
    transactionTimeoutMs: z.int().min(1).max(2_147_483_647).default(60_000),
    producerId: producerId.default(-1),
    producerEpoch: epoch.default(-1),
  }),
  z.strictObject({
    api: z.literal("AddPartitionsToTxn"),
    version: z.int().min(0).max(5).default(3),
    transactionalId: z.string().min(1).max(249),
    producerId,
    producerEpoch: epoch,
    partitions: z.array(partition).min(1).max(64),
  }),
  z.strictObject({
    api: z.literal("EndTxn"),
    version: z.int().min(0).max(5),
    transactionalId: z.string().min(1).max(249),
    producerId,
    producerEpoch: epoch,
    result: z.enum(["COMMIT", "ABORT"]),
  }),
  z.strictObject({
    api: z.literal("Produce"),
    version: z.int().min(3).max(12),
    transactionalId: z.string().min(1).max(249).nullable(),
    producerId,
    producerEpoch: epoch,
    partition,
    baseSequence: int32,
    values: z.array(z.string().max(1_000)).min(1).max(SCRIPT_LIMITS.values),
  }),
]);

export const scriptStepSchema = z.discriminatedUnion("do", [
  // ---- client operations of a scripted producer (one request each, no automatic retry)
  producerStep("initTransactions"),
  z.strictObject({ do: z.literal("beginTransaction"), producer: name, note }),
  z.strictObject({
    do: z.literal("send"),
    producer: name,
    partition,
    value: z.string().min(1).max(1_000),
    note,
    timeoutMs,
    expect: responseExpect.optional(),
  }),
  producerStep("commitTransaction"),
  producerStep("abortTransaction"),
  // ---- network control
  z.strictObject({
    do: z.literal("hold"),
    /** Hold the next message of this API ... */
    api: z.enum([
      "WriteTxnMarkers",
      "EndTxn",
      "AddPartitionsToTxn",
      "InitProducerId",
      "Produce",
      "Fetch",
      "ApiVersions",
    ]),
    from: nodeRef,
    to: nodeRef,
    direction: z.enum(["request", "response"]).default("request"),
    /** ... optionally only one that concerns this transactional.id. */
    transactionalId: z.string().min(1).max(249).optional(),
    as: name,
    note,
  }),
  z.strictObject({ do: z.literal("release"), held: name, note, timeoutMs, expect: responseExpect.optional() }),
  z.strictObject({ do: z.literal("duplicate"), held: name, note, timeoutMs, expect: responseExpect.optional() }),
  z.strictObject({ do: z.literal("drop"), held: name, note }),
  // ---- cluster control
  z.strictObject({
    do: z.literal("failover"),
    note,
    timeoutMs,
    expect: z.strictObject({ coordinator: nodeRef.optional(), coordinatorEpoch: int32.optional() }).optional(),
  }),
  z.strictObject({ do: z.literal("upgrade"), node: nodeRef, release: z.enum(RELEASE_NAMES), note }),
  z.strictObject({ do: z.literal("stall"), node: nodeRef, ms: z.int().min(1).max(SCRIPT_LIMITS.stepTimeoutMs), note }),
  // ---- direct requests
  z.strictObject({
    do: z.literal("request"),
    to: nodeRef,
    body: requestBody,
    note,
    timeoutMs,
    expect: responseExpect.optional(),
  }),
  // ---- time
  z.strictObject({ do: z.literal("wait"), ms: z.int().min(1).max(SCRIPT_LIMITS.stepTimeoutMs), note }),
  z.strictObject({
    do: z.literal("waitFor"),
    transactionalId: z.string().min(1).max(249).optional(),
    state: txnState.optional(),
    held: name.optional(),
    note,
    timeoutMs,
  }),
  // ---- checks
  z.strictObject({
    do: z.literal("checkTransaction"),
    transactionalId: z.string().min(1).max(249),
    note,
    expect: z.strictObject({
      state: txnState.optional(),
      producerId: producerId.optional(),
      producerEpoch: epoch.optional(),
      partitions: z.array(partition).max(1_024).optional(),
    }),
  }),
  z.strictObject({
    do: z.literal("checkPartition"),
    partition,
    /** Whose producer state to look at (producerEpoch, openTransaction). */
    producer: name.optional(),
    note,
    expect: z.strictObject({
      lastStableOffset: z.int().min(0).optional(),
      highWatermark: z.int().min(0).optional(),
      logEndOffset: z.int().min(0).optional(),
      openTransaction: z.boolean().optional(),
      producerEpoch: epoch.optional(),
    }),
  }),
  z.strictObject({
    do: z.literal("read"),
    partition,
    isolation: z.enum(["READ_COMMITTED", "READ_UNCOMMITTED"]).default("READ_COMMITTED"),
    note,
    timeoutMs,
    expect: z.strictObject({ values: z.array(z.string().max(1_000)).max(SCRIPT_LIMITS.values) }).optional(),
  }),
]);

export const scriptProducerSchema = z.strictObject({
  name,
  transactionalId: z.string().min(1).max(249),
  transactionVersion: z.union([z.literal(0), z.literal(1), z.literal(2)]).default(2),
  transactionTimeoutMs: z.int().min(1).max(2_147_483_647).default(60_000),
  requestTimeoutMs: z.int().min(1).max(3_600_000).default(1_000),
});

export const scriptSchema = z.strictObject({
  producers: z.array(scriptProducerSchema).min(1).max(SCRIPT_LIMITS.producers),
  /** How long (virtual ms) a step may wait for its outcome before it counts as failed. */
  stepTimeoutMs: z.int().min(1).max(SCRIPT_LIMITS.stepTimeoutMs).default(10_000),
  steps: z.array(scriptStepSchema).min(1).max(SCRIPT_LIMITS.steps),
});

export type Script = z.output<typeof scriptSchema>;
export type ScriptStep = z.output<typeof scriptStepSchema>;
export type ScriptProducer = z.output<typeof scriptProducerSchema>;
export type ResponseExpect = z.output<typeof responseExpect>;
export type RequestBody = z.output<typeof requestBody>;
export type MarkerSpec = z.output<typeof markerSpec>;
