import { describe, expect, it } from "vitest";
import type { IdempotentEpochBump } from "../../src/kafka/ghost.js";
import { GhostLedger } from "../../src/oracle/ghost-ledger.js";
import { OUT_OF_ORDER_LOOP_BUMPS } from "../../src/oracle/idempotent-loop.js";

const OOOSN = "OUT_OF_ORDER_SEQUENCE_NUMBER";

function bump(epoch: number, partition: string, error = OOOSN): IdempotentEpochBump {
  return {
    producer: "i0",
    producerId: 1000,
    producerEpoch: epoch,
    trigger: [{ partition, error, baseSequence: 4, batchEpoch: epoch - 1 }],
    atMs: 100 * epoch,
  };
}

describe("the idempotent producer's liveness check (an endless OUT_OF_ORDER_SEQUENCE_NUMBER loop)", () => {
  it("names the loop once bumps asked for by OUT_OF_ORDER_SEQUENCE_NUMBER alone reach the bound", () => {
    const ledger = new GhostLedger();
    for (let e = 1; e <= OUT_OF_ORDER_LOOP_BUMPS + 3; e++)
      ledger.idempotentEpochBumped(bump(e, e % 2 === 0 ? "orders-0" : "orders-1"));
    expect(ledger.violations).toHaveLength(1);
    const v = ledger.violations[0];
    expect(v?.kind).toBe("hanging-transaction");
    expect(v?.summary).toContain("i0 is stuck in an endless OUT_OF_ORDER_SEQUENCE_NUMBER loop");
    expect(v?.explanation.at(-1)).toContain("KAFKA-12152");
  });

  it("is silent when another cause (an expired batch, a lost connection) breaks the run of bumps", () => {
    const ledger = new GhostLedger();
    let epoch = 0;
    for (let round = 0; round < 4; round++) {
      for (let i = 1; i < OUT_OF_ORDER_LOOP_BUMPS; i++) ledger.idempotentEpochBumped(bump(++epoch, "orders-0"));
      ledger.idempotentEpochBumped(bump(++epoch, "orders-1", "NETWORK_EXCEPTION"));
    }
    expect(ledger.violations).toEqual([]);
  });
});
