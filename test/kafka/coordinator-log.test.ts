import { describe, expect, it } from "vitest";
import { Errors } from "../../src/kafka/common/errors.js";
import { coordinatorHarness } from "./coordinator-harness.js";

const M = 5;
const EXPIRATION = { transactionalIdExpirationMs: 300, removeExpiredTransactionalIdsIntervalMs: 100 };

/** A harness whose __transaction_state appends fail with `error` while `failing()` holds. */
function failingLog(
  failing: () => boolean,
  overrides = {},
  config = {},
  release: "3.x" | "4.2.1" = "3.x",
  error: number = Errors.NOT_ENOUGH_REPLICAS,
) {
  return coordinatorHarness(release, release === "3.x" ? 0 : 2, overrides, {
    config,
    appendError: () => (failing() ? error : Errors.NONE),
  });
}

describe("__transaction_state append failures (TransactionStateManager.appendTransactionToLog)", () => {
  it("NOT_ENOUGH_REPLICAS is answered as COORDINATOR_NOT_AVAILABLE and the transition is dropped", () => {
    let down = true;
    const h = failingLog(() => down);
    h.put("Empty", M);
    expect(h.initProducerId(1000, M).errorCode).toBe(Errors.COORDINATOR_NOT_AVAILABLE);
    expect(h.metadata()).toMatchObject({ state: "Empty", producerEpoch: M, pendingState: null });
    down = false;
    expect(h.initProducerId(1000, M)).toMatchObject({ errorCode: Errors.NONE, producerEpoch: M + 1 });
  });

  it("KAFKA_STORAGE_ERROR is answered as NOT_COORDINATOR", () => {
    const h = failingLog(() => true, {}, {}, "3.x", Errors.KAFKA_STORAGE_ERROR);
    h.put("Empty", M);
    expect(h.initProducerId(1000, M).errorCode).toBe(Errors.NOT_COORDINATOR);
  });

  it("TransactionMetadata.prepareFenceProducerEpoch: a failed fence keeps its one bump for every retry (hasFailedEpochFence, KAFKA-9666)", () => {
    let down = true;
    const h = failingLog(() => down);
    h.put("Ongoing", M).clientTransactionVersion = 0;
    for (let i = 0; i < 5; i++) expect(h.initProducerId().errorCode).toBe(Errors.COORDINATOR_NOT_AVAILABLE);
    expect(h.metadata()).toMatchObject({ state: "Ongoing", producerEpoch: M + 1, hasFailedEpochFence: true });
    down = false;
    expect(h.initProducerId().errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
    expect(h.metadata()).toMatchObject({ state: "CompleteAbort", producerEpoch: M + 1 });
  });

  it("KAFKA-9666's bug switch: every failed fence bumps again, and at 32767 the fence throws", () => {
    const h = failingLog(() => true, { tcFenceBumpsEpochOnEveryFailedWrite: true });
    h.put("Ongoing", M).clientTransactionVersion = 0;
    for (let i = 0; i < 5; i++) h.initProducerId();
    expect(h.metadata()?.producerEpoch).toBe(M + 5);
    const near = failingLog(() => true, { tcFenceBumpsEpochOnEveryFailedWrite: true });
    near.put("Ongoing", 32766).clientTransactionVersion = 0;
    near.initProducerId();
    expect(near.metadata()?.producerEpoch).toBe(32767);
    // Before KAFKA-20090 Kafka's fence at Short.MAX_VALUE throws (IllegalStateException out of the handler).
    expect(() => near.initProducerId()).toThrow(/cannot fence producer with epoch equal to Short.MaxValue/);
  });
});

describe("transactional.id expiration (TransactionStateManager.removeExpiredTransactionalIds)", () => {
  it("an id idle in Empty/CompleteCommit/CompleteAbort for transactional.id.expiration.ms is removed with a tombstone", () => {
    for (const state of ["Empty", "CompleteCommit", "CompleteAbort"] as const) {
      const h = coordinatorHarness("3.x", 0, {}, { config: EXPIRATION });
      h.put(state, M);
      h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 200 });
      expect(h.metadata(), `${state}: not yet idle for 300 ms`).not.toBeNull();
      h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 300 });
      expect(h.metadata(), state).toBeNull();
      const last = h.log.batches[h.log.batches.length - 1];
      expect(last?.txnRecord).toMatchObject({ transactionalId: "txn", value: { txnState: "Dead" } });
    }
  });

  it("an Ongoing or PrepareX id never expires, however long it is idle", () => {
    for (const state of ["Ongoing", "PrepareCommit"] as const) {
      const h = coordinatorHarness("3.x", 0, {}, { config: EXPIRATION });
      h.put(state, M).txnTimeoutMs = 60_000;
      h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 2_000 });
      expect(h.metadata()?.state).toBe(state);
    }
  });

  it("after expiration AddPartitionsToTxn gets INVALID_PRODUCER_ID_MAPPING and InitProducerId gives a new producer id at epoch 0", () => {
    const h = coordinatorHarness("3.x", 0, {}, { config: EXPIRATION });
    h.put("CompleteCommit", M);
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 1_000 });
    expect(h.addPartitions(M, ["orders-1"]).results[0]?.errorCode).toBe(Errors.INVALID_PRODUCER_ID_MAPPING);
    const r = h.initProducerId(1000, M);
    expect(r).toMatchObject({ errorCode: Errors.NONE, producerEpoch: 0 });
    expect(r.producerId).not.toBe(1000);
  });

  it("a coordinator that loads the partition replays the tombstone as a removal (loadTransactionMetadata)", () => {
    const h = coordinatorHarness("3.x", 0, {}, { config: EXPIRATION });
    h.put("Empty", M);
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 1_000 });
    h.tc.onElection(0, 2);
    h.settle();
    expect(h.tc.state.isServing(0, 2)).toBe(true);
    expect(h.metadata()).toBeNull();
  });

  it("a tombstone that cannot be written clears the pending Dead state (KAFKA-7519), and the id expires once the log is back", () => {
    let down = true;
    const h = failingLog(() => down, {}, EXPIRATION);
    h.put("Empty", M);
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 1_000 });
    expect(h.metadata()).toMatchObject({ state: "Empty", pendingState: null });
    expect(h.initProducerId(1000, M).errorCode).toBe(Errors.COORDINATOR_NOT_AVAILABLE);
    down = false;
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 1_000 });
    expect(h.metadata()).toBeNull();
  });

  it("KAFKA-7519's bug switch: the failed tombstone leaves pending Dead, and every InitProducerId gets CONCURRENT_TRANSACTIONS", () => {
    let down = true;
    const h = failingLog(() => down, { tcExpireWriteFailureLeavesPending: true }, EXPIRATION);
    h.put("Empty", M);
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 1_000 });
    down = false;
    h.sim.run({ maxEvents: 10_000, maxTimeMs: h.sim.nowMs + 1_000 });
    expect(h.metadata()).toMatchObject({ state: "Empty", pendingState: "Dead" });
    expect(h.initProducerId(1000, M).errorCode).toBe(Errors.CONCURRENT_TRANSACTIONS);
  });
});
