import { describe, expect, it } from "vitest";
import { findBug } from "../../src/fuzz/bug-history.js";
import { runBug } from "../../src/fuzz/bug-history-run.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { releaseProfile } from "../../src/kafka/release.js";

/** The partition-log bugs (Z20-Z26) of the fast subset: found within this budget, clean off. */
const FAST: [string, number][] = [["Z24", 10]];

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
