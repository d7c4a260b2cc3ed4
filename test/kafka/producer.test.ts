import { describe, expect, it } from "vitest";
import { PRODUCER_DEFAULTS, TIME_SCALE } from "../../src/kafka/client/producer-config.js";
import { ApiVersions } from "../../src/kafka/client/api-versions.js";
import { type ProducerBatch, RecordAccumulator } from "../../src/kafka/client/record-accumulator.js";
import { TransactionManager } from "../../src/kafka/client/transaction-manager.js";
import { UNKNOWN_PRODUCER_ID } from "../../src/kafka/client/txn-response-errors.js";
import type { ProducerBehaviour } from "../../src/kafka/client/producer-behaviour.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { TransactionVersion } from "../../src/kafka/common/types.js";
import { loadScenario, runSeed } from "../../src/index.js";

const P0 = "orders-0";
const P1 = "orders-1";

const BEHAVIOUR: ProducerBehaviour = {
  invalidProducerEpochOnProduceAbortable: true,
  adoptEndTxnEpoch: true,
  abortWithoutFlush: false,
};

/**
 * A TransactionManager of a client of `tv` (2: a 4.0+ client) whose ApiVersions heard a cluster
 * that finalizes the same transaction.version.
 */
function manager(tv: TransactionVersion, behaviour: ProducerBehaviour = BEHAVIOUR) {
  const heard: string[] = [];
  const apiVersions = new ApiVersions();
  apiVersions.update({ transactionVersion: tv, epoch: 0 });
  const tm = new TransactionManager(
    "txn-0",
    tv,
    behaviour,
    {
      fatal: (api, code) => heard.push(`fatal ${api} ${code}`),
      abortable: (reason) => heard.push(`abortable ${reason}`),
    },
    apiVersions,
  );
  return { tm, heard };
}

/**
 * A TransactionManager in IN_TRANSACTION at producer id 1000, epoch `epoch`. As KafkaProducer's
 * initTransactions, it reads the finalized features once the InitProducerId is answered.
 */
function inTransaction(tv: TransactionVersion, epoch = 3) {
  const m = manager(tv);
  let ready = false;
  m.tm.initializeTransactions(() => {
    m.tm.maybeUpdateTransactionV2Enabled({ onInitialization: true });
    ready = true;
  });
  expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "InitProducerId", bump: false });
  m.tm.handleInitProducerIdResponse(Errors.NONE, 1000, epoch);
  expect(ready).toBe(true);
  m.tm.beginTransaction();
  return m;
}

/** As inTransaction, with bug switches of the client on. */
function inTransactionWith(tv: TransactionVersion, switches: Partial<ProducerBehaviour>) {
  const m = manager(tv, { ...BEHAVIOUR, ...switches });
  m.tm.initializeTransactions(() => m.tm.maybeUpdateTransactionV2Enabled({ onInitialization: true }));
  m.tm.nextRequest(false, 0);
  m.tm.handleInitProducerIdResponse(Errors.NONE, 1000, 3);
  m.tm.beginTransaction();
  return m;
}

/** One drained batch of `records` records at `partition`, sequences assigned. */
function drained(m: { tm: TransactionManager }, acc: RecordAccumulator, partition: string, records = 1): ProducerBatch {
  m.tm.maybeAddPartition(partition);
  let batch: ProducerBatch | null = null;
  for (let i = 0; i < records; i++) batch = acc.append(partition, `v${i}`, "p0.t1", 0);
  const b = batch as ProducerBatch;
  m.tm.assignSequence(b);
  acc.drain(b);
  return b;
}

