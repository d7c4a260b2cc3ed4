import { describe, expect, it } from "vitest";
import type { LogBatch } from "../../src/kafka/broker/log-batch.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { ProduceRefused } from "../../src/kafka/ghost.js";
import { GhostLedger } from "../../src/oracle/ghost-ledger.js";

function batch(baseSequence: number, baseOffset: number, over: Partial<LogBatch> = {}): LogBatch {
  return {
    baseOffset,
    lastOffset: baseOffset,
    producerId: 1000,
    producerEpoch: 0,
    baseSequence,
    isTransactional: true,
    control: null,
    values: [`p0.t1/${baseSequence}`],
    ghostTxn: "p0.t1",
    ...over,
  } as LogBatch;
}

function refused(baseSequence: number, over: Partial<ProduceRefused> = {}): ProduceRefused {
  return {
    broker: "broker-1",
    partition: "orders-1",
    producerId: 1000,
    producerEpoch: 0,
    baseSequence,
    ghostTxn: "p0.t1",
    errorCode: Errors.OUT_OF_ORDER_SEQUENCE_NUMBER,
    reason: "expected sequence 2, got 0",
    atMs: 50,
    ...over,
  };
}

/** A ledger where broker-1 wrote p0.t1's batch at sequence 1 of orders-1 (offset 4). */
function ledgerWithLaterBatch(): GhostLedger {
  const ledger = new GhostLedger();
  ledger.txnBegun({ ghostTxn: "p0.t1", producer: "p0", transactionalId: "txn-0", atMs: 0 });
  ledger.batchAppended({ broker: "broker-1", partition: "orders-1", batch: batch(1, 4), atMs: 40 });
  return ledger;
}

describe("stuck-sequence: a batch refused behind a later sequence of its own transaction", () => {
  it("reports a refused batch whose transaction already has a higher sequence in that log, once", () => {
    const ledger = ledgerWithLaterBatch();
    ledger.produceRefused(refused(0));
    ledger.produceRefused(refused(0, { atMs: 80 }));
    expect(ledger.violations).toHaveLength(1);
    const v = ledger.violations[0];
    expect(v?.kind).toBe("fatal-error");
    expect(v?.summary).toMatch(/p0\.t1's batch at sequence 0 is stuck behind a later sequence at orders-1 on broker-1/);
    expect(v?.explanation.join("\n")).toMatch(/retries it .* until delivery\.timeout\.ms/);
  });

  it("says when the leader took the later batch with a verification that held no lower sequence (a new leader: everything's seed 2853)", () => {
    const at = (verifiedFromSequence: number | undefined) => {
      const ledger = new GhostLedger();
      ledger.txnBegun({ ghostTxn: "p0.t1", producer: "p0", transactionalId: "txn-0", atMs: 0 });
      ledger.batchAppended({
        broker: "broker-1",
        partition: "orders-1",
        batch: batch(1, 4),
        ...(verifiedFromSequence !== undefined ? { verifiedFromSequence } : {}),
        atMs: 40,
      });
      ledger.produceRefused(refused(0));
      return ledger.violations[0]?.summary ?? "";
    };
    expect(at(1)).toMatch(/sequence 1 was written first, .*; broker-1's verification held no lower sequence$/);
    // Not when its verification held sequence 0 (KAFKA-14920's bug: the floor was there, unheeded),
    // nor when the batch went in without a verification entry.
    expect(at(0)).not.toMatch(/verification/);
    expect(at(undefined)).not.toMatch(/verification/);
  });

  it("is silent on an ordinary out-of-order refusal: a later batch ahead of an earlier one not yet written", () => {
    const ledger = ledgerWithLaterBatch();
    ledger.produceRefused(refused(3, { reason: "expected sequence 2, got 3" }));
    expect(ledger.violations).toHaveLength(0);
  });

  it("is silent when the log already holds the refused batch itself (a duplicate the producer state forgot)", () => {
    // Everything's seed 2957: broker-1 wrote sequences 0 and 1, restarted (its snapshot keeps only
    // sequence 1), and refused the retry of sequence 0, which its log holds at offset 3.
    const ledger = ledgerWithLaterBatch();
    ledger.produceRefused(refused(0, { heldAtOffset: 3 }));
    expect(ledger.violations).toHaveLength(0);
    ledger.produceRefused(refused(0));
    expect(ledger.violations).toHaveLength(1);
  });

  it("is silent for another epoch, another log, another error, or a later batch truncated away", () => {
    const ledger = ledgerWithLaterBatch();
    ledger.produceRefused(refused(0, { producerEpoch: 1 }));
    ledger.produceRefused(refused(0, { broker: "broker-2" }));
    ledger.produceRefused(refused(0, { partition: "orders-2" }));
    ledger.produceRefused(refused(0, { errorCode: Errors.INVALID_PRODUCER_EPOCH }));
    ledger.produceRefused(refused(0, { ghostTxn: "p0.t2" }));
    expect(ledger.violations).toHaveLength(0);
    ledger.replicaTruncated({
      broker: "broker-1",
      partition: "orders-1",
      toOffset: 4,
      removed: [batch(1, 4)],
      atMs: 45,
    });
    ledger.produceRefused(refused(0));
    expect(ledger.violations).toHaveLength(0);
  });
});
