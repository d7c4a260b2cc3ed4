import fc from "fast-check";
import type { ReleaseFlags } from "../../kafka/release.js";
import type { ModelTxnCoordinator } from "./model-txn-coordinator.js";
import {
  DEFAULT_TXN_COORDINATOR_CONFIG,
  type TxnCoordinatorConfig,
  type TxnCoordinatorOp,
} from "./txn-coordinator-ops.js";
import type { TxnMetadataInit } from "./txn-metadata-ops.js";
import type { KafkaTxnState } from "./txn-names.js";

/**
 * Request sequences for one transactional.id, biased to the edges: a starting transaction at epoch
 * 32765..32767 (exhaustion, producer id rotation), TV0 and TV2 clients, EndTxn retried one epoch
 * behind and EndTxn/AddPartitions while a state is pending (markers not acknowledged yet), failed
 * __transaction_state writes, timeouts, InitProducerId with the current or a stale id and epoch.
 * Epochs and ids are named relative to the model's metadata and fixed against it before either side
 * sees them.
 */
const TXN = "txn";
const PARTITIONS = ["orders-0", "orders-1", "audit-0"];
type EpochChoice = "current" | "behind" | "ahead" | "last";
type PidChoice = "current" | "previous" | "other";

export type AbstractTxnCoordinatorOp =
  | { k: "init"; withIds: boolean; epoch: EpochChoice; pid: PidChoice; badTimeout: boolean }
  | { k: "add"; epoch: EpochChoice; pid: PidChoice; partitions: string[]; tv2: boolean; verifyOnly: boolean }
  | { k: "end"; commit: boolean; epoch: EpochChoice; pid: PidChoice; tv2: boolean }
  | { k: "ack" }
  | { k: "fail"; error: string }
  | { k: "time"; long: boolean }
  | { k: "timeout" }
  | { k: "describe" };

export interface AbstractTxnCoordinatorSequence {
  finalizedTransactionVersion: number;
  initial: TxnMetadataInit | null;
  ops: AbstractTxnCoordinatorOp[];
}

const epoch = fc.oneof(
  { weight: 8, arbitrary: fc.constant<EpochChoice>("current") },
  { weight: 3, arbitrary: fc.constant<EpochChoice>("behind") },
  { weight: 1, arbitrary: fc.constantFrom<EpochChoice>("ahead", "last") },
);
const pid = fc.oneof(
  { weight: 10, arbitrary: fc.constant<PidChoice>("current") },
  { weight: 1, arbitrary: fc.constantFrom<PidChoice>("previous", "other") },
);

function opArbitrary(tv2: boolean): fc.Arbitrary<AbstractTxnCoordinatorOp> {
  const clientTv2 = tv2
    ? fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
    : fc.constant(false);
  return fc.oneof(
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant("init" as const),
        withIds: fc.boolean(),
        epoch,
        pid,
        badTimeout: fc.oneof(
          { weight: 12, arbitrary: fc.constant(false) },
          { weight: 1, arbitrary: fc.constant(true) },
        ),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        k: fc.constant("add" as const),
        epoch,
        pid,
        partitions: fc.subarray(PARTITIONS, { minLength: 1, maxLength: 2 }),
        tv2: clientTv2,
        verifyOnly: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({ k: fc.constant("end" as const), commit: fc.boolean(), epoch, pid, tv2: clientTv2 }),
    },
    { weight: 4, arbitrary: fc.constant({ k: "ack" as const }) },
    {
      weight: 1,
      arbitrary: fc.record({
        k: fc.constant("fail" as const),
        error: fc.constantFrom(
          "NOT_ENOUGH_REPLICAS",
          "NOT_LEADER_OR_FOLLOWER",
          "REQUEST_TIMED_OUT",
          "KAFKA_STORAGE_ERROR",
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("time" as const), long: fc.boolean() }) },
    { weight: 1, arbitrary: fc.constant({ k: "timeout" as const }) },
    { weight: 3, arbitrary: fc.constant({ k: "describe" as const }) },
  );
}

const STARTS: KafkaTxnState[] = ["EMPTY", "ONGOING", "COMPLETE_COMMIT", "COMPLETE_ABORT"];

