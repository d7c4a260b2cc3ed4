import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelTxnCoordinator } from "../../src/conform/coordinator/model-txn-coordinator.js";
import {
  compareTxnCoordinatorSequence,
  runKafkaTxnCoordinator,
} from "../../src/conform/coordinator/txn-coordinator-differential.js";
import {
  DEFAULT_TXN_COORDINATOR_CONFIG,
  type TxnCoordinatorOp,
} from "../../src/conform/coordinator/txn-coordinator-ops.js";
import type { AbstractTxnCoordinatorSequence } from "../../src/conform/coordinator/txn-coordinator-arbitrary.js";
import { compareTxnMetadataSequence } from "../../src/conform/coordinator/txn-metadata-differential.js";
import { divergenceClass } from "../../src/conform/coordinator/sequence-campaign.js";
import { findMutant } from "../../src/fuzz/catalogue/mutants.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { harnessRelease } from "../../src/harness/kafka-releases.js";
import { releaseProfile } from "../../src/kafka/release.js";

// Without the JVM harness (npm run harness:setup) KafkaHarness.start fails with the line saying so: never a silent skip.
describe("txnCoordinator and txnMetadata surfaces against Kafka 4.2.1", () => {
  let harness: KafkaHarness;
  beforeAll(async () => {
    harness = await KafkaHarness.start(harnessRelease("4.2.1") as NonNullable<ReturnType<typeof harnessRelease>>);
  }, 30_000);
  afterAll(async () => harness?.close());

  /** A TV2 transaction committed, acknowledged, then its EndTxn retried one epoch behind (its answer was lost). */
  const retried: AbstractTxnCoordinatorSequence = {
    finalizedTransactionVersion: 2,
    initial: null,
    ops: [
      { k: "init", withIds: false, epoch: "current", pid: "current", badTimeout: false },
      { k: "add", epoch: "current", pid: "current", partitions: ["orders-0"], tv2: true, verifyOnly: false },
      { k: "end", commit: true, epoch: "current", pid: "current", tv2: true },
      { k: "describe" },
      { k: "ack" },
      { k: "end", commit: true, epoch: "behind", pid: "current", tv2: true },
      { k: "describe" },
    ],
  };

  it("the model's 4.2.1 coordinator answers a committed transaction and its retry as Kafka's does", async () => {
    const c = await compareTxnCoordinatorSequence(harness, releaseProfile("4.2.1"), retried);
    expect(c.kafka.map((r) => r.error)).toEqual(["NONE", "NONE", "NONE", "NONE", "NONE", "NONE", "NONE"]);
    expect(c.kafka[2]?.markers).toHaveLength(1);
    expect(c.divergence).toBeNull();
  }, 20_000);

  it("catches the planted mutant tv2-retry-not-recognised at the retried EndTxn", async () => {
    const mutant = findMutant("tv2-retry-not-recognised");
    expect(mutant).toBeDefined();
    const c = await compareTxnCoordinatorSequence(harness, releaseProfile("4.2.1", mutant?.overrides), retried);
    expect(c.divergence?.step).toBe(5);
    expect(divergenceClass(c.divergence as NonNullable<typeof c.divergence>)).toBe("endTxn error");
    expect(c.kafka[5]?.error).toBe("NONE");
  }, 20_000);

  /** A TV2 transaction at epoch 32767 (4.2.1: no KAFKA-20090) ended: Kafka's int16 bump overflows. */
  const atMaxEpoch: Parameters<typeof compareTxnMetadataSequence>[2] = {
    init: {
      transactionalId: "txn",
      producerId: 1000,
      prevProducerId: -1,
      nextProducerId: -1,
      producerEpoch: 32767,
      lastProducerEpoch: -1,
      txnTimeoutMs: 60_000,
      state: "ONGOING",
      topicPartitions: ["orders-0"],
      txnStartTimestamp: 0,
      txnLastUpdateTimestamp: 0,
      clientTransactionVersion: 2,
    },
    ops: [
      { k: "add", partitions: ["orders-1"], tv: 2 },
      { k: "finish" },
      { k: "end", commit: false, tv: 2, nextProducerId: false, noPartitionAdded: false },
    ],
  };

  it("the model's 4.2.1 TransactionMetadata overflows at epoch 32767 as Kafka's does", async () => {
    const c = await compareTxnMetadataSequence(harness, releaseProfile("4.2.1").flags, atMaxEpoch);
    expect(c.kafka[2]?.exception).toBe("IllegalArgumentException");
    expect(c.model[2]?.error).toBe("UNKNOWN_SERVER_ERROR");
    expect(c.divergence).toBeNull();
  }, 20_000);

  it("catches the capping variant (epochOverflowThrows off) at the overflowing end", async () => {
    const c = await compareTxnMetadataSequence(
      harness,
      releaseProfile("4.2.1", { epochOverflowThrows: false }).flags,
      atMaxEpoch,
    );
    expect(c.divergence?.step).toBe(2);
    expect(c.model[2]?.error).toBe("NONE");
  }, 20_000);
  /**
   * everything's seed 4222 (a 4.0 cluster): a coordinator loaded its partition to the log end
   * (TransactionStateManager.loadTransactionMetadata reads with FetchIsolation.LOG_END, an
   * uncommitted Ongoing record included; the harness does not drive a load, so the record's state is
   * given as the starting metadata), then answered the leader's AddPartitionsToTxn for output-0 at
   * once, with no write (handleAddPartitionsToTransaction: "if the partitions are already in the
   * metadata reply OK immediately"). The record was truncated later, and with it the partition.
   */
  it("a coordinator answers AddPartitionsToTxn for a partition its loaded state holds with no write, as Kafka's does", async () => {
    const initialMetadata = {
      transactionalId: "txn-2",
      producerId: 1004,
      prevProducerId: -1,
      nextProducerId: -1,
      producerEpoch: 0,
      lastProducerEpoch: -1,
      txnTimeoutMs: 1000,
      state: "ONGOING" as const,
      topicPartitions: ["output-0"],
      txnStartTimestamp: 0,
      txnLastUpdateTimestamp: 0,
      clientTransactionVersion: 2,
    };
    const add = (partition: string): TxnCoordinatorOp => ({
      op: "addPartitions",
      transactionalId: "txn-2",
      producerId: 1004,
      producerEpoch: 0,
      partitions: [partition],
      verifyOnly: false,
      clientTransactionVersion: 2,
    });
    // The next __transaction_state append fails: an answer that waited for a write would say so.
    const ops: TxnCoordinatorOp[] = [
      { op: "failNextAppend", error: "NOT_ENOUGH_REPLICAS" },
      add("output-0"),
      add("output-1"),
    ];
    const kafka = await runKafkaTxnCoordinator(harness, {
      config: DEFAULT_TXN_COORDINATOR_CONFIG,
      initialMetadata,
      ops,
    });
    // Able to fail: output-1, not yet in the state, is written, and the armed failure answers it.
    expect(kafka.map((r) => r.error)).toEqual(["NONE", "NONE", "COORDINATOR_NOT_AVAILABLE"]);
    const model = new ModelTxnCoordinator(releaseProfile("4.2.1"), DEFAULT_TXN_COORDINATOR_CONFIG);
    model.put(initialMetadata);
    expect(ops.map((op) => model.apply(op).error)).toEqual(kafka.map((r) => r.error));
  }, 20_000);
});
