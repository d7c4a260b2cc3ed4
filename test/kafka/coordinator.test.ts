import { describe, expect, it } from "vitest";
import { Errors } from "../../src/kafka/common/errors.js";
import { IllegalStateException } from "../../src/kafka/common/errors.js";
import { TransactionMetadata } from "../../src/kafka/coordinator/transaction-metadata.js";
import {
  TRANSACTION_STATE_NAMES,
  type TransactionStateName,
  VALID_PREVIOUS_STATES,
} from "../../src/kafka/coordinator/transaction-state.js";
import { coordinatorHarness } from "./coordinator-harness.js";

const M = 5;

describe("TransactionMetadata state machine", () => {
  const targets = TRANSACTION_STATE_NAMES.filter((t) => t !== "Dead");
  it.each(targets)("allows %s only from its valid previous states", (target: TransactionStateName) => {
    for (const from of TRANSACTION_STATE_NAMES) {
      const m = new TransactionMetadata("t", 1, 3, 1000, 0);
      m.state = from;
      const attempt = () => m.prepareTransitionTo(target, {});
      if (VALID_PREVIOUS_STATES[target].has(from)) expect(attempt).not.toThrow();
      else expect(attempt).toThrow(IllegalStateException);
    }
  });

  it("refuses a second transition while one is pending", () => {
    const m = new TransactionMetadata("t", 1, 3, 1000, 0);
    m.prepareTransitionTo("Ongoing", { topicPartitions: ["a-0"], txnStartTimestamp: 0 });
    expect(() => m.prepareTransitionTo("Ongoing", {})).toThrow(/pending/);
  });

  it("TV2 PrepareCommit bumps the epoch and remembers the previous one; completion checks it", () => {
    const m = new TransactionMetadata("t", 1, 3, 1000, 0);
    m.state = "Ongoing";
    m.txnStartTimestamp = 0;
    const transit = m.prepareAbortOrCommit("PrepareCommit", {
      clientTransactionVersion: 2,
      bumpEpoch: true,
      nextProducerId: -1,
      updateTimestamp: 10,
      noPartitionAdded: false,
    });
    expect([transit.producerEpoch, transit.lastProducerEpoch]).toEqual([4, 3]);
    m.completeTransitionTo(transit);
    expect(m.state).toBe("PrepareCommit");
  });

  it("TransactionMetadata.prepareComplete clears hasFailedEpochFence, so the next fence bumps again", () => {
    const m = new TransactionMetadata("t", 1, 3, 1000, 0);
    m.state = "PrepareAbort";
    m.txnStartTimestamp = 0;
    m.hasFailedEpochFence = true;
    m.completeTransitionTo(m.prepareComplete(10));
    expect(m.hasFailedEpochFence).toBe(false);
    m.state = "Ongoing";
    // The fence's transit carries the bumped epoch; the metadata's stays until the abort is prepared.
    expect(m.prepareFenceProducerEpoch().producerEpoch).toBe(4);
    expect(m.producerEpoch).toBe(3);
  });

  it("lastProducerEpoch is not persisted: a loaded record has -1", () => {
    const m = new TransactionMetadata("t", 1, 3, 1000, 0);
    m.lastProducerEpoch = 2;
    expect(TransactionMetadata.fromRecord("t", m.toRecord()).lastProducerEpoch).toBe(-1);
  });
});

