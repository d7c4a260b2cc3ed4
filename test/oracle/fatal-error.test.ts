import { describe, expect, it } from "vitest";
import { Errors } from "../../src/kafka/common/errors.js";
import type { LogBatch } from "../../src/kafka/broker/log-batch.js";
import type { MarkerOutcome, ProducerEpochAssigned, ProducerFatal, TxnDecision } from "../../src/kafka/ghost.js";
import { checkFatalError } from "../../src/oracle/fatal-error.js";

function init(requestedBy: string, producerEpoch: number, atMs: number): ProducerEpochAssigned {
  return { transactionalId: "txn-0", producerId: 1000, producerEpoch, requestedBy, coordinator: "broker-1", atMs };
}

function decision(initiator: "client" | "coordinator", producerEpoch: number, atMs: number): TxnDecision {
  return {
    ghostTxn: "p0.t2",
    transactionalId: "txn-0",
    producerId: 1000,
    producerEpoch,
    result: "ABORT",
    coordinator: "broker-1",
    coordinatorEpoch: 0,
    transactionVersion: 2,
    initiator,
    requestedFor: initiator === "client" ? "p0.t2" : null,
    partitions: ["orders-0"],
    atMs,
  };
}

function fatal(producer: string, producerEpoch: number, atMs: number): ProducerFatal {
  return {
    producer,
    transactionalId: "txn-0",
    api: "EndTxn",
    errorCode: Errors.PRODUCER_FENCED,
    reason: "EndTxn: PRODUCER_FENCED",
    producerId: 1000,
    producerEpoch,
    ghostTxn: "p0.t2",
    atMs,
  };
}

