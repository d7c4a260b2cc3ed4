import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runCampaign } from "../../src/fuzz/search/run-campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
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

describe("txn-id-expiration: transactional.id expiration as Kafka does it", () => {
  it("ids expire with a tombstone, resumed producers get a new producer id at epoch 0, and nothing is violated", () => {
    const config = runConfigFor(resolveScenario("txn-id-expiration"));
    let removed = 0;
    let renewed = 0;
    for (let seed = 0; seed < 20; seed++) {
      const r = runSeed(config, { seed }, { recordTrace: true });
      expect(r.violations.map((v) => `${seed}: ${v.summary}`)).toEqual([]);
      const expired = new Set<string>();
      for (const e of r.trace ?? []) {
        if (e.kind === "txn.expired" && e.fields.removed === true) {
          removed++;
          expired.add(String(e.fields.txnId));
        }
        // TransactionCoordinator.handleInitProducerId with no state: a new producer id, epoch 0.
        if (e.kind === "txn.init" && expired.has(String(e.fields.txnId)) && e.fields.epoch === 0) renewed++;
      }
    }
    expect(removed).toBeGreaterThan(0);
    expect(renewed).toBeGreaterThan(0);
  });
});
