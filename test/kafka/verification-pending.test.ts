import { describe, expect, it } from "vitest";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { AddPartitionsToTxnRequest } from "../../src/kafka/protocol.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";
import { coordinatorHarness } from "./coordinator-harness.js";

const PID = 1000;

/** KAFKA-14904's ground: a verify-only AddPartitionsToTxn while another partition's add is being written. */
function verifyDuringPendingAdd(overrides: Partial<ReleaseFlags>) {
  const h = coordinatorHarness("3.x", 0, overrides);
  h.put("Ongoing", 0, ["orders-0"]);
  const request = (partitions: string[], verifyOnly: boolean): AddPartitionsToTxnRequest => ({
    api: "AddPartitionsToTxn",
    version: verifyOnly ? 4 : 3,
    transactionalId: "txn",
    producerId: 1000,
    producerEpoch: 0,
    partitions,
    verifyOnly,
    ghostTxn: "g",
  });
  let added: number | null = null;
  h.tc.handleAddPartitionsToTxn(request(["orders-1"], false), (_e, results) => {
    added = results[0]?.errorCode ?? -1;
  });
  expect(h.metadata()?.pendingState).not.toBeNull();
  let verified: number | null = null;
  h.tc.handleAddPartitionsToTxn(request(["orders-0"], true), (_e, results) => {
    verified = results[0]?.errorCode ?? -1;
  });
  h.settle();
  expect(added).toBe(Errors.NONE);
  return verified;
}

describe("KAFKA-14904: verification while the coordinator writes another partition's add", () => {
  it("the fixed coordinator verifies an added partition whatever transition is pending", () => {
    expect(verifyDuringPendingAdd({})).toBe(Errors.NONE);
  });

  it("the bug switch answers CONCURRENT_TRANSACTIONS while the other add is pending", () => {
    expect(verifyDuringPendingAdd({ verifyRejectsDuringPendingState: true })).toBe(Errors.CONCURRENT_TRANSACTIONS);
  });
});

describe("KAFKA-14920: the verification entry's sequence floor", () => {
  /** A new producer's first batch failed its verification; the next one, verified, reaches the append first. */
  function laterBatchFirst(overrides: Partial<ReleaseFlags>) {
    const profile = releaseProfile("3.x", overrides);
    const log = new PartitionLog("orders-0", () => profile.flags);
    const batch = (baseSequence: number, verificationGuard: number) =>
      log.appendData({
        producerId: PID,
        producerEpoch: 0,
        baseSequence,
        isTransactional: true,
        values: [`v${baseSequence}`],
        ghostTxn: "t1",
        verificationGuard,
      });
    const guard = log.maybeStartTransactionVerification(PID, 0, 0, false);
    expect(log.maybeStartTransactionVerification(PID, 1, 0, false)).toBe(guard);
    const later = batch(1, guard);
    return { log, later, retryFirst: () => batch(0, log.maybeStartTransactionVerification(PID, 0, 0, false)) };
  }

  it("the fixed leader refuses the later batch (retriable) and takes the first when it comes back", () => {
    const { later, retryFirst } = laterBatchFirst({});
    expect(later).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(retryFirst().kind).toBe("appended");
  });

  it("the bug switch takes the later batch, and the first is then refused on every retry", () => {
    const { later, retryFirst } = laterBatchFirst({ verificationNoSequenceFloor: true });
    expect(later.kind).toBe("appended");
    expect(retryFirst()).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
    expect(retryFirst()).toMatchObject({ kind: "error", errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER });
  });
});
