import { describe, expect, it } from "vitest";
import { maybeIncrementLogStartOffset } from "../../src/kafka/broker/log-start-offset.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";

/**
 * The log start offset (UnifiedLog.maybeIncrementLogStartOffset, DeleteRecords) and the producer
 * state: fixed (KIP-360, onLogStartOffsetIncremented) the producers stay; under KAFKA-7190's switch
 * (truncateHead) a producer with no data batch at or above the new log start is evicted, with its
 * open transaction, so a zombie's old epoch is no longer refused. Both on a 2.x leader (no KIP-890
 * verification), as the bug's era.
 */
const PID = 1000;

function logOn(overrides: Partial<ReleaseFlags>): PartitionLog {
  const flags = releaseProfile("3.x", { transactionPartitionVerification: false, ...overrides }).flags;
  return new PartitionLog("orders-0", () => flags);
}

function append(log: PartitionLog, epoch: number, seq: number, ghost: string) {
  return log.appendData({
    producerId: PID,
    producerEpoch: epoch,
    baseSequence: seq,
    isTransactional: true,
    values: [`${ghost}/0`],
    ghostTxn: ghost,
    verificationGuard: 0,
  });
}

/** t1 at epoch 0 wrote one record; the coordinator aborted it on its own (a timeout: epoch 1); all below the high watermark. */
function abortedByCoordinator(log: PartitionLog): void {
  expect(append(log, 0, 0, "t1").kind).toBe("appended");
  const marker = { producerId: PID, producerEpoch: 1, result: "ABORT" as const, coordinatorEpoch: 0 };
  expect(log.appendMarker({ ...marker, transactionVersion: 0, ghostTxn: "t1" }).kind).toBe("appended");
  log.onHighWatermarkUpdated(log.logEndOffset);
}

describe("the log start offset and the producer state (KAFKA-7190)", () => {
  it("fixed: the producer stays, and the zombie's next batch at its old epoch is refused", () => {
    const log = logOn({});
    abortedByCoordinator(log);
    expect(maybeIncrementLogStartOffset(log, log.highWatermark)).toEqual([]);
    expect(log.logStartOffset).toBe(2);
    expect(log.producers.get(PID)?.producerEpoch).toBe(1);
    const late = append(log, 0, 1, "t1");
    expect(late).toMatchObject({ kind: "error", errorCode: Errors.INVALID_PRODUCER_EPOCH });
  });

  it("the bug: the producer is evicted with its records, and the zombie opens a transaction nobody ends", () => {
    const log = logOn({ psmDropsStateWithLogSegments: true });
    abortedByCoordinator(log);
    expect(maybeIncrementLogStartOffset(log, log.highWatermark)).toEqual([PID]);
    expect(log.producers.has(PID)).toBe(false);
    expect(append(log, 0, 1, "t1").kind).toBe("appended");
    expect(log.openTransactionCount()).toBe(1);
    log.onHighWatermarkUpdated(log.logEndOffset);
    expect(log.lastStableOffset()).toBe(2);
  });

  it("a producer with a batch at or above the new log start stays, bug or not; nothing moves past the high watermark", () => {
    const log = logOn({ psmDropsStateWithLogSegments: true });
    expect(append(log, 0, 0, "t1").kind).toBe("appended");
    expect(append(log, 0, 1, "t1").kind).toBe("appended");
    expect(maybeIncrementLogStartOffset(log, 1)).toBeNull();
    log.onHighWatermarkUpdated(2);
    expect(maybeIncrementLogStartOffset(log, 1)).toEqual([]);
    expect(log.producers.get(PID)?.batchMetadata.map((b) => b.firstOffset)).toEqual([1]);
    expect(maybeIncrementLogStartOffset(log, 1)).toBeNull();
  });
});