describe("EndTxn, TV2 path (KAFKA.md 1.7 table, no pending state)", () => {
  type Outcome = number | "bump";
  // [state, ABORT retry, ABORT current, COMMIT retry, COMMIT current]
  const table: [TransactionStateName, Outcome, Outcome, Outcome, Outcome][] = [
    ["Ongoing", Errors.PRODUCER_FENCED, "bump", Errors.PRODUCER_FENCED, "bump"],
    ["Empty", Errors.PRODUCER_FENCED, "bump", Errors.PRODUCER_FENCED, Errors.INVALID_TXN_STATE],
    ["CompleteAbort", Errors.NONE, "bump", Errors.INVALID_TXN_STATE, Errors.INVALID_TXN_STATE],
    ["CompleteCommit", Errors.INVALID_TXN_STATE, "bump", Errors.NONE, Errors.INVALID_TXN_STATE],
    [
      "PrepareCommit",
      Errors.INVALID_TXN_STATE,
      Errors.PRODUCER_FENCED,
      Errors.CONCURRENT_TRANSACTIONS,
      Errors.PRODUCER_FENCED,
    ],
    [
      "PrepareAbort",
      Errors.CONCURRENT_TRANSACTIONS,
      Errors.PRODUCER_FENCED,
      Errors.INVALID_TXN_STATE,
      Errors.PRODUCER_FENCED,
    ],
  ];
  for (const [state, ...outcomes] of table) {
    const cases: [string, boolean, number, Outcome][] = [
      ["ABORT retry", false, M - 1, outcomes[0]],
      ["ABORT current", false, M, outcomes[1]],
      ["COMMIT retry", true, M - 1, outcomes[2]],
      ["COMMIT current", true, M, outcomes[3]],
    ];
    for (const [label, commit, epoch, expected] of cases) {
      it(`${state} + ${label}`, () => {
        const h = coordinatorHarness("4.2.1");
        // A retry is only recognised when the epoch moved at EndTxn, i.e. the metadata epoch is e+1.
        h.put(state, M);
        const r = h.endTxn(commit, epoch);
        if (expected === "bump") {
          expect(r).toEqual({ errorCode: Errors.NONE, producerId: 1000, producerEpoch: M + 1 });
          expect(h.metadata()?.state).toBe(commit ? "CompleteCommit" : "CompleteAbort");
        } else {
          expect(r.errorCode).toBe(expected);
          if (expected === Errors.NONE) expect(r.producerEpoch).toBe(M);
        }
      });
    }
  }

  it("TransactionCoordinator.endTransaction (TV2) checks the pending state before the epoch (KAFKA-18464, 4.0 and later): every EndTxn gets CONCURRENT_TRANSACTIONS while CompleteX is pending", () => {
    const h = coordinatorHarness("4.2.1");
    const m = h.put("PrepareCommit", M);
    m.pendingState = "CompleteCommit";
    expect(h.endTxn(true, M - 1).errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
    expect(h.endTxn(true, 2).errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
    // An empty abort at the epoch the client already holds, sent while the commit's markers are
    // being written: the order KAFKA-18464 chose so that it waits instead of being fenced.
    expect(h.endTxn(false, M).errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
  });

  it("TransactionCoordinator.endTransaction (TV0/1) checks the epoch before the pending state", () => {
    const h = coordinatorHarness("3.x", 0);
    const m = h.put("PrepareCommit", M);
    m.clientTransactionVersion = 0;
    m.pendingState = "CompleteCommit";
    expect(h.endTxn(true, M - 1, 3).errorCode).toBe(Errors.PRODUCER_FENCED);
    expect(h.endTxn(true, M, 3).errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
  });

  it("at epoch 32766 a commit rotates the producer id: the client gets (nextProducerId, 0)", () => {
    const h = coordinatorHarness("4.2.1");
    h.put("Ongoing", 32766);
    const r = h.endTxn(true, 32766);
    expect(r.errorCode).toBe(Errors.NONE);
    expect(r.producerId).not.toBe(1000);
    expect(r.producerEpoch).toBe(0);
    expect(h.metadata()).toMatchObject({
      producerId: r.producerId,
      producerEpoch: 0,
      prevProducerId: 1000,
      state: "CompleteCommit",
    });
  });

  it("TransactionMetadata.prepareComplete keeps lastProducerEpoch at 32766 when the producer id rotates; an InitProducerId retry with the old id and 32766 is recognised", () => {
    const h = coordinatorHarness("4.2.1");
    h.put("Ongoing", 32766);
    const r = h.endTxn(true, 32766);
    expect(h.metadata()).toMatchObject({
      state: "CompleteCommit",
      producerId: r.producerId,
      producerEpoch: 0,
      lastProducerEpoch: 32766,
      prevProducerId: 1000,
    });
    expect(h.initProducerId(1000, 32766)).toEqual({
      errorCode: Errors.NONE,
      producerId: r.producerId,
      producerEpoch: 0,
    });
  });

  it("the epoch-bump mutant leaves the epoch unchanged", () => {
    const h = coordinatorHarness("4.2.1", 2, { epochBumpOnEndTxn: false });
    h.put("Ongoing", M);
    expect(h.endTxn(true, M).producerEpoch).toBe(M);
  });
});

describe("EndTxn, TV0/TV1 path", () => {
  const cases: [TransactionStateName, boolean, number][] = [
    ["Ongoing", true, Errors.NONE],
    ["CompleteCommit", true, Errors.NONE],
    ["CompleteCommit", false, Errors.INVALID_TXN_STATE],
    ["CompleteAbort", false, Errors.NONE],
    ["CompleteAbort", true, Errors.INVALID_TXN_STATE],
    ["PrepareCommit", true, Errors.CONCURRENT_TRANSACTIONS],
    ["PrepareCommit", false, Errors.INVALID_TXN_STATE],
    ["PrepareAbort", false, Errors.CONCURRENT_TRANSACTIONS],
    ["Empty", true, Errors.INVALID_TXN_STATE],
  ];
  it.each(cases)("%s + %s commit -> error %i", (state, commit, expected) => {
    const h = coordinatorHarness("3.x", 0);
    h.put(state, M).clientTransactionVersion = 0;
    const r = h.endTxn(commit, M, 4);
    expect(r.errorCode).toBe(expected);
    // endTransactionWithTV1 answers every TV0/1 EndTxn with producer id and epoch -1/-1.
    expect([r.producerId, r.producerEpoch]).toEqual([-1, -1]);
  });

  it("a stale epoch is PRODUCER_FENCED (INVALID_PRODUCER_EPOCH for EndTxn v<2)", () => {
    const h = coordinatorHarness("3.x", 0);
    h.put("Ongoing", M);
    expect(h.endTxn(true, M - 1, 3).errorCode).toBe(Errors.PRODUCER_FENCED);
    expect(h.endTxn(true, M - 1, 1).errorCode).toBe(Errors.INVALID_PRODUCER_EPOCH);
  });
});

describe("InitProducerId", () => {
  it("creates a producer id at epoch 0, then bumps on each call", () => {
    const h = coordinatorHarness("4.2.1");
    expect(h.initProducerId()).toEqual({ errorCode: Errors.NONE, producerId: 2000, producerEpoch: 0 });
    expect(h.initProducerId().producerEpoch).toBe(1);
  });

  it("fences an ongoing transaction: CONCURRENT_TRANSACTIONS, abort at E+1, then the retry gets E+2 (TV1)", () => {
    const h = coordinatorHarness("3.x", 0);
    h.put("Ongoing", M).clientTransactionVersion = 0;
    expect(h.initProducerId().errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
    expect(h.metadata()).toMatchObject({ state: "CompleteAbort", producerEpoch: M + 1 });
    expect(h.initProducerId().producerEpoch).toBe(M + 2);
  });

  it("TransactionCoordinator.handleInitProducerId (TV2) after KAFKA-19367 (4.0.1, 4.1) bumps once for the fence abort (E+1); 4.0.0 twice (E+2)", () => {
    for (const [release, overrides, abortEpoch] of [
      ["4.1", {}, M + 1],
      ["4.0", {}, M + 1],
      ["4.0", { singleEpochBumpOnCoordinatorAbort: false }, M + 2],
    ] as const) {
      const h = coordinatorHarness(release, 2, overrides);
      h.put("Ongoing", M);
      expect(h.initProducerId().errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
      expect(h.metadata()).toMatchObject({ state: "CompleteAbort", producerEpoch: abortEpoch });
    }
  });

  it("rotates the producer id when the epoch is exhausted", () => {
    const h = coordinatorHarness("4.2.1");
    h.put("CompleteCommit", 32766);
    const r = h.initProducerId();
    expect(r.producerId).not.toBe(1000);
    expect(r.producerEpoch).toBe(0);
  });

  it("TransactionMetadata.prepareIncrementProducerEpoch refuses an exhausted epoch: a retry after the bump to 32766 gets UNKNOWN_SERVER_ERROR", () => {
    const h = coordinatorHarness("4.2.1");
    h.put("CompleteCommit", 32766).lastProducerEpoch = 32765;
    expect(h.initProducerId(1000, 32765).errorCode).toBe(Errors.UNKNOWN_SERVER_ERROR);
    expect(h.metadata()).toMatchObject({ state: "CompleteCommit", producerEpoch: 32766, pendingState: null });
    const m = new TransactionMetadata("t", 1, 32766, 1000, 0);
    expect(() => m.prepareIncrementProducerEpoch(1000, null, 0)).toThrow(IllegalStateException);
  });

  it("recognises a retry with the previous epoch (KIP-360) and fences a stale one", () => {
    const h = coordinatorHarness("4.2.1");
    const { producerId } = h.initProducerId();
    const first = h.initProducerId(producerId, 0);
    expect(first.producerEpoch).toBe(1);
    expect(h.initProducerId(producerId, 0).producerEpoch).toBe(1);
    expect(h.initProducerId(producerId, 7).errorCode).toBe(Errors.PRODUCER_FENCED);
  });
});

describe("AddPartitionsToTxn", () => {
  it("moves Empty to Ongoing, rejects a stale epoch and waits while markers are pending", () => {
    const h = coordinatorHarness("3.x", 0);
    h.put("Empty", M);
    expect(h.addPartitions(M, ["orders-0"]).results[0]?.errorCode).toBe(Errors.NONE);
    expect(h.metadata()?.state).toBe("Ongoing");
    expect(h.addPartitions(M - 1, ["orders-1"]).results[0]?.errorCode).toBe(Errors.PRODUCER_FENCED);
    h.metadata()!.pendingState = "CompleteCommit";
    expect(h.addPartitions(M, ["orders-1"]).results[0]?.errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
  });
});

describe("transaction timeout", () => {
  it("aborts an Ongoing transaction older than its timeout, at a bumped epoch", () => {
    const h = coordinatorHarness("4.2.1");
    h.put("Ongoing", M).txnTimeoutMs = 100;
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 2_000 });
    expect(h.metadata()).toMatchObject({ state: "CompleteAbort", producerEpoch: M + 1 });
  });
});

describe("bug switches from Kafka's history (docs/bug-history.md)", () => {
  it("KAFKA-18464: the epoch checked before the pending state fences an abort at the bumped epoch", () => {
    for (const [bug, expected] of [
      [false, Errors.CONCURRENT_TRANSACTIONS],
      [true, Errors.PRODUCER_FENCED],
    ] as const) {
      const h = coordinatorHarness("4.2.1", 2, { tv2EndTxnEpochCheckBeforePending: bug });
      h.put("PrepareCommit", M).pendingState = "CompleteCommit";
      expect(h.endTxn(false, M).errorCode).toBe(expected);
    }
  });

  it("KAFKA-18660: at overflow the EndTxn response names the old producer id and epoch 32767", () => {
    const h = coordinatorHarness("4.2.1", 2, { tv2OverflowResponseUsesOldPidEpoch: true });
    h.put("Ongoing", 32766);
    const r = h.endTxn(true, 32766);
    expect(r).toMatchObject({ errorCode: Errors.NONE, producerId: 1000, producerEpoch: 32767 });
    expect(h.metadata()?.producerId).not.toBe(1000);
  });

  it("KAFKA-6119: a TV1 timeout abort keeps the producer epoch", () => {
    for (const [bug, epoch] of [
      [false, M + 1],
      [true, M],
    ] as const) {
      const h = coordinatorHarness("3.x", 1, { tcTimeoutAbortKeepsEpoch: bug });
      h.put("Ongoing", M).txnTimeoutMs = 100;
      h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 2_000 });
      expect(h.metadata()).toMatchObject({ state: "CompleteAbort", producerEpoch: epoch });
    }
  });

  it("KAFKA-20310: a loaded record loses PreviousProducerId and NextProducerId", () => {
    const m = new TransactionMetadata("t", 1, 3, 1000, 0);
    m.prevProducerId = 7;
    m.nextProducerId = 9;
    expect(TransactionMetadata.fromRecord("t", m.toRecord())).toMatchObject({ prevProducerId: 7, nextProducerId: 9 });
    expect(TransactionMetadata.fromRecord("t", m.toRecord(), true)).toMatchObject({
      prevProducerId: -1,
      nextProducerId: -1,
    });
  });
});
