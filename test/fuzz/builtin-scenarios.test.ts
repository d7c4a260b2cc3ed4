import { describe, expect, it } from "vitest";
import { runCampaign } from "../../src/fuzz/campaign.js";
import { resolveScenario } from "../../src/scenario/loader.js";

describe("built-in scenarios meet their declared expectations", () => {
  it("tv1-legacy finds stale-marker within its budget", () => {
    const loaded = resolveScenario("tv1-legacy");
    const r = runCampaign(loaded, { seeds: loaded.scenario.expect.within ?? 200, seedStart: 0 });
    expect(r.verdict.reasons).toEqual([]);
    expect(r.violations.some((v) => v.kind === "stale-marker")).toBe(true);
  });

  it("kip-1228-gap finds stale-marker, each judged by the 4.1 leader or sent by the 4.1 coordinator over v1", () => {
    const loaded = resolveScenario("kip-1228-gap");
    const r = runCampaign(loaded, { seeds: loaded.scenario.expect.within ?? 200, seedStart: 0 });
    expect(r.verdict.met).toBe(true);
    const stale = r.violations.filter((v) => v.kind === "stale-marker");
    expect(stale.length).toBeGreaterThan(0);
    for (const v of stale) {
      // KafkaApis.handleWriteTxnMarkersRequest: a v1 request carries no TransactionVersion, so the leader
      // judges by the legacy rule; a 4.1 broker takes only v1, and a 4.1 coordinator sends only v1.
      expect(v.brokerRelease === "4.1" || v.coordinatorRelease === "4.1").toBe(true);
      expect(v.markerVersion).toBe(1);
      expect(v.explanation.join("\n")).toMatch(/legacy rule/);
    }
  });

  it("kip-1228 (4.2.1 everywhere) stays clean", () => {
    const r = runCampaign(resolveScenario("kip-1228"), { seeds: 1_000, seedStart: 0 });
    expect(r.violations.map((v) => `${v.seed}: ${v.summary}`)).toEqual([]);
    expect(r.verdict.met).toBe(true);
  });

  it("kip-1228-4.2.0 finds hanging-transaction (a broker that never understood v2) and no stale-marker", () => {
    const loaded = resolveScenario("kip-1228-4.2.0");
    const r = runCampaign(loaded, { seeds: loaded.scenario.expect.within ?? 50, seedStart: 0 });
    expect(r.verdict.met).toBe(true);
    expect(r.violations.some((v) => v.kind === "stale-marker")).toBe(false);
    const hang = r.violations.find((v) => v.kind === "hanging-transaction" && v.broker === "broker-2");
    expect(hang?.summary).toMatch(/never understood/);
  });
});