describe("TransactionManager state machine (State.isTransitionValid)", () => {
  it("TransactionManager.beginTransaction is only valid from READY", () => {
    const { tm } = inTransaction(2);
    expect(tm.state).toBe("IN_TRANSACTION");
    expect(() => tm.beginTransaction()).toThrow(/invalid transition IN_TRANSACTION -> IN_TRANSACTION/);
  });

  it("TransactionManager.beginCommit refuses a transaction in ABORTABLE_ERROR (commitTransaction throws the error)", () => {
    const m = inTransaction(2);
    m.tm.transitionToAbortableError("Produce to orders-0: NOT_ENOUGH_REPLICAS");
    expect(m.tm.beginCommit(() => {})).toBe(false);
    m.tm.beginAbort(() => {});
    expect(m.tm.state).toBe("ABORTING_TRANSACTION");
  });

  it("TransactionManager.transitionToAbortableError is skipped while the transaction is already being aborted", () => {
    const m = inTransaction(1);
    m.tm.beginAbort(() => {});
    m.tm.transitionToAbortableError("late failure");
    expect(m.tm.state).toBe("ABORTING_TRANSACTION");
    expect(m.heard).toEqual([]);
  });
});

describe("TransactionManager error classes (maybeTransitionToErrorState, handleFailedBatch)", () => {
  it("TransactionManager.handleFailedBatch: INVALID_PRODUCER_EPOCH on a produce is abortable (KIP-588), not fatal", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(16, 0);
    const b = drained(m, acc, P0);
    m.tm.handleFailedBatch(b, Errors.INVALID_PRODUCER_EPOCH, "Produce: INVALID_PRODUCER_EPOCH", false);
    expect(m.tm.state).toBe("ABORTABLE_ERROR");
    expect(m.heard).toEqual(["abortable Produce: INVALID_PRODUCER_EPOCH"]);
  });

  it("TransactionManager.handleFailedBatch: PRODUCER_FENCED on a produce is fatal", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(16, 0);
    const b = drained(m, acc, P0);
    m.tm.handleFailedBatch(b, Errors.PRODUCER_FENCED, "fenced", false);
    expect(m.tm.state).toBe("FATAL_ERROR");
    expect(m.heard).toEqual([`fatal Produce ${Errors.PRODUCER_FENCED}`]);
  });

  it("TransactionManager.maybeTransitionToErrorState: a TV0/1 abortable error asks for a client epoch bump (KIP-360); TV2 leaves it to EndTxn (KIP-890)", () => {
    const tv1 = inTransaction(1);
    tv1.tm.maybeTransitionToErrorState("Produce", Errors.NOT_ENOUGH_REPLICAS, "x");
    expect([tv1.tm.state, tv1.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", true]);
    const tv2 = inTransaction(2);
    tv2.tm.maybeTransitionToErrorState("Produce", Errors.NOT_ENOUGH_REPLICAS, "x");
    expect([tv2.tm.state, tv2.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", false]);
  });

  it("TransactionManager.maybeTransitionToErrorState: no client bump for an error while committing (isCompleting)", () => {
    const m = inTransaction(1);
    m.tm.maybeAddPartition(P0);
    m.tm.handleAddPartitionsResponse([P0], Errors.NONE);
    m.tm.beginCommit(() => {});
    m.tm.maybeTransitionToErrorState("Produce", Errors.NOT_ENOUGH_REPLICAS, "x");
    expect(m.tm.state).toBe("ABORTABLE_ERROR");
    expect(m.tm.epochBumpRequired).toBe(false);
  });

  it("TransactionManager.TxnRequestHandler.abortableError asks for no client epoch bump: a TV1 abort after a coordinator's TRANSACTION_ABORTABLE sends no InitProducerId", () => {
    const m = inTransaction(1);
    m.tm.maybeAddPartition(P0);
    expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "AddPartitionsToTxn", partitions: [P0] });
    m.tm.handleAddPartitionsResponse([P0], Errors.TRANSACTION_ABORTABLE);
    expect([m.tm.state, m.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", false]);
    m.tm.beginAbort(() => {});
    // Nothing was added: the abort ends without EndTxn, and without an epoch bump.
    expect(m.tm.nextRequest(false, 0)).toBeNull();
    expect(m.tm.state).toBe("READY");
    // UNKNOWN_PRODUCER_ID is abortableErrorIfPossible: that one asks for the bump.
    const u = inTransaction(1);
    u.tm.maybeAddPartition(P0);
    u.tm.nextRequest(false, 0);
    u.tm.handleAddPartitionsResponse([P0], UNKNOWN_PRODUCER_ID);
    expect([u.tm.state, u.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", true]);
  });

  it("TransactionManager.maybeTransitionToErrorState: missing authorizations, UNSUPPORTED_VERSION and (KAFKA-18019, 4.0) INVALID_PRODUCER_ID_MAPPING are fatal on a produce", () => {
    for (const code of [
      Errors.CLUSTER_AUTHORIZATION_FAILED,
      Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
      Errors.UNSUPPORTED_VERSION,
    ]) {
      const m = inTransaction(2);
      m.tm.maybeTransitionToErrorState("Produce", code, "x");
      expect(m.tm.state, String(code)).toBe("FATAL_ERROR");
    }
    const before = inTransactionWith(1, { invalidProducerIdMappingFatal: false });
    before.tm.maybeTransitionToErrorState("Produce", Errors.INVALID_PRODUCER_ID_MAPPING, "x");
    expect([before.tm.state, before.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", true]);
    const after = inTransactionWith(2, { invalidProducerIdMappingFatal: true });
    after.tm.maybeTransitionToErrorState("Produce", Errors.INVALID_PRODUCER_ID_MAPPING, "x");
    expect(after.tm.state).toBe("FATAL_ERROR");
  });
});

describe("TransactionManager coordinator requests (TxnRequestHandler.handleResponse)", () => {
  it("TransactionManager.beginCompletingTransaction: a TV0/1 abort after an abortable error sends EndTxn, then InitProducerId with the current id and epoch", () => {
    const m = inTransaction(1, 7);
    m.tm.maybeAddPartition(P0);
    expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "AddPartitionsToTxn", partitions: [P0] });
    m.tm.handleAddPartitionsResponse([P0], Errors.NONE);
    m.tm.maybeTransitionToErrorState(
      "Produce",
      Errors.REQUEST_TIMED_OUT,
      "Produce to orders-0: delivery.timeout.ms expired",
    );
    let aborted = false;
    m.tm.beginAbort(() => {
      aborted = true;
    });
    expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: false, transactionVersion: 1 });
    m.tm.handleEndTxnResponse(Errors.NONE, -1, -1);
    expect(m.tm.state).toBe("INITIALIZING");
    expect(aborted).toBe(false);
    expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "InitProducerId", bump: true });
    m.tm.handleInitProducerIdResponse(Errors.NONE, 1000, 8);
    expect(aborted).toBe(true);
    expect([m.tm.state, m.tm.producerEpoch]).toEqual(["READY", 8]);
  });

  it("TransactionManager.EndTxnHandler: a TV2 client takes the epoch of the EndTxn response and starts its sequences again at 0", () => {
    const m = inTransaction(2, 3);
    const acc = new RecordAccumulator(16, 0);
    const b = drained(m, acc, P0, 3);
    m.tm.handleCompletedBatch(b);
    acc.complete(b);
    m.tm.beginCommit(() => {});
    expect(m.tm.nextRequest(acc.hasIncomplete(), 0)?.request).toEqual({
      api: "EndTxn",
      commit: true,
      transactionVersion: 2,
    });
    m.tm.handleEndTxnResponse(Errors.NONE, 1000, 4);
    expect([m.tm.state, m.tm.producerEpoch]).toEqual(["READY", 4]);
    m.tm.beginTransaction();
    const next = drained(m, acc, P0);
    expect([next.producerEpoch, next.baseSequence]).toEqual([4, 0]);
  });

  it("TransactionManager.EndTxnHandler: a TV0/1 EndTxn (before v5) carries no epoch, and sequences go on", () => {
    const m = inTransaction(1, 3);
    const acc = new RecordAccumulator(16, 0);
    m.tm.maybeAddPartition(P0);
    m.tm.handleAddPartitionsResponse([P0], Errors.NONE);
    const b = acc.append(P0, "v", "p0.t1", 0);
    m.tm.assignSequence(b);
    acc.drain(b);
    m.tm.handleCompletedBatch(b);
    acc.complete(b);
    m.tm.beginCommit(() => {});
    m.tm.nextRequest(false, 0);
    m.tm.handleEndTxnResponse(Errors.NONE, -1, -1);
    m.tm.beginTransaction();
    const next = drained(m, acc, P0);
    m.tm.handleAddPartitionsResponse([P0], Errors.NONE);
    expect([next.producerEpoch, next.baseSequence]).toEqual([3, 1]);
  });

  it("TransactionManager.EndTxnHandler: retriable errors are retried (NOT_COORDINATOR after a coordinator lookup); INVALID_TXN_STATE and PRODUCER_FENCED are fatal", () => {
    expect(inTransaction(2).tm.handleEndTxnResponse(Errors.CONCURRENT_TRANSACTIONS, -1, -1)).toBe("retry");
    expect(inTransaction(2).tm.handleEndTxnResponse(Errors.NOT_COORDINATOR, -1, -1)).toBe("lookup-and-retry");
    // NETWORK_EXCEPTION answered as an error code is only retried; a dropped connection looks the coordinator up.
    expect(inTransaction(2).tm.handleEndTxnResponse(Errors.NETWORK_EXCEPTION, -1, -1)).toBe("retry");
    expect(inTransaction(2).tm.handleDisconnect()).toBe("lookup-and-retry");
    for (const code of [Errors.INVALID_TXN_STATE, Errors.PRODUCER_FENCED, Errors.INVALID_PRODUCER_EPOCH]) {
      const m = inTransaction(2);
      m.tm.handleEndTxnResponse(code, -1, -1);
      expect(m.tm.state, String(code)).toBe("FATAL_ERROR");
    }
    // INVALID_PRODUCER_ID_MAPPING: abortable with a client bump before KAFKA-18019 (3.x), fatal since (4.0).
    const m = inTransactionWith(1, { invalidProducerIdMappingFatal: false });
    m.tm.handleEndTxnResponse(Errors.INVALID_PRODUCER_ID_MAPPING, -1, -1);
    expect([m.tm.state, m.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", true]);
    const f = inTransactionWith(2, { invalidProducerIdMappingFatal: true });
    f.tm.handleEndTxnResponse(Errors.INVALID_PRODUCER_ID_MAPPING, -1, -1);
    expect(f.tm.state).toBe("FATAL_ERROR");
  });

  it("TransactionManager.EndTxnHandler: TRANSACTION_ABORTABLE answering an abort fails the abort before KAFKA-19250, is fatal since (4.1.0)", () => {
    const before = inTransactionWith(2, { endTxnAbortAbortableErrorFatal: false });
    before.tm.beginAbort(() => {});
    before.tm.handleEndTxnResponse(Errors.TRANSACTION_ABORTABLE, -1, -1);
    expect(before.tm.state).toBe("ABORTING_TRANSACTION");
    expect(before.tm.abortFailure).toMatchObject({ api: "EndTxn", errorCode: Errors.TRANSACTION_ABORTABLE });
    const after = inTransactionWith(2, { endTxnAbortAbortableErrorFatal: true });
    after.tm.beginAbort(() => {});
    after.tm.handleEndTxnResponse(Errors.TRANSACTION_ABORTABLE, -1, -1);
    expect(after.tm.state).toBe("FATAL_ERROR");
    expect(after.heard).toEqual([`fatal EndTxn ${Errors.TRANSACTION_ABORTABLE}`]);
    // A commit's TRANSACTION_ABORTABLE stays abortable.
    const commit = inTransactionWith(2, { endTxnAbortAbortableErrorFatal: true });
    commit.tm.beginCommit(() => {});
    commit.tm.handleEndTxnResponse(Errors.TRANSACTION_ABORTABLE, -1, -1);
    expect(commit.tm.state).toBe("ABORTABLE_ERROR");
  });

  it("TransactionManager.EndTxnHandler: an abortable error during the abort fails the abort (abortableError: result.fail), the state stays ABORTING_TRANSACTION", () => {
    const m = inTransaction(2);
    let done = false;
    m.tm.beginAbort(() => {
      done = true;
    });
    expect(m.tm.abortFailure).toBeNull();
    m.tm.handleEndTxnResponse(UNKNOWN_PRODUCER_ID, -1, -1);
    expect([m.tm.state, done]).toEqual(["ABORTING_TRANSACTION", false]);
    expect(m.tm.abortFailure).toMatchObject({ api: "EndTxn", errorCode: UNKNOWN_PRODUCER_ID });
    // A commit's abortable error is not an abort failure: the application aborts next.
    const c = inTransaction(2);
    c.tm.beginCommit(() => {});
    c.tm.handleEndTxnResponse(Errors.TRANSACTION_ABORTABLE, -1, -1);
    expect([c.tm.state, c.tm.abortFailure]).toEqual(["ABORTABLE_ERROR", null]);
  });

  it("TransactionManager.nextRequest: EndTxn waits until no batch is incomplete", () => {
    const m = inTransaction(2);
    m.tm.maybeAddPartition(P0);
    m.tm.beginCommit(() => {});
    expect(m.tm.nextRequest(true, 0)).toBeNull();
    expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 2 });
  });

  it("TransactionManager.nextRequest: a TV0/1 transaction that added no partition ends without EndTxn", () => {
    const m = inTransaction(1);
    let done = false;
    m.tm.beginAbort(() => {
      done = true;
    });
    expect(m.tm.nextRequest(false, 0)).toBeNull();
    expect([done, m.tm.state]).toEqual([true, "READY"]);
  });

  it("TransactionManager.nextRequest: a TV2 transaction that added nothing ends without EndTxn; KAFKA-18401's bug switch sends it", () => {
    const fixed = inTransaction(2);
    let done = false;
    fixed.tm.beginCommit(() => {
      done = true;
    });
    expect(fixed.tm.nextRequest(false, 0)).toBeNull();
    expect([done, fixed.tm.state]).toEqual([true, "READY"]);
    const buggy = inTransactionWith(2, { tv2EndTxnForEmptyTxn: true });
    buggy.tm.beginCommit(() => {});
    expect(buggy.tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 2 });
  });

  it("TransactionManager.AddPartitionsToTxnHandler: one request adds every new partition; only added partitions may be sent to (isSendToPartitionAllowed)", () => {
    const m = inTransaction(1);
    m.tm.maybeAddPartition(P0);
    m.tm.maybeAddPartition(P1);
    expect(m.tm.isSendToPartitionAllowed(P0)).toBe(false);
    expect(m.tm.nextRequest(false, 0)?.request).toEqual({ api: "AddPartitionsToTxn", partitions: [P0, P1] });
    m.tm.handleAddPartitionsResponse([P0, P1], Errors.NONE);
    expect(m.tm.isSendToPartitionAllowed(P0) && m.tm.isSendToPartitionAllowed(P1)).toBe(true);
  });
});