function initialArbitrary(tv2: boolean): fc.Arbitrary<TxnMetadataInit | null> {
  const start = fc
    .record({
      state: fc.constantFrom(...STARTS),
      epoch: fc.constantFrom(5, 32765, 32766, 32767),
      tv: tv2 ? fc.constantFrom(0, 2) : fc.constant(0),
    })
    .map(({ state, epoch: e, tv }) => ({
      transactionalId: TXN,
      producerId: 500,
      prevProducerId: -1,
      nextProducerId: -1,
      producerEpoch: e,
      lastProducerEpoch: -1,
      txnTimeoutMs: 60_000,
      state,
      topicPartitions: state === "ONGOING" ? ["orders-0"] : [],
      txnStartTimestamp: state === "EMPTY" ? -1 : 0,
      txnLastUpdateTimestamp: 0,
      clientTransactionVersion: tv,
    }));
  return fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: start });
}

/** tv2: the release's coordinator understands TV2 (its profile); the finalized level is then 2 mostly, sometimes 0. */
export function txnCoordinatorSequenceArbitrary(
  flags: Readonly<ReleaseFlags>,
  maxLength = 20,
): fc.Arbitrary<AbstractTxnCoordinatorSequence> {
  const tv2 = flags.supportsTransactionVersion2;
  return fc.record({
    finalizedTransactionVersion: tv2
      ? fc.oneof({ weight: 4, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.constant(0) })
      : fc.constant(0),
    initial: initialArbitrary(tv2),
    ops: fc.array(opArbitrary(tv2), { minLength: 1, maxLength }),
  });
}

export function txnCoordinatorConfig(finalizedTransactionVersion: number): TxnCoordinatorConfig {
  return { ...DEFAULT_TXN_COORDINATOR_CONFIG, finalizedTransactionVersion };
}

/** The concrete op an abstract one stands for, against the model's coordinator as it is now. */
export function concretizeTxnCoordinatorOp(
  op: AbstractTxnCoordinatorOp,
  model: ModelTxnCoordinator,
  finalizedTransactionVersion: number,
): TxnCoordinatorOp {
  // A TV2 client needs transaction.version 2 finalized (the client learns it from ApiVersions).
  const clientTv = (tv2: boolean) => (tv2 && finalizedTransactionVersion >= 2 ? 2 : 0);
  const m = model.tc.describe(TXN);
  const currentPid = m?.producerId ?? 1000;
  const currentEpoch = m && m.producerEpoch >= 0 ? m.producerEpoch : 0;
  const pidOf = (c: PidChoice) => (c === "current" ? currentPid : c === "previous" ? (m?.prevProducerId ?? -1) : 4242);
  const epochOf = (c: EpochChoice) =>
    c === "current"
      ? currentEpoch
      : c === "behind"
        ? Math.max(0, currentEpoch - 1)
        : c === "ahead"
          ? Math.min(32767, currentEpoch + 1)
          : Math.max(0, m?.lastProducerEpoch ?? 0);
  switch (op.k) {
    case "init": {
      const producerId = op.withIds ? pidOf(op.pid) : -1;
      return {
        op: "initProducerId",
        transactionalId: TXN,
        transactionTimeoutMs: op.badTimeout ? 900_001 : 60_000,
        producerId,
        producerEpoch: producerId === -1 ? -1 : epochOf(op.epoch),
      };
    }
    case "add":
      return {
        op: "addPartitions",
        transactionalId: TXN,
        producerId: pidOf(op.pid),
        producerEpoch: epochOf(op.epoch),
        partitions: op.partitions,
        verifyOnly: op.verifyOnly,
        clientTransactionVersion: clientTv(op.tv2),
      };
    case "end":
      return {
        op: "endTxn",
        transactionalId: TXN,
        producerId: pidOf(op.pid),
        producerEpoch: epochOf(op.epoch),
        result: op.commit ? "COMMIT" : "ABORT",
        clientTransactionVersion: clientTv(op.tv2),
      };
    case "ack":
      return { op: "completeMarkers" };
    case "fail":
      return { op: "failNextAppend", error: op.error };
    case "time":
      return { op: "advanceTime", ms: op.long ? 61_000 : 100 };
    case "timeout":
      return { op: "abortTimedOutTransactions" };
    case "describe":
      return { op: "describe", transactionalId: TXN };
  }
}
