import { describe, expect, it } from "vitest";
import { IdempotentTransactionManager } from "../../src/kafka/client/idempotent-transaction-manager.js";
import { producerBehaviour } from "../../src/kafka/client/producer-behaviour.js";
import { ProducerBatch } from "../../src/kafka/client/record-accumulator.js";
import { Errors, IllegalStateException } from "../../src/kafka/common/errors.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";

const A = "orders-0";
const B = "orders-1";

/** An idempotent producer's manager of 4.2.1 (flags overridden), with its producer id 1000 at epoch 0. */
function manager(overrides: Partial<ReleaseFlags> = {}) {
  const bumps: { epoch: number; partitions: string[] }[] = [];
  const tm = new IdempotentTransactionManager("i0", producerBehaviour(releaseProfile("4.2.1", overrides).flags), {
    fatal: () => {
      throw new Error("no fatal error expected");
    },
    epochBumped: (_pid, epoch, causes) => bumps.push({ epoch, partitions: causes.map((c) => c.partition) }),
  });
  tm.bumpIdempotentEpochAndResetIdIfNeeded();
  const init = tm.nextRequest(false, 0);
  expect(init?.request).toEqual({ api: "InitProducerId", bump: false });
  tm.handleInitProducerIdResponse(Errors.NONE, 1000, 0);
  return { tm, bumps };
}

/** A batch of `records` records for `partition`, drained now (it takes its id, epoch and sequence). */
function drained(tm: IdempotentTransactionManager, partition: string, records = 2): ProducerBatch {
  const b = new ProducerBatch(partition, null, 0);
  for (let i = 0; i < records; i++) b.values.push(`i0:${i}`);
  expect(tm.shouldStopDrain(b)).toBe(false);
  tm.assignSequence(b);
  return b;
}

describe("the idempotent producer's epoch bump (KAFKA-12152)", () => {
  /**
   * A and B are written at epoch 0; A's next batch is refused OUT_OF_ORDER_SEQUENCE_NUMBER (a gap):
   * the client bumps to epoch 1 and A starts again at 0. Returns B's next batch, drained after the bump.
   */
  function bumpedByA(overrides: Partial<ReleaseFlags>) {
    const { tm, bumps } = manager(overrides);
    tm.handleCompletedBatch(drained(tm, A));
    tm.handleCompletedBatch(drained(tm, B));
    const a = drained(tm, A);
    expect(tm.canRetry(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER, a)).toBe(true);
    tm.bumpIdempotentEpochAndResetIdIfNeeded();
    expect(bumps).toEqual([{ epoch: 1, partitions: [A] }]);
    expect([a.producerEpoch, a.baseSequence]).toEqual([1, 0]);
    return drained(tm, B);
  }

  it("fixed (2.8+): an idle partition starts again at sequence 0 under the new epoch", () => {
    const b = bumpedByA({});
    expect([b.producerEpoch, b.baseSequence]).toEqual([1, 0]);
  });

  it("bug on (2.7): the idle partition keeps its sequence under the new epoch, which the leader refuses", () => {
    const b = bumpedByA({ epochBumpKeepsIdlePartitionSequences: true });
    expect([b.producerEpoch, b.baseSequence]).toEqual([1, 2]);
  });
});

describe("the in-flight set across an epoch bump (KAFKA-13794)", () => {
  /**
   * PR #11991's test: batch 1 (epoch 0, sequence 0) is retried and expires while its retry is on the
   * wire; the partition is resolved by a bump, and batch 2 goes at epoch 1, sequence 0; then batch 1's
   * retry times out. Returns the manager and batch 2, which must now be retried.
   */
  function lateFailureOfExpiredBatch(overrides: Partial<ReleaseFlags>) {
    const { tm, bumps } = manager(overrides);
    const first = drained(tm, A, 1);
    first.inRetry = true;
    tm.handleFailedBatch(first, Errors.REQUEST_TIMED_OUT, "expired", true);
    tm.markSequenceUnresolved(first);
    tm.maybeResolveSequences();
    tm.bumpIdempotentEpochAndResetIdIfNeeded();
    expect(bumps.map((b) => b.epoch)).toEqual([1]);
    const second = drained(tm, A, 1);
    expect([second.producerEpoch, second.baseSequence]).toEqual([1, 0]);
    tm.handleFailedBatch(first, Errors.NETWORK_EXCEPTION, "late answer", false);
    tm.bumpIdempotentEpochAndResetIdIfNeeded();
    expect(tm.canRetry(Errors.NETWORK_EXCEPTION, second)).toBe(true);
    return { tm, second };
  }

  it("fixed (3.2+): the late failure removes only its own batch; the other is re-enqueued, tracked", () => {
    const { tm, second } = lateFailureOfExpiredBatch({});
    expect(() => tm.checkReenqueue(second)).not.toThrow();
    expect(tm.hasInflightBatches(A)).toBe(true);
  });

  it("bug on (3.1): keyed by sequence only, the late failure removes the other batch: IllegalStateException", () => {
    const { tm, second } = lateFailureOfExpiredBatch({ inflightSetKeyedBySequenceOnly: true });
    expect(tm.hasInflightBatches(A)).toBe(false);
    expect(() => tm.checkReenqueue(second)).toThrow(IllegalStateException);
  });
});
