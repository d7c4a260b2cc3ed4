import { describe, expect, it } from "vitest";
import { loadScenario, runSeed } from "../../src/index.js";

/** Seed 1 of kip-1228 with every broker's KAFKA-18654 switch set to `retryOnServer`: what the producers were answered. */
function produceAnswers(retryOnServer: boolean) {
  const loaded = loadScenario("kip-1228");
  const scenario = structuredClone(loaded.scenario);
  scenario.cluster.brokers = scenario.cluster.brokers.map((b) => ({
    ...b,
    overrides: { ...(b.overrides ?? {}), addPartitionsRetryOnServer: retryOnServer },
  }));
  const r = runSeed({ ...loaded, scenario }, { seed: 1 }, { recordTrace: true });
  const trace = r.trace ?? [];
  const toProducers = trace.filter(
    (e) => e.kind === "net.reply" && e.fields.msg === "Produce" && /^p\d/.test(`${e.fields.to}`),
  );
  const refused = toProducers.filter((e) => e.fields.detail === "NOT_ENOUGH_REPLICAS").length;
  const asks = trace.filter(
    (e) => e.kind === "net.send" && e.fields.msg === "AddPartitionsToTxn" && `${e.node}`.startsWith("broker"),
  );
  return { answers: toProducers.length, refused, asks, violations: r.violations.length };
}

describe("a leader's add-partition retries (KAFKA-18654, ReplicaManager.maybeRetryOnConcurrentTransactions)", () => {
  it("a 4.x leader asks the coordinator again every add.partitions.to.txn.retry.backoff.ms instead of refusing the TV2 produce at once", () => {
    const retried = produceAnswers(true);
    const before = produceAnswers(false);
    // The previous transaction's markers are still being written when the next one's first batch
    // arrives: before KAFKA-18654 the producer is refused (CONCURRENT_TRANSACTIONS translated to
    // NOT_ENOUGH_REPLICAS) and re-sends; with it, the leader waits and asks again itself.
    expect(before.refused).toBeGreaterThan(100);
    expect(retried.refused).toBeLessThan(before.refused / 3);
    expect(retried.answers).toBeLessThan(before.answers / 2);
    const again = retried.asks.filter((e, i) =>
      retried.asks
        .slice(0, i)
        .some((p) => p.node === e.node && p.fields.detail === e.fields.detail && e.timeMs - p.timeMs >= 20),
    );
    expect(again.length).toBeGreaterThan(0);
    expect([retried.violations, before.violations]).toEqual([0, 0]);
  });
});
