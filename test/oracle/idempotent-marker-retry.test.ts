import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { resolveScenario } from "../../src/scenario/loader.js";

// KAFKA-19999 as merged (PR #21176, in 4.2.0): ProducerAppendInfo.checkProducerEpoch lets an equal-epoch
// TV2 marker with no transaction open through, and the copy is appended through ReplicaManager's acks=-1
// path, so its partition is answered only once the high watermark passes it. Kafka 4.2.1's UnifiedLog
// agrees (eosfuzz conform). The model once answered such a copy at once without appending it (a PR
// revision that never shipped), and leader-failover lost markers with leadership moves.
describe("KAFKA-19999 appends a re-sent marker copy and answers it at the high watermark", () => {
  it("leader-failover seed 1: p0.t6's re-sent copies at orders-2 are appended under the tolerance, closing nothing; the run is clean", () => {
    const run = runSeed(runConfigFor(resolveScenario("leader-failover")), { seed: 1 }, { recordTrace: true });
    expect(run.violations).toEqual([]);
    const appends = (run.trace ?? []).filter(
      (e) => e.kind === "marker.append" && e.fields.txn === "p0.t6" && e.fields.partition === "orders-2",
    );
    const copies = appends.filter((e) => e.fields.resend > 0);
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies)
      expect([copy.fields.rule, copy.fields.closedFrom]).toEqual(["kafka-19999-equal-epoch", -1]);
  });
});
