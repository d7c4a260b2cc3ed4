import { describe, expect, it } from "vitest";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import type { MarkerInput } from "../../src/kafka/broker/log-append.js";
import { filterReadCommitted } from "../../src/kafka/client/read-committed-consumer.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { type ReleaseName, releaseProfile } from "../../src/kafka/release.js";

const PID = 1000;

function logOn(release: ReleaseName): PartitionLog {
  const profile = releaseProfile(release);
  return new PartitionLog("orders-0", () => profile.flags);
}

/** Open a transaction of PID at `epoch` (verification is simulated by presenting the guard). */
function write(log: PartitionLog, epoch: number, seq: number, value = `v${seq}`, ghost = "t1") {
  const guard = log.maybeStartTransactionVerification(PID, seq, epoch, true);
  return log.appendData({
    producerId: PID,
    producerEpoch: epoch,
    baseSequence: seq,
    isTransactional: true,
    values: [value],
    ghostTxn: ghost,
    verificationGuard: guard,
  });
}

const marker = (
  epoch: number,
  tv: number,
  result: "COMMIT" | "ABORT" = "COMMIT",
  coordinatorEpoch = 7,
): MarkerInput => ({
  producerId: PID,
  producerEpoch: epoch,
  result,
  coordinatorEpoch,
  transactionVersion: tv,
  ghostTxn: "t1",
});

describe("PartitionLog marker checks (ProducerAppendInfo order)", () => {
  it("4.1 (legacy) accepts a TV2 marker whose epoch equals the producer epoch while a txn is open", () => {
    const log = logOn("4.1");
    write(log, 4, 0);
    const r = log.appendMarker(marker(4, 0));
    expect(r.kind).toBe("appended");
    if (r.kind === "appended") expect(r.completed).toMatchObject({ firstOffset: 0, lastOffset: 1, isAborted: false });
  });

  it("4.2.1 (strict TV2) rejects an equal-epoch TV2 marker while a txn is open", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    const r = log.appendMarker(marker(4, 2));
    expect(r).toMatchObject({ kind: "error", errorCode: Errors.INVALID_PRODUCER_EPOCH, rule: "strict-tv2" });
    expect(log.logEndOffset).toBe(1);
  });

  // KAFKA-19999 as merged (PR #21176, in 4.2.0): ProducerAppendInfo.checkProducerEpoch returns for an
  // equal-epoch TV2 marker with no transaction open, and the copy is appended like any marker
  // (checked against Kafka 4.2.x's UnifiedLog by eosfuzz conform).
  it("4.2.0 and later append an equal-epoch TV2 marker with no txn open (KAFKA-19999): it closes nothing", () => {
    for (const release of ["4.2.0", "4.2.1", "4.3"] as const) {
      const log = logOn(release);
      write(log, 3, 0);
      expect(log.appendMarker(marker(4, 2)).kind).toBe("appended");
      const endBefore = log.logEndOffset;
      const dup = log.appendMarker(marker(4, 2));
      expect(dup).toMatchObject({ kind: "appended", rule: "kafka-19999-equal-epoch", openTxnBefore: false });
      if (dup.kind === "appended") expect(dup.completed).toBeNull();
      expect(log.logEndOffset).toBe(endBefore + 1);
    }
  });

  it("the KAFKA-19999 copy still meets the coordinator-epoch check (checkCoordinatorEpoch runs after the tolerance)", () => {
    const log = logOn("4.2.1");
    write(log, 3, 0);
    log.appendMarker(marker(4, 2, "COMMIT", 8));
    expect(log.appendMarker(marker(4, 2, "COMMIT", 7))).toMatchObject({
      kind: "error",
      errorCode: Errors.TRANSACTION_COORDINATOR_FENCED,
    });
  });

  it("the appended copy clears a verification entry of another epoch (UnifiedLog.updateProducers)", () => {
    const log = logOn("4.2.1");
    write(log, 3, 0);
    log.appendMarker(marker(4, 2));
    log.maybeStartTransactionVerification(PID, 0, 5, true);
    expect(log.appendMarker(marker(4, 2)).kind).toBe("appended");
    expect(log.verificationStates.get(PID)).toBeUndefined();
  });

  it("without the tolerance (Z15's bug switch) the strict rule rejects even that harmless duplicate", () => {
    const profile = releaseProfile("4.2.0", { equalEpochNoOpenTxnTolerance: false });
    const log = new PartitionLog("orders-0", () => profile.flags);
    write(log, 3, 0);
    log.appendMarker(marker(4, 2));
    expect(log.appendMarker(marker(4, 2))).toMatchObject({ kind: "error", errorCode: Errors.INVALID_PRODUCER_EPOCH });
  });

  it("4.3 also tolerates an equal epoch at Short.MAX_VALUE while a transaction is open (KAFKA-20090)", () => {
    const at43 = logOn("4.3");
    write(at43, 32767, 0);
    expect(at43.appendMarker(marker(32767, 2))).toMatchObject({ kind: "appended", rule: "kafka-19999-equal-epoch" });
    const at421 = logOn("4.2.1");
    write(at421, 32767, 0);
    expect(at421.appendMarker(marker(32767, 2))).toMatchObject({
      kind: "error",
      errorCode: Errors.INVALID_PRODUCER_EPOCH,
    });
  });

  it("4.2.1 judges a v1 marker (TransactionVersion 0) by the legacy rule", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    expect(log.appendMarker(marker(4, 0))).toMatchObject({ kind: "appended", rule: "legacy" });
  });

  it("every release rejects a marker below the producer epoch", () => {
    for (const release of ["3.x", "4.0", "4.1.0", "4.1", "4.2.0", "4.2.1", "4.3", "4.4"] as const) {
      const log = logOn(release);
      write(log, 5, 0);
      expect(log.appendMarker(marker(4, 0)).kind).toBe("error");
    }
  });

  it("checks the producer epoch before the coordinator epoch, then fences old coordinators", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    log.appendMarker(marker(5, 2, "COMMIT", 8));
    // Both checks fail: the producer-epoch check comes first.
    expect(log.appendMarker(marker(4, 2, "COMMIT", 7))).toMatchObject({ errorCode: Errors.INVALID_PRODUCER_EPOCH });
    write(log, 5, 0, "x", "t2");
    expect(log.appendMarker(marker(6, 2, "COMMIT", 7))).toMatchObject({
      kind: "error",
      errorCode: Errors.TRANSACTION_COORDINATOR_FENCED,
    });
    expect(log.appendMarker(marker(6, 2, "COMMIT", 8)).kind).toBe("appended");
  });
});

