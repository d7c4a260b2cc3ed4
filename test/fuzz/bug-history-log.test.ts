import { describe, expect, it } from "vitest";
import { findBug } from "../../src/fuzz/catalogue/bug-history.js";
import { runBug } from "../../src/fuzz/catalogue/bug-history-run.js";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import type { LogBatch } from "../../src/kafka/broker/log-batch.js";
import {
  Errors,
  OutOfOrderSequenceException,
  TransactionCoordinatorFencedException,
} from "../../src/kafka/common/errors.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";

/** The partition-log bugs (Z20-Z26) of the fast subset: found within this budget, clean off. */
const FAST: [string, number][] = [
  ["Z21", 5],
  ["Z23", 5],
  ["Z24", 20],
];

let clock = 0;
const now = () => clock++;

describe("the partition-log bugs, found blind", () => {
  it.each(FAST)("%s: the bug on shows its symptom within %i seeds, the bug off does not", (id, budget) => {
    const bug = findBug(id);
    if (!bug) throw new Error(id);
    const o = runBug(bug, { budgetSeeds: budget, shrinkBudgetMs: 0, now });
    expect(o.firstSeed, o.why ?? "").not.toBeNull();
    expect(o.symptomSeedsOff, o.why ?? "").toBe(0);
    expect(o.found).toBe(true);
  });
});

describe("a crash on the replica path (KAFKA-6003)", () => {
  it("is reported as model-error that names Kafka's replica fetcher, not as a bug of eosfuzz", () => {
    const config = runConfigFor(resolveScenario("producer-expiry"), { followerChecksSequenceWithoutState: true });
    const [crash] = runSeed(config, { seed: 0 }).violations;
    expect(crash?.kind).toBe("model-error");
    expect(crash?.summary).toMatch(/^OutOfOrderSequenceException in the model/);
    expect(crash?.explanation.join("\n")).toMatch(/replica fetcher thread/);
    expect(crash?.explanation.join("\n")).not.toMatch(/a bug of eosfuzz/);
  });
});

describe("KAFKA-9807: Log.lastStableOffset read the high watermark twice", () => {
  function logWithOpenTxnAtHighWatermark(): PartitionLog {
    const profile = releaseProfile("4.2.1");
    const log = new PartitionLog("orders-0", () => profile.flags);
    const guard = log.maybeStartTransactionVerification(1000, 0, 0, true);
    const r = log.appendData({
      producerId: 1000,
      producerEpoch: 0,
      baseSequence: 0,
      isTransactional: true,
      values: ["a"],
      ghostTxn: "t1",
      verificationGuard: guard,
    });
    expect(r.kind).toBe("appended");
    return log;
  }

  it("an HW advance between the reads returns the new HW, past the open transaction", () => {
    const log = logWithOpenTxnAtHighWatermark();
    // First read: the open transaction starts at 0, not below the HW (0): the answer will be "the HW".
    const first = log.unstableBelowHighWatermark();
    expect(first).toBeNull();
    log.onHighWatermarkUpdated(1);
    // Second read: the HW is 1 now, above the open transaction; the fixed read (once) says 0.
    expect(log.lastStableOffsetAfterSecondRead(first)).toBe(1);
    expect(log.lastStableOffset()).toBe(0);
  });

  it("with no HW move in between, the two reads agree with the single read", () => {
    const log = logWithOpenTxnAtHighWatermark();
    log.onHighWatermarkUpdated(1);
    const first = log.unstableBelowHighWatermark();
    expect(first).toBe(0);
    expect(log.lastStableOffsetAfterSecondRead(first)).toBe(log.lastStableOffset());
  });
});