describe("fatal-error: a producer that nothing fenced must not end in FATAL_ERROR", () => {
  it("reports a fatal error with no fence since the producer's InitProducerId, naming the request", () => {
    const v = checkFatalError(
      { epochAssignments: [init("p0", 3, 10)], decisionLog: [decision("client", 4, 50)] },
      fatal("p0", 4, 90),
    );
    expect(v?.kind).toBe("fatal-error");
    expect(v?.summary).toMatch(/p0 got a fatal PRODUCER_FENCED on EndTxn at epoch 4/);
    expect(v?.explanation.join("\n")).toMatch(/nothing fenced it/);
    expect(v?.transaction).toBe("p0.t2");
  });

  it("KAFKA-18401: an INVALID_TXN_STATE EndTxn for a transaction that added no partition says so", () => {
    const e = { ...fatal("p0", 4, 90), errorCode: Errors.INVALID_TXN_STATE, reason: "EndTxn: INVALID_TXN_STATE" };
    const history = { epochAssignments: [init("p0", 3, 10)], decisionLog: [] };
    const empty = checkFatalError(history, { ...e, emptyTransaction: true });
    expect(empty?.summary).toBe(
      "p0 got a fatal INVALID_TXN_STATE on EndTxn at epoch 4 for p0.t2, a transaction without records, though no newer producer or coordinator fenced it",
    );
    expect(empty?.explanation.join("\n")).toMatch(/p0\.t2 added no partition: .*without EndTxn \(KAFKA-18401\)/);
    expect(checkFatalError(history, e)?.summary).toBe(
      "p0 got a fatal INVALID_TXN_STATE on EndTxn at epoch 4 though no newer producer or coordinator fenced it",
    );
  });

  it("an INVALID_TXN_STATE EndTxn after the uncommitted Ongoing record of its transaction was truncated says so (everything's seed 4222)", () => {
    const e = { ...fatal("p0", 4, 90), errorCode: Errors.INVALID_TXN_STATE, reason: "EndTxn: INVALID_TXN_STATE" };
    const record = (producerEpoch: number, txnState: string): LogBatch => ({
      baseOffset: 18,
      lastOffset: 18,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      isTransactional: false,
      control: null,
      values: [],
      ghostTxn: null,
      txnRecord: {
        transactionalId: "txn-0",
        value: { txnState, producerId: 1000, producerEpoch, topicPartitions: ["orders-0"] },
      },
    });
    const truncated = (batch: LogBatch, atMs: number) => ({
      broker: "broker-2",
      partition: "__transaction_state-0",
      toOffset: 18,
      removed: [batch],
      atMs,
    });
    const history = (t: ReturnType<typeof truncated>[]) => ({
      epochAssignments: [init("p0", 3, 10)],
      decisionLog: [],
      truncations: t,
    });
    const lost = checkFatalError(history([truncated(record(4, "Ongoing"), 60)]), e);
    expect(lost?.summary).toBe(
      "p0 got a fatal INVALID_TXN_STATE on EndTxn at epoch 4 though no newer producer or coordinator fenced it: the uncommitted __transaction_state record that added its partitions was truncated",
    );
    expect(lost?.explanation.join("\n")).toMatch(
      /broker-2 truncated the Ongoing record of txn-0 \(producerId 1000, epoch 4, partitions orders-0\) at __transaction_state-0 offset 18/,
    );
    // Not for another epoch's record, another state's, one truncated after the error, or another error.
    const plain =
      "p0 got a fatal INVALID_TXN_STATE on EndTxn at epoch 4 though no newer producer or coordinator fenced it";
    expect(checkFatalError(history([truncated(record(3, "Ongoing"), 60)]), e)?.summary).toBe(plain);
    expect(checkFatalError(history([truncated(record(4, "PrepareCommit"), 60)]), e)?.summary).toBe(plain);
    expect(checkFatalError(history([truncated(record(4, "Ongoing"), 95)]), e)?.summary).toBe(plain);
    expect(checkFatalError(history([truncated(record(4, "Ongoing"), 60)]), fatal("p0", 4, 90))?.summary).not.toMatch(
      /__transaction_state/,
    );
  });

  it("an INVALID_TXN_STATE write after a late copy of an earlier marker cleared its verification says so (everything's seed 182)", () => {
    const e: ProducerFatal = {
      ...fatal("p0", 22, 90),
      api: "TxnOffsetCommit",
      errorCode: Errors.INVALID_TXN_STATE,
      reason: "TxnOffsetCommit: INVALID_TXN_STATE",
      ghostTxn: "p0.t22",
    };
    const copy = (over: Partial<MarkerOutcome>): MarkerOutcome => ({
      markerId: 119,
      resend: 0,
      ghostTxn: "p0.t20",
      transactionalId: "txn-0",
      broker: "broker-0",
      brokerRelease: "4.2.1",
      partition: "__consumer_offsets-0",
      leaderEpoch: 0,
      requestVersion: 2,
      correlationId: 4017,
      transactionVersionSeen: 2,
      producerId: 1000,
      markerEpoch: 21,
      storedEpochBefore: 21,
      openTxnBefore: false,
      coordinatorEpoch: 0,
      storedCoordinatorEpochBefore: 0,
      result: "COMMIT",
      rule: "kafka-19999-equal-epoch",
      errorCode: Errors.NONE,
      markerOffset: 187,
      completed: null,
      closedBatches: [],
      atMs: 80,
      ...over,
    });
    const history = (m: MarkerOutcome) => ({
      epochAssignments: [init("p0", 3, 10)],
      decisionLog: [],
      markerOutcomes: new Map([[m.markerId, [m]]]),
      begun: new Map([["p0.t22", { atMs: 70 }]]),
    });
    const v = checkFatalError(history(copy({})), e);
    expect(v?.summary).toBe(
      "p0 got a fatal INVALID_TXN_STATE on TxnOffsetCommit at epoch 22 though no newer producer or coordinator fenced it: a late copy of p0.t20's marker (epoch 21) written again at __consumer_offsets-0 on broker-0 cleared its verification",
    );
    expect(v?.explanation.join("\n")).toMatch(/UnifiedLog\.updateProducers/);
    // Not for a copy that closed a transaction, was refused, came before the transaction began or
    // after the error, is of the same epoch, of another producer, or at a data partition.
    const plain =
      "p0 got a fatal INVALID_TXN_STATE on TxnOffsetCommit at epoch 22 though no newer producer or coordinator fenced it";
    for (const other of [
      { openTxnBefore: true },
      { errorCode: Errors.INVALID_PRODUCER_EPOCH, markerOffset: null },
      { atMs: 60 },
      { atMs: 95 },
      { markerEpoch: 22 },
      { producerId: 1001 },
      { partition: "orders-0" },
    ])
      expect(checkFatalError(history(copy(other)), e)?.summary).toBe(plain);
  });

  it("stays silent when a newer producer instance ran InitProducerId after it", () => {
    const history = { epochAssignments: [init("p0", 3, 10), init("p0#2", 4, 40)], decisionLog: [] };
    expect(checkFatalError(history, fatal("p0", 3, 90))).toBeNull();
  });

  it("stays silent when the coordinator aborted one of its transactions on its own (timeout or fence)", () => {
    const history = { epochAssignments: [init("p0", 3, 10)], decisionLog: [decision("coordinator", 4, 40)] };
    expect(checkFatalError(history, fatal("p0", 3, 90))).toBeNull();
  });

  it("stays silent when a delayed copy of the producer's own InitProducerId moved the epoch", () => {
    const history = { epochAssignments: [init("p0", 1, 10), init("p0", 3, 40)], decisionLog: [] };
    expect(checkFatalError(history, fatal("p0", 2, 90))).toBeNull();
  });

  it("reports an abortTransaction that failed for an unfenced producer: it could not end its transaction and was closed", () => {
    const last = { ...decision("client", 32767, 50), result: "COMMIT" as const, ghostTxn: "p0.t1" };
    const e: ProducerFatal = {
      ...fatal("p0", 32767, 90),
      errorCode: Errors.INVALID_PRODUCER_ID_MAPPING,
      reason: "EndTxn: INVALID_PRODUCER_ID_MAPPING",
      failedCall: "abortTransaction",
    };
    const v = checkFatalError({ epochAssignments: [init("p0", 32760, 10)], decisionLog: [last] }, e);
    expect(v?.kind).toBe("fatal-error");
    expect(v?.summary).toMatch(/p0 could not abort p0.t2: its EndTxn got INVALID_PRODUCER_ID_MAPPING/);
    const text = v?.explanation.join("\n") ?? "";
    expect(text).toMatch(/epoch 32767, the last one of producerId 1000/);
    expect(text).toMatch(/abortTransaction throws the error/);
    // Fenced: the same failed abort is deserved.
    const fenced = { epochAssignments: [init("p0", 32760, 10), init("p0#2", 32761, 60)], decisionLog: [last] };
    expect(checkFatalError(fenced, e)).toBeNull();
    // A 4.0+ client takes the same answer as fatal at once (KAFKA-18019): the same why.
    const { failedCall: _, ...atOnce } = e;
    const fatalNow = checkFatalError({ epochAssignments: [init("p0", 32760, 10)], decisionLog: [last] }, atOnce);
    expect(fatalNow?.summary).toMatch(/p0 got a fatal INVALID_PRODUCER_ID_MAPPING on EndTxn at epoch 32767/);
    expect(fatalNow?.explanation.join("\n")).toMatch(/epoch 32767, the last one of producerId 1000/);
  });

  it("under KAFKA-20785's contract, a producer fenced by a coordinator abort must get PRODUCER_FENCED, not INVALID_TXN_STATE", () => {
    const e: ProducerFatal = {
      ...fatal("p0", 3, 90),
      errorCode: Errors.INVALID_TXN_STATE,
      reason: "EndTxn: INVALID_TXN_STATE",
    };
    const history = { epochAssignments: [init("p0", 3, 10)], decisionLog: [decision("coordinator", 4, 40)] };
    // Without the contract (every modelled release), a fenced producer's fatal error is deserved, whatever its class.
    expect(checkFatalError(history, e)).toBeNull();
    const v = checkFatalError({ ...history, fencedCommitContract: true }, e);
    expect(v?.kind).toBe("fatal-error");
    expect(v?.summary).toMatch(
      /INVALID_TXN_STATE on EndTxn at epoch 3 after broker-1 aborted its transaction on its own/,
    );
    expect(v?.explanation.join("\n")).toMatch(/a fenced producer gets PRODUCER_FENCED/);
    // PRODUCER_FENCED is the right class.
    expect(checkFatalError({ ...history, fencedCommitContract: true }, fatal("p0", 3, 90))).toBeNull();
  });

  it("judges from the producer's latest InitProducerId: a fence before it does not excuse a later fatal error", () => {
    const history = {
      epochAssignments: [init("p0", 1, 10), init("p0#2", 2, 20), init("p0", 3, 30)],
      decisionLog: [decision("coordinator", 2, 25)],
    };
    expect(checkFatalError(history, fatal("p0", 3, 90))?.kind).toBe("fatal-error");
  });
});
