import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import {
  behaviourFingerprint,
  fingerprintGroup,
  fingerprintLabels,
} from "../../src/fuzz/catalogue/behaviour-fingerprint.js";
import { resolveScenario } from "../../src/scenario/loader.js";

interface RecordedFingerprint {
  seeds: number;
  overall: string;
  groups: Record<string, string>;
}

const recorded = JSON.parse(
  readFileSync(new URL("../fingerprint.json", import.meta.url), "utf8"),
) as RecordedFingerprint;

describe("the behaviour fingerprint", () => {
  it("is what test/fingerprint.json records: a behaviour change updates the record, with its reason", () => {
    const fingerprint = behaviourFingerprint({ seeds: recorded.seeds });
    const now = Object.fromEntries(fingerprint.groups.map((g) => [g.label, g.digest]));
    const changed = Object.keys({ ...recorded.groups, ...now }).filter(
      (label) => recorded.groups[label] !== now[label],
    );
    // The message names the groups, so a failing CI log says what moved and how to re-record.
    expect(
      changed,
      `groups changed (npm run fingerprint:record, and say why in the commit): ${changed.join(", ")}`,
    ).toEqual([]);
    expect(fingerprint.overall).toBe(recorded.overall);
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