describe("producer-state expiry (ProducerStateManager.removeExpiredProducers)", () => {
  const PID = 1000;
  let nowMs = 0;
  function logWith(overrides: Partial<ReleaseFlags> = {}): PartitionLog {
    const flags = { ...releaseProfile("3.x").flags, ...overrides };
    return new PartitionLog("orders-0", () => flags, { clock: () => nowMs });
  }
  function write(log: PartitionLog, seq: number, isTransactional = true) {
    const guard = isTransactional ? log.maybeStartTransactionVerification(PID, seq, 0, false) : 0;
    return log.appendData({
      producerId: PID,
      producerEpoch: 0,
      baseSequence: seq,
      isTransactional,
      values: ["a"],
      ghostTxn: "t1",
      verificationGuard: guard,
    });
  }
  const commit = (log: PartitionLog) =>
    log.appendMarker({
      producerId: PID,
      producerEpoch: 0,
      result: "COMMIT",
      coordinatorEpoch: 0,
      transactionVersion: 0,
      ghostTxn: "t1",
    });

  it("keeps a producer with an open transaction however idle, forgets it once the marker is old enough", () => {
    nowMs = 0;
    const log = logWith();
    write(log, 0);
    nowMs = 1_000;
    expect(log.removeExpiredProducers(300)).toEqual([]);
    commit(log);
    nowMs = 1_299;
    // KAFKA-9144's fix: the marker at 1,000 refreshed the producer's last timestamp.
    expect(log.removeExpiredProducers(300)).toEqual([]);
    nowMs = 1_300;
    expect(log.removeExpiredProducers(300)).toEqual([PID]);
    expect(log.producers.has(PID)).toBe(false);
  });

  it("KAFKA-9144's bug switch: the idle time counts from the last data batch, not the marker", () => {
    nowMs = 0;
    const log = logWith({ psmExpiryIgnoresMarkerTimestamps: true });
    write(log, 0);
    nowMs = 1_000;
    commit(log);
    expect(log.removeExpiredProducers(300)).toEqual([PID]);
  });

  it("after expiry a leader takes a batch at any sequence; KAFKA-5793's switch answers OUT_OF_ORDER_SEQUENCE_NUMBER", () => {
    nowMs = 0;
    const fixed = logWith();
    const buggy = logWith({ unknownProducerReportedAsOutOfOrder: true });
    for (const log of [fixed, buggy]) write(log, 0, false);
    nowMs = 500;
    for (const log of [fixed, buggy]) expect(log.removeExpiredProducers(300)).toEqual([PID]);
    expect(write(fixed, 1, false).kind).toBe("appended");
    expect(write(buggy, 1, false)).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(write(buggy, 0, false).kind).toBe("appended");
  });

  it("a follower with no state takes a batch at sequence 2; KAFKA-6003's switch throws OutOfOrderSequenceException", () => {
    const batch: LogBatch = {
      baseOffset: 0,
      lastOffset: 0,
      producerId: PID,
      producerEpoch: 0,
      baseSequence: 2,
      isTransactional: true,
      control: null,
      values: ["a"],
      ghostTxn: "t1",
    };
    expect(() => logWith().appendAsFollower(batch)).not.toThrow();
    const buggy = logWith({ followerChecksSequenceWithoutState: true });
    expect(() => buggy.appendAsFollower(batch)).toThrow(OutOfOrderSequenceException);
    expect(buggy.logEndOffset).toBe(0);
    expect(() => buggy.appendAsFollower({ ...batch, baseSequence: 0 })).not.toThrow();
  });

  it("KAFKA-9144: a replayed marker of an older coordinator epoch is taken; the bug switch throws TransactionCoordinatorFencedException", () => {
    const marker = (offset: number, coordinatorEpoch: number): LogBatch => ({
      baseOffset: offset,
      lastOffset: offset,
      producerId: PID,
      producerEpoch: 0,
      baseSequence: -1,
      isTransactional: true,
      control: { type: "ABORT", coordinatorEpoch },
      values: [],
      ghostTxn: "t1",
    });
    const fixed = logWith();
    const buggy = logWith({ replayEnforcesCoordinatorEpoch: true });
    for (const log of [fixed, buggy]) log.appendAsFollower(marker(0, 1));
    expect(() => fixed.appendAsFollower(marker(1, 0))).not.toThrow();
    expect(fixed.producers.get(PID)?.coordinatorEpoch).toBe(0);
    expect(() => buggy.appendAsFollower(marker(1, 0))).toThrow(TransactionCoordinatorFencedException);
  });

  it("KAFKA-9144 end to end at a leader: expiry lets a late marker of the old coordinator in, and a rebuild of the log fails on it", () => {
    const leaderMarker = (coordinatorEpoch: number) => ({
      producerId: PID,
      producerEpoch: 0,
      result: "ABORT" as const,
      coordinatorEpoch,
      transactionVersion: 0,
      ghostTxn: "t1",
    });
    const run = (overrides: Partial<ReleaseFlags>, checkAtMs: number) => {
      nowMs = 0;
      const log = logWith(overrides);
      write(log, 0);
      nowMs = 1_000;
      expect(log.appendMarker(leaderMarker(1)).kind).toBe("appended");
      // With the entry in place the old coordinator's copy is fenced.
      expect(log.appendMarker(leaderMarker(0))).toMatchObject({ errorCode: Errors.TRANSACTION_COORDINATOR_FENCED });
      nowMs = checkAtMs;
      log.removeExpiredProducers(300);
      return log;
    };
    // The bug: the idle time ran from the data batch at 0, so the entry expired right after the marker.
    const buggy = run({ psmExpiryIgnoresMarkerTimestamps: true, replayEnforcesCoordinatorEpoch: true }, 1_299);
    expect(buggy.producers.has(PID)).toBe(false);
    expect(buggy.appendMarker(leaderMarker(0)).kind).toBe("appended");
    // The marker started a new entry (no batches): the next transaction starts at sequence 0.
    expect(write(buggy, 0).kind).toBe("appended");
    expect(() => buggy.truncateTo(buggy.logEndOffset - 1)).toThrow(TransactionCoordinatorFencedException);
    // Fixed: the marker at 1,000 keeps the entry until 1,300, and a replay takes whatever was appended.
    const fixed = run({}, 1_299);
    expect(fixed.producers.has(PID)).toBe(true);
    expect(fixed.appendMarker(leaderMarker(0))).toMatchObject({ errorCode: Errors.TRANSACTION_COORDINATOR_FENCED });
    expect(write(fixed, 1).kind).toBe("appended");
    expect(() => fixed.truncateTo(fixed.logEndOffset - 1)).not.toThrow();
  });
});
