import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { fingerprintGroup, fingerprintLabels } from "../../src/fuzz/catalogue/behaviour-fingerprint.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { checkFingerprintHalf, recorded, recordedOverall } from "./fingerprint-check.js";

// The other half of the groups: behaviour-fingerprint-b.test.ts (see checkFingerprintHalf).
describe("the behaviour fingerprint", () => {
  it("is what test/fingerprint.json records (every other group; the rest in behaviour-fingerprint-b): a behaviour change updates the record, with its reason", () => {
    checkFingerprintHalf(0);
  });

  it("records an overall digest that its groups make", () => {
    expect(recordedOverall()).toBe(recorded.overall);
  });

  it("covers every built-in scenario and mutant", () => {
    expect(Object.keys(recorded.groups)).toEqual(fingerprintLabels());
  });

  it("moves when one behaviour flag moves (the check can fail)", () => {
    // KIP-1228's strict rule off on the all-4.2.1 cluster: what the tv2-marker-legacy-rule mutant does.
    const loaded = resolveScenario("kip-1228");
    const changed = fingerprintGroup(
      "kip-1228",
      runConfigFor(loaded, { strictMarkerEpochForTv2: false }),
      recorded.seeds,
    );
    expect(changed.digest).not.toBe(recorded.groups["kip-1228"]);
  });
});