describe("a marker with transaction version unknown (TV_UNKNOWN)", () => {
  it("testLeaderRejectsTVUnknownForTransactionMarker: a KIP-1228 leader refuses it from a coordinator; a follower appends it by the legacy rule", () => {
    const leader = logOn("4.2.1");
    write(leader, 5, 0);
    const refused = leader.appendMarker(marker(6, -1));
    expect(refused).toMatchObject({ kind: "error", errorCode: Errors.UNKNOWN_SERVER_ERROR, rule: "tv-unknown" });
    expect(leader.logEndOffset).toBe(1);
    // The follower copies the leader's batches with no transaction version (UnifiedLog.appendAsFollower).
    const applied = leader.appendMarker(marker(6, 2));
    expect(applied.kind).toBe("appended");
    const follower = logOn("4.2.1");
    for (const batch of leader.batches) follower.appendAsFollower(batch);
    expect(follower.producers.get(PID)).toMatchObject({
      producerEpoch: 6,
      coordinatorEpoch: 7,
      currentTxnFirstOffset: null,
    });
    expect(follower.logEndOffset).toBe(2);
  });

  it("a leader before KIP-1228 never reads the field and judges by the legacy rule", () => {
    const log = logOn("4.1");
    write(log, 5, 0);
    expect(log.appendMarker(marker(6, -1))).toMatchObject({ kind: "appended", rule: "legacy" });
  });
});