describe("TransactionManager sequences (TxnPartitionMap, canRetry)", () => {
  it("TransactionManager.canRetry: OUT_OF_ORDER_SEQUENCE_NUMBER is retried for a batch that is not the next one expected, not for the next one", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(1, 0);
    const first = drained(m, acc, P0);
    const second = drained(m, acc, P0);
    expect([first.baseSequence, second.baseSequence]).toEqual([0, 1]);
    expect(m.tm.canRetry(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, second)).toBe(true);
    expect(m.tm.canRetry(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, first)).toBe(false);
    expect(m.tm.canRetry(Errors.NOT_LEADER_OR_FOLLOWER, first)).toBe(true);
    expect(m.tm.canRetry(Errors.INVALID_PRODUCER_EPOCH, first)).toBe(false);
  });

  it("RecordAccumulator.shouldStopDrainBatchesForPartition: a retried batch goes only when it is the first in flight", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(1, 0);
    const first = drained(m, acc, P0);
    const second = drained(m, acc, P0);
    acc.reenqueue(second, 20);
    expect(m.tm.shouldStopDrain(second)).toBe(true);
    m.tm.handleCompletedBatch(first);
    expect(m.tm.shouldStopDrain(second)).toBe(false);
  });

  it("TransactionManager.handleFailedBatch: UNKNOWN_PRODUCER_ID starts the partition again at sequence 0", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(1, 0);
    drained(m, acc, P0);
    const b = drained(m, acc, P0);
    m.tm.handleFailedBatch(b, UNKNOWN_PRODUCER_ID, "UNKNOWN_PRODUCER_ID", false);
    expect(drained(m, acc, P0).baseSequence).toBe(0);
  });

  it("Sender.maybeAbortBatches: in ABORTABLE_ERROR queued batches fail unsent; KAFKA-5364's bug switch drains them without the transactional flag", () => {
    const fixed = inTransaction(2);
    fixed.tm.transitionToAbortableError("send of v: RecordTooLargeException");
    expect(fixed.tm.drainsInAbortableError).toBe(false);
    const buggy = inTransactionWith(2, { drainDropsTxnFlagInAbortableError: true });
    const acc = new RecordAccumulator(16, 0);
    const before = drained(buggy, acc, P0);
    buggy.tm.transitionToAbortableError("send of v: RecordTooLargeException");
    expect(buggy.tm.drainsInAbortableError).toBe(true);
    const after = drained(buggy, acc, P1);
    expect([before.isTransactional, after.isTransactional]).toEqual([true, false]);
  });

  it("TransactionManager.adjustSequencesDueToFailedBatch: a refused batch frees its sequences for the next", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(2, 0);
    const a = drained(m, acc, P0, 2);
    m.tm.handleFailedBatch(a, Errors.INVALID_TXN_STATE, "refused", false);
    expect(drained(m, acc, P0).baseSequence).toBe(0);
  });

  it("TransactionManager.maybeResolveSequences: a TV0/1 batch whose fate is unknown (expired after it was sent) requires an epoch bump even while committing", () => {
    const m = inTransaction(1);
    const acc = new RecordAccumulator(1, 0);
    m.tm.maybeAddPartition(P0);
    m.tm.handleAddPartitionsResponse([P0], Errors.NONE);
    const b = acc.append(P0, "v", "p0.t1", 0);
    m.tm.assignSequence(b);
    acc.drain(b);
    m.tm.beginCommit(() => {});
    m.tm.handleFailedBatch(b, Errors.REQUEST_TIMED_OUT, "expired", true);
    expect([m.tm.state, m.tm.epochBumpRequired]).toEqual(["ABORTABLE_ERROR", true]);
  });
});

