import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign.js";
import { runSeed } from "../../src/fuzz/run-seed.js";
import { resolveScenario } from "../../src/scenario/loader.js";

// KAFKA-19999 (PR #21176): ProducerAppendInfo.checkProducerEpoch throws IdempotentTransactionMarkerException
// for an equal-epoch TV2 marker with no transaction open; KafkaApis.handleWriteTxnMarkersRequest answers the
// partition NONE at once. Nothing is appended, and nothing waits for the in-sync replicas.
describe("KAFKA-19999's idempotent retry is acknowledged before the copy it repeats is committed", () => {
  const SEED = 30;

  it("leader-failover seed 30: the acknowledged ABORT marker is lost with a leadership move and the next marker closes its transaction", () => {
    const run = runSeed(runConfigFor(resolveScenario("leader-failover")), { seed: SEED }, { recordTrace: true });
    const stale = run.violations.find((v) => v.kind === "stale-marker");
    expect(stale).toMatchObject({ partition: "orders-4", brokerRelease: "4.2.1", transaction: "p1.t4" });
    const text = stale?.explanation.join("\n") ?? "";
    expect(text).toMatch(/appended p1\.t4's own ABORT marker at offset 23/);
    expect(text).toMatch(/answered copy 2 as an idempotent retry/);
    expect(text).toMatch(/leadership: t=\d+ms\s+orders-4 moved from broker-2 to broker-1/);
    // The retry left no batch behind: the trace has its marker.idempotent and no append of that copy.
    const retries = (run.trace ?? []).filter(
      (e) => e.kind === "marker.idempotent" && e.fields.txn === "p1.t4" && e.fields.partition === "orders-4",
    );
    expect(retries.map((e) => e.fields.resend)).toEqual([1]);
    const appends = (run.trace ?? []).filter(
      (e) => e.kind === "marker.append" && e.fields.txn === "p1.t4" && e.fields.partition === "orders-4",
    );
    expect(appends.map((e) => e.fields.resend)).toEqual([0]);
  });

  it("with the retry acknowledged only once committed (idempotentMarkerRetryWaitsForCommit), the same seed is clean", () => {
    const run = runSeed(runConfigFor(resolveScenario("leader-failover-retry-fix")), { seed: SEED });
    expect(run.violations).toEqual([]);
  });
});
