import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { judgeRealRun, staleMarkers } from "../../src/confirm/history/real-history.js";
import type { ConfirmPlan } from "../../src/confirm/plan/plan.js";
import type { RealRun } from "../../src/confirm/run/real-run.js";
import { judge } from "../../src/confirm/verdict.js";

// The history the oracle reads, built from what real runs wrote (fixtures recorded by eosfuzz
// confirm on real clusters: its real-run.json, node paths removed), judged with the model's checks.

function fixture(name: string): { plan: ConfirmPlan; run: RealRun } {
  return JSON.parse(readFileSync(new URL(`./fixtures/real-runs/${name}`, import.meta.url), "utf8"));
}

describe("the real history, judged by the oracle", () => {
  it("finds the stale marker a 4.1.2 coordinator's late v1 copy wrote at a 4.2.1 leader", () => {
    const { plan, run } = fixture("kip-1228-gap.mixed.json");
    const j = judgeRealRun(plan, run);
    expect(j.violations.map((v) => v.kind)).toEqual(["stale-marker"]);
    const v = j.violations[0];
    expect(v).toMatchObject({
      partition: "orders-0",
      broker: "broker-0",
      brokerRelease: "4.2.1",
      transaction: "p1.t2",
      markerIssuedFor: "p1.t1",
      coordinatorBroker: "broker-2",
      coordinatorRelease: "4.1",
      markerVersion: 1,
    });
    const stale = staleMarkers(j.markers);
    expect(stale.map((m) => [m.partition, m.offset, m.ghostTxn, m.closed?.ghostTxns])).toEqual([
      ["orders-0", 8, "p1.t1", ["p1.t2"]],
    ]);
    expect(stale[0]?.lines.at(-1)).toContain("endTxnMarker: COMMIT");
    expect(j.notes).toEqual([]);
  });

  it("finds nothing when the late copy was rejected and wrote nothing (the check reads the log, not the plan)", () => {
    const { plan, run } = fixture("kip-1228-gap.mixed.json");
    const released = run.proxyEvents.find((e) => e.kind === "marker-response" && e.swallowed);
    if (released?.kind !== "marker-response") throw new Error("the fixture has no released copy");
    for (const e of released.errors) e.errorCode = 47;
    run.logs = run.logs.filter((b) => !(b.partition === "orders-0" && b.baseOffset === 8));
    const j = judgeRealRun(plan, run);
    expect(j.violations).toEqual([]);
    expect(j.ledger.markersRejected).toBe(1);
  });

  it("finds nothing on the all-4.2.1 cluster, where the late copy was answered INVALID_PRODUCER_EPOCH", () => {
    const { plan, run } = fixture("kip-1228-gap.all-4.2.1.json");
    const j = judgeRealRun(plan, run);
    expect(j.violations).toEqual([]);
    expect(j.ledger.markersRejected).toBe(1);
    expect(run.faults[0]?.released?.errors).toEqual([{ partition: "orders-0", error: "INVALID_PRODUCER_EPOCH" }]);
  });

  it("finds TV1's stale marker on 3.9.1, where the epoch does not move between transactions", () => {
    const { plan, run } = fixture("tv1-legacy.3.9.1.json");
    const j = judgeRealRun(plan, run);
    expect(j.violations.map((v) => [v.kind, v.transaction, v.markerIssuedFor, v.brokerRelease])).toEqual([
      ["stale-marker", "p0.t2", "p0.t1", "3.x"],
    ]);
  });

  it("finds the lost write an Admin.abortTransaction at the producer's own epoch caused", () => {
    const { plan, run } = fixture("admin-abort-stale-epoch.lost-write.json");
    const j = judgeRealRun(plan, run);
    expect(j.violations.map((v) => [v.kind, v.transaction])).toEqual([["lost-write", "p0.t1"]]);
  });
});

describe("the verdict", () => {
  const { plan, run } = fixture("kip-1228-gap.mixed.json");
  const j = judgeRealRun(plan, run);
  const outcomes = plan.steps.map((s) => s.model);

  it("confirms when real Kafka wrote the model's violation", () => {
    expect(judge(plan, run, j, { violations: [{ kind: "stale-marker" }], outcomes }).verdict).toBe("confirmed");
  });

  it("is not-reproduced when the model predicts a clean cluster and real Kafka was not", () => {
    const v = judge(plan, run, j, { violations: [], outcomes });
    expect(v.verdict).toBe("not-reproduced");
    expect(v.reason).toContain("stale-marker");
  });

  it("names the first step where real Kafka answered otherwise", () => {
    const predicted = outcomes.map((o, i) =>
      plan.steps[i]?.kind === "release" ? ({ kind: "error", error: "INVALID_PRODUCER_EPOCH", detail: "" } as const) : o,
    );
    const v = judge(plan, run, judgeRealRun(plan, run), { violations: [], outcomes: predicted });
    expect(v.divergence?.what).toBe("the proxy releases the copy hold-1 holds");
  });

  it("is inconclusive when a planned fault did not fire, whatever the history says", () => {
    const unfired = structuredClone(run);
    for (const f of unfired.faults) f.firings = [];
    const v = judge(plan, unfired, j, { violations: [{ kind: "stale-marker" }], outcomes });
    expect(v.verdict).toBe("inconclusive");
    expect(v.unfired[0]).toMatch(/^hold-1 never fired/);
  });
});