describe("PartitionLog data checks", () => {
  it("returns the original offsets for a duplicate batch instead of appending it", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    expect(write(log, 4, 0)).toEqual({ kind: "duplicate", firstOffset: 0, lastOffset: 0 });
    expect(log.logEndOffset).toBe(1);
  });

  it("rejects a batch from an older epoch and an out-of-order sequence", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    expect(write(log, 3, 0)).toMatchObject({ kind: "error", errorCode: Errors.INVALID_PRODUCER_EPOCH });
    expect(write(log, 4, 5)).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });

  it("after a marker bumped the epoch, the next batch must start at sequence 0", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    log.appendMarker(marker(5, 2));
    expect(write(log, 5, 1)).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(write(log, 5, 0).kind).toBe("appended");
  });

  it("UnifiedLog.maybeStartTransactionVerification refuses an epoch below the producer's before verifying (KAFKA-18042: 4.1 and later)", () => {
    for (const [release, refused] of [
      ["4.0", false],
      ["4.1", true],
      ["4.2.1", true],
    ] as const) {
      const log = logOn(release);
      write(log, 4, 0);
      log.appendMarker(marker(5, 2));
      expect(log.staleEpochBeforeVerification(PID, 4) !== null).toBe(refused);
      expect(log.staleEpochBeforeVerification(PID, 5)).toBeNull();
    }
  });

  it("UnifiedLog.updateProducers keeps the next transaction's verification guard through a marker at its epoch, whatever the marker's transaction version", () => {
    for (const tv of [0, 2]) {
      const log = logOn("4.2.1");
      write(log, 4, 0);
      const guard = log.maybeStartTransactionVerification(PID, 0, 5, true);
      expect(log.appendMarker(marker(5, tv)).kind).toBe("appended");
      expect(log.verificationStates.get(PID)?.guard).toBe(guard);
      const r = log.appendData({
        producerId: PID,
        producerEpoch: 5,
        baseSequence: 0,
        isTransactional: true,
        values: ["next"],
        ghostTxn: "t2",
        verificationGuard: guard,
      });
      expect(r.kind).toBe("appended");
    }
  });

  it("ProducerAppendInfo.checkSequence refuses a batch above the lowest sequence its verification saw (KIP-890 part 1)", () => {
    const log = logOn("3.x");
    const batch = (baseSequence: number, values: string[], verificationGuard: number) =>
      log.appendData({
        producerId: PID,
        producerEpoch: 4,
        baseSequence,
        isTransactional: true,
        values,
        ghostTxn: "t1",
        verificationGuard,
      });
    // Two batches of a new producer's transaction start verification; the later one is verified first.
    const guard = log.maybeStartTransactionVerification(PID, 3, 4, false);
    expect(log.maybeStartTransactionVerification(PID, 0, 4, false)).toBe(guard);
    expect(batch(3, ["d"], guard)).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(batch(0, ["a", "b", "c"], guard).kind).toBe("appended");
    expect(batch(3, ["d"], 0).kind).toBe("appended");
  });

  it("without verification a transactional batch needs the coordinator's guard", () => {
    const log = logOn("4.2.1");
    const r = log.appendData({
      producerId: PID,
      producerEpoch: 1,
      baseSequence: 0,
      isTransactional: true,
      values: ["x"],
      ghostTxn: "t",
      verificationGuard: 0,
    });
    expect(r).toMatchObject({ kind: "error", errorCode: Errors.INVALID_TXN_STATE });
  });
});

describe("last stable offset, aborted index and read_committed", () => {
  it("holds the LSO at an open transaction and releases it once the marker is replicated", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0);
    write(log, 4, 1);
    log.onHighWatermarkUpdated(2);
    expect(log.lastStableOffset()).toBe(0);
    log.appendMarker(marker(5, 2, "ABORT"));
    expect(log.lastStableOffset()).toBe(0);
    log.onHighWatermarkUpdated(3);
    expect(log.lastStableOffset()).toBe(3);
    expect(log.abortedTxns).toEqual([{ producerId: PID, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }]);
  });

  it("a read_committed consumer drops aborted records and keeps committed ones", () => {
    const log = logOn("4.2.1");
    write(log, 4, 0, "aborted-1");
    log.appendMarker(marker(5, 2, "ABORT"));
    write(log, 5, 0, "committed-1", "t2");
    log.appendMarker(marker(6, 2, "COMMIT"));
    log.onHighWatermarkUpdated(log.logEndOffset);
    const read = log.read(0, "READ_COMMITTED", 100);
    expect(filterReadCommitted("orders-0", read.batches, read.abortedTransactions).map((r) => r.value)).toEqual([
      "committed-1",
    ]);
    expect(
      filterReadCommitted("orders-0", read.batches, read.abortedTransactions, { filterAborted: false }).map(
        (r) => r.value,
      ),
    ).toEqual(["aborted-1", "committed-1"]);
  });
});