describe("RecordAccumulator", () => {
  it("RecordAccumulator.append: records of one partition share a batch up to batch.size (counted in records)", () => {
    const acc = new RecordAccumulator(3, 0);
    const batches = new Set([0, 1, 2, 3].map((i) => acc.append(P0, `v${i}`, "t", 0)));
    expect([...batches].map((b) => b.recordCount)).toEqual([3, 1]);
  });

  it("RecordAccumulator.ready: a batch that is not full waits linger.ms, unless a flush makes it ready", () => {
    const acc = new RecordAccumulator(3, 5);
    const b = acc.append(P0, "v", "t", 100);
    expect(acc.readyAtMs(b)).toBe(105);
    acc.append(P0, "w", "t", 101);
    acc.append(P0, "x", "t", 101);
    expect(acc.readyAtMs(b)).toBe(0);
    const c = acc.append(P1, "y", "t", 102);
    acc.beginFlush();
    expect(acc.readyAtMs(c)).toBe(0);
  });

  it("RecordAccumulator.abortUndrainedBatches: batches never sent are failed, a batch waiting for its retry is kept", () => {
    const m = inTransaction(2);
    const acc = new RecordAccumulator(1, 0);
    const sent = drained(m, acc, P0);
    acc.reenqueue(sent, 10);
    const unsent = acc.append(P1, "v", "t", 0);
    expect(acc.abortUndrainedBatches()).toEqual([unsent]);
    expect(acc.first(P0)).toBe(sent);
  });

  it("ProducerBatch.hasReachedDeliveryTimeout: delivery.timeout.ms counts from the batch's creation", () => {
    const acc = new RecordAccumulator(1, 0);
    acc.append(P0, "v", "t", 100);
    expect(acc.expiredBatches(4_000, 4_099)).toEqual([]);
    expect(acc.expiredBatches(4_000, 4_100).length).toBe(1);
  });
});

