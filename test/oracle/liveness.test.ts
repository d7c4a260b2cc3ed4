import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { findMutant } from "../../src/fuzz/catalogue/mutants.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import type { LogBatch } from "../../src/kafka/broker/log-batch.js";
import type { ClusterSnapshot } from "../../src/kafka/cluster-final-state.js";
import { GhostLedger } from "../../src/oracle/ghost-ledger.js";
import { checkLiveness } from "../../src/oracle/liveness.js";

function hangsOf(scenario: string, seed: number, overrides = {}) {
  const r = runSeed(runConfigFor(resolveScenario(scenario), overrides), { seed });
  return r.violations.filter((v) => v.kind === "hanging-transaction");
}

describe("liveness: why a transaction hangs", () => {
  it("a broker that never understood the request (4.2.0 coordinator, no ApiVersions discovery, a 4.1 broker)", () => {
    const hangs = hangsOf("kip-1228-4.2.0", 1);
    expect(hangs.length).toBeGreaterThan(0);
    for (const v of hangs) {
      expect(v).toMatchObject({ broker: "broker-2", brokerRelease: "4.1" });
      expect(v.summary).toMatch(
        /broker-2 \(4\.1\) never understood the request: broker-[01] \(4\.2\.0\) sends WriteTxnMarkers v2 without ApiVersions discovery \(KAFKA-20322 missing\)/,
      );
      const text = v.explanation.join("\n");
      expect(text).toMatch(/could not take WriteTxnMarkers v2 .* and closed the connection without a response/);
      expect(text).toMatch(/no marker was rejected, none was applied there/);
      expect(text).not.toMatch(/gave up|stopped sending/);
    }
  });

  it("a harmless duplicate rejected by a 4.2.0 leader, after which the coordinator gave up (KAFKA-19999 missing)", () => {
    // The duplicate is a re-sent copy (copy 4 after copy 2 was applied): the marker sender's own
    // re-send after a request timeout, the only duplicate the default TCP network allows.
    const [v, ...others] = hangsOf("strict-without-19999", 3);
    expect(others).toEqual([]);
    expect(v).toMatchObject({
      transaction: "p1.t5",
      partition: "orders-2",
      broker: "broker-2",
      brokerRelease: "4.2.0",
    });
    expect(v?.summary).toBe(
      "p1.t5 hangs in PrepareCommit at broker-2: broker-2 (4.2.0) rejected its marker at orders-2 with INVALID_PRODUCER_EPOCH and the coordinator gave up (a harmless duplicate refused by the strict rule without the KAFKA-19999 tolerance)",
    );
    const text = v?.explanation.join("\n") ?? "";
    expect(text).toMatch(/broker-2 applied marker #\d+ copy 2 at orders-2/);
    expect(text).toMatch(/rejected marker #\d+ copy 4 at orders-2 with INVALID_PRODUCER_EPOCH/);
    expect(text).toMatch(/no transaction was open there/);
    expect(text).toMatch(
      /a leader with KAFKA-19999 \(4\.2\.0 and later\) appends it as a duplicate that closes nothing/,
    );
    expect(text).toMatch(/broker-2 stopped sending markers for p1\.t5 on INVALID_PRODUCER_EPOCH/);
    expect(text).not.toMatch(/never understood/);
  });

  it("the same duplicates on 4.2.1 (KAFKA-19999) do not hang", () => {
    expect(hangsOf("strict-without-19999", 3, { equalEpochNoOpenTxnTolerance: true })).toEqual([]);
  });

  it("a transactional.id left pending Dead after a failed tombstone is wedged (KAFKA-7519's bug switch); cleared, it is not", () => {
    const hangs = hangsOf("txn-id-expiration", 2, { tcExpireWriteFailureLeavesPending: true });
    expect(hangs.length).toBeGreaterThan(0);
    expect(hangs[0]?.summary).toMatch(
      /^txn-\d is wedged at broker-\d: it stayed pending Dead after its expiration, so every request for it gets CONCURRENT_TRANSACTIONS$/,
    );
    expect(hangs[0]?.explanation.join("\n")).toMatch(
      /tombstone was not written, and the pending state was not cleared/,
    );
    expect(hangsOf("txn-id-expiration", 2)).toEqual([]);
  });

  it("an LSO stuck below the high watermark with no transaction open", () => {
    const m = findMutant("lso-stuck-after-completion");
    const hangs = hangsOf("kip-1228", 0, m?.overrides);
    expect(hangs.length).toBeGreaterThan(0);
    expect(hangs[0]?.summary).toMatch(
      /^orders-\d on broker-\d \(4\.2\.1\): LSO stuck at \d+ below the high watermark \d+ though no transaction is open there$/,
    );
  });
  // everything's seed 3911 showed it before KIP-951 moved that seed's schedule (the leader's part
  // runs on Kafka's UnifiedLog in test/conform/stale-snapshot-cases.ts); the oracle's part is
  // checked here on the replica's final state itself: the producer state holds open a transaction
  // whose COMMIT marker sits in the log above its first offset.
  it("a committed transaction open again at a replica (a truncation reloaded a snapshot taken while it was open)", () => {
    const batch = (baseOffset: number, control: LogBatch["control"]): LogBatch => ({
      baseOffset,
      lastOffset: baseOffset,
      producerId: 1001,
      producerEpoch: control ? 3 : 2,
      baseSequence: control ? -1 : baseOffset,
      isTransactional: true,
      control,
      values: control ? [] : ["v"],
      ghostTxn: "p1.t3",
    });
    const snapshot = (batches: LogBatch[]): ClusterSnapshot => ({
      transactions: [],
      unservedTransactionalIds: [],
      partitions: [
        {
          partition: "input-0",
          broker: "broker-0",
          brokerRelease: "4.2.1",
          highWatermark: 3,
          lastStableOffset: 0,
          openTransactions: [{ producerId: 1001, firstOffset: 0, ghostTxns: ["p1.t3"] }],
          batches,
          abortedTxns: [],
        },
      ],
    });
    const closed = checkLiveness(
      new GhostLedger(),
      snapshot([batch(0, null), batch(1, { type: "COMMIT", coordinatorEpoch: 2 }), batch(2, null)]),
      27_000,
    );
    expect(closed.map((v) => v.summary)).toEqual([
      "input-0 on broker-0 (4.2.1): LSO stuck at 0 behind the open transaction of producer 1001 (p1.t3) though a marker closed it at offset 1",
    ]);
    expect(closed[0]?.explanation.join("\n")).toMatch(
      /a COMMIT marker at offset 1 closed the transaction of producer 1001 that started at offset 0, yet broker-0's producer state holds it open/,
    );
    // No marker of that producer above the first offset: the plain hang, which everything never expects.
    const open = checkLiveness(new GhostLedger(), snapshot([batch(0, null), batch(2, null)]), 27_000);
    expect(open.map((v) => v.summary)).toEqual([
      "input-0 on broker-0 (4.2.1): LSO stuck at 0 behind the open transaction of producer 1001 (p1.t3)",
    ]);
    expect(open[0]?.explanation.join("\n")).toMatch(/no marker ever closed them/);
  });

  it("a partition added from an uncommitted __transaction_state record a leader change truncated (everything's seed 4222)", () => {
    const [v, ...others] = hangsOf("everything", 4222);
    expect(others).toEqual([]);
    expect(v?.summary).toBe(
      "output-0 on broker-0 (4.0): LSO stuck at 12 behind the open transaction of producer 1004 (p2#3.t4): the uncommitted __transaction_state record that added output-0 was truncated",
    );
    expect(v?.explanation.join("\n")).toMatch(
      /broker-2 truncated the Ongoing record of txn-2 \(producerId 1004, epoch 0, partitions output-0\) at __transaction_state-0 offset 18/,
    );
  });
});
