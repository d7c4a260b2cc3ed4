import fc from "fast-check";
import type { ModelTxnMetadata } from "./model-txn-metadata.js";
import type { TxnMetadataInit, TxnMetadataOp } from "./txn-metadata-ops.js";
import type { KafkaTxnState } from "./txn-names.js";

/**
 * TransactionMetadata sequences, drawn by fast-check and biased to the edges: epochs 32765..32767
 * and -1 (a new producer), every state as a starting point, TV0/1/2 transits, expected epochs that
 * are current, last, one behind or foreign, nextProducerId set or not, completing a transit that a
 * later prepare replaced, and a failed write (clearPendingState). An abstract op names its numbers
 * relative to the metadata it meets; `concretizeTxnMetadataOp` fixes them against the model's
 * metadata before either side sees them.
 */
export interface TxnMetadataCaps {
  /** The release's TransactionMetadata takes transaction versions (4.0 on; 3.9 has none). */
  transactionVersions: boolean;
}

type ExpectedChoice = "none" | "current" | "last" | "behind" | "foreign";

export type AbstractTxnMetadataOp =
  | { k: "inc"; expected: ExpectedChoice; newTimeout: boolean }
  | { k: "rotate"; recordLastEpoch: boolean }
  | { k: "add"; partitions: string[]; tv: number }
  | { k: "end"; commit: boolean; tv: number; nextProducerId: boolean; noPartitionAdded: boolean }
  | { k: "fence" }
  | { k: "complete" }
  | { k: "dead" }
  | { k: "finish" }
  | { k: "fail" };

export interface AbstractTxnMetadataSequence {
  init: TxnMetadataInit;
  ops: AbstractTxnMetadataOp[];
}

const PARTITIONS = ["orders-0", "orders-1", "audit-0"];
const STATES: KafkaTxnState[] = [
  "EMPTY",
  "ONGOING",
  "PREPARE_COMMIT",
  "PREPARE_ABORT",
  "COMPLETE_COMMIT",
  "COMPLETE_ABORT",
];

function tvArbitrary(caps: TxnMetadataCaps): fc.Arbitrary<number> {
  if (!caps.transactionVersions) return fc.constant(0);
  return fc.oneof({ weight: 4, arbitrary: fc.constant(2) }, { weight: 2, arbitrary: fc.constantFrom(0, 1) });
}

const partitionSet = fc.subarray(PARTITIONS, { minLength: 1, maxLength: 2 });

function initArbitrary(caps: TxnMetadataCaps): fc.Arbitrary<TxnMetadataInit> {
  return fc
    .record({
      state: fc.constantFrom(...STATES),
      epoch: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom(0, 1, 5) },
        { weight: 3, arbitrary: fc.constantFrom(32765, 32766, 32767) },
        { weight: 1, arbitrary: fc.constant(-1) },
      ),
      lastBehind: fc.boolean(),
      prev: fc.boolean(),
      next: caps.transactionVersions
        ? fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) })
        : fc.constant(false),
      partitions: partitionSet,
      tv: tvArbitrary(caps),
    })
    .map(({ state, epoch, lastBehind, prev, next, partitions, tv }) => {
      const empty = state === "EMPTY";
      return {
        transactionalId: "txn",
        producerId: 1000,
        prevProducerId: prev ? 999 : -1,
        nextProducerId: next ? 2000 : -1,
        // A new producer's metadata (epoch -1) only exists in Empty: InitProducerId creates it so.
        producerEpoch: epoch < 0 && !empty ? 0 : epoch,
        lastProducerEpoch: lastBehind && epoch > 0 ? epoch - 1 : -1,
        txnTimeoutMs: 60_000,
        state,
        topicPartitions: empty ? [] : partitions,
        txnStartTimestamp: empty ? -1 : 0,
        txnLastUpdateTimestamp: 0,
        clientTransactionVersion: tv,
      };
    });
}

function opArbitrary(caps: TxnMetadataCaps): fc.Arbitrary<AbstractTxnMetadataOp> {
  const tv = tvArbitrary(caps);
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        k: fc.constant("inc" as const),
        expected: fc.constantFrom<ExpectedChoice>("none", "current", "current", "last", "behind", "foreign"),
        newTimeout: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ k: fc.constant("rotate" as const), recordLastEpoch: fc.boolean() }) },
    { weight: 3, arbitrary: fc.record({ k: fc.constant("add" as const), partitions: partitionSet, tv }) },
    {
      weight: 3,
      arbitrary: fc.record({
        k: fc.constant("end" as const),
        commit: fc.boolean(),
        tv,
        nextProducerId: caps.transactionVersions ? fc.boolean() : fc.constant(false),
        noPartitionAdded: caps.transactionVersions ? fc.boolean() : fc.constant(false),
      }),
    },
    { weight: 1, arbitrary: fc.constant({ k: "fence" as const }) },
    { weight: 2, arbitrary: fc.constant({ k: "complete" as const }) },
    { weight: 1, arbitrary: fc.constant({ k: "dead" as const }) },
    { weight: 6, arbitrary: fc.constant({ k: "finish" as const }) },
    { weight: 1, arbitrary: fc.constant({ k: "fail" as const }) },
  );
}

export function txnMetadataSequenceArbitrary(
  caps: TxnMetadataCaps,
  maxLength = 16,
): fc.Arbitrary<AbstractTxnMetadataSequence> {
  return fc.record({ init: initArbitrary(caps), ops: fc.array(opArbitrary(caps), { minLength: 1, maxLength }) });
}

/** The concrete op at `step`, against the model's metadata as it is now; time moves 100 ms a step. */
export function concretizeTxnMetadataOp(
  op: AbstractTxnMetadataOp,
  model: ModelTxnMetadata,
  step: number,
): TxnMetadataOp {
  const m = model.metadata;
  const t = 1_000 + step * 100;
  switch (op.k) {
    case "inc": {
      const expected =
        op.expected === "none"
          ? null
          : op.expected === "current"
            ? m.producerEpoch
            : op.expected === "last"
              ? m.lastProducerEpoch
              : op.expected === "behind"
                ? m.producerEpoch - 1
                : 7;
      return {
        op: "prepareIncrementProducerEpoch",
        newTxnTimeoutMs: op.newTimeout ? 30_000 : m.txnTimeoutMs,
        expectedProducerEpoch: expected,
        updateTimestamp: t,
      };
    }
    case "rotate":
      return {
        op: "prepareProducerIdRotation",
        producerId: m.producerId + 1_000,
        newTxnTimeoutMs: m.txnTimeoutMs,
        updateTimestamp: t,
        recordLastEpoch: op.recordLastEpoch,
      };
    case "add":
      return {
        op: "prepareAddPartitions",
        partitions: op.partitions,
        updateTimestamp: t,
        clientTransactionVersion: op.tv,
      };
    case "end":
      return {
        op: "prepareAbortOrCommit",
        newState: op.commit ? "PREPARE_COMMIT" : "PREPARE_ABORT",
        clientTransactionVersion: op.tv,
        nextProducerId: op.nextProducerId ? m.producerId + 1 : -1,
        updateTimestamp: t,
        noPartitionAdded: op.noPartitionAdded,
      };
    case "fence":
      return { op: "prepareFenceProducerEpoch" };
    case "complete":
      return { op: "prepareComplete", updateTimestamp: t };
    case "dead":
      return { op: "prepareDead" };
    case "finish":
      return { op: "completeTransitionTo" };
    case "fail":
      return { op: "clearPendingState" };
  }
}