describe("producer defaults (ProducerConfig) on the scenario's clock", () => {
  it("are Kafka's defaults divided by the time scale, in one place", () => {
    expect(TIME_SCALE).toBe(30);
    expect(PRODUCER_DEFAULTS).toMatchObject({
      requestTimeoutMs: 1_000,
      deliveryTimeoutMs: 4_000,
      transactionTimeoutMs: 2_000,
      maxBlockMs: 2_000,
      lingerMs: 0,
      maxInFlightRequestsPerConnection: 5,
    });
  });
});

/** Produce requests of a run (from a recorded trace): per producer and broker, the most in flight at once, and record counts. */
function produceTraffic(scenario: string, seed: number, workload: Record<string, unknown> = {}) {
  const loaded = loadScenario(scenario);
  const s = { ...loaded, scenario: { ...loaded.scenario, workload: { ...loaded.scenario.workload, ...workload } } };
  const r = runSeed(s, { seed }, { recordTrace: true });
  const open = new Map<string, number>();
  let maxInFlight = 0;
  const records: number[] = [];
  const pending = new Map<string, string>();
  for (const e of r.trace) {
    const f = e.fields as { conn?: number; corr?: number; to?: string; msg?: string; detail?: string };
    if (e.kind === "net.send" && f.msg === "Produce" && e.node.startsWith("p")) {
      const key = `${e.node}>${f.to}`;
      open.set(key, (open.get(key) ?? 0) + 1);
      maxInFlight = Math.max(maxInFlight, open.get(key) ?? 0);
      pending.set(`${f.conn}/${f.corr}`, key);
      records.push(Number(/\((\d+) records?\)/.exec(f.detail ?? "")?.[1] ?? 0));
    }
    if ((e.kind === "net.response" || e.kind === "net.late-response") && pending.has(`${f.conn}/${f.corr}`)) {
      const key = pending.get(`${f.conn}/${f.corr}`) as string;
      pending.delete(`${f.conn}/${f.corr}`);
      open.set(key, (open.get(key) ?? 1) - 1);
    }
  }
  return { maxInFlight, records, violations: r.violations };
}

describe("KafkaProducer in a run", () => {
  it("RecordAccumulator + Sender: a kip-1228 run sends batches of several records", () => {
    const { records } = produceTraffic("kip-1228", 1);
    expect(records.length).toBeGreaterThan(0);
    expect(Math.max(...records)).toBeGreaterThan(1);
  });

  it("Sender: never more than max.in.flight.requests.per.connection produce requests in flight to one broker", () => {
    const five = produceTraffic("kip-1228", 1, {
      recordsPerBatch: 1,
      recordsPerTxn: [8, 12],
      partitionsPerTxn: [1, 1],
    });
    expect(five.maxInFlight).toBeGreaterThan(1);
    expect(five.maxInFlight).toBeLessThanOrEqual(5);
    const one = produceTraffic("kip-1228", 1, {
      recordsPerBatch: 1,
      recordsPerTxn: [8, 12],
      partitionsPerTxn: [1, 1],
      maxInFlightRequestsPerConnection: 1,
    });
    expect(one.maxInFlight).toBe(1);
  });
});
