import { describe, expect, it } from "vitest";
import { findMutant } from "../../src/fuzz/catalogue/mutants.js";
import { releaseBoundaries } from "../../src/conform/release-boundaries.js";
import { validateTraces } from "../../src/conform/trace/trace-validation.js";
import { resolveScenario } from "../../src/scenario/loader.js";

// Trace validation replays every decision of every replica's log in a model run on Kafka's
// UnifiedLog of the broker's release (needs npm run harness:setup; without it the harness refuses
// to start and these tests fail, saying so).
describe("trace validation: a run's replica logs replayed on Kafka's UnifiedLog", () => {
  it("kip-1228 seed 0 agrees with Kafka 4.2.1, replica by replica", async () => {
    const [r] = await validateTraces({
      loaded: resolveScenario("kip-1228"),
      seedStart: 0,
      seeds: 1,
      overrides: {},
      stopOnFirst: false,
    });
    expect(r).toMatchObject({ release: "4.2.1", divergentSegments: 0, first: null });
    expect(r?.operations).toBeGreaterThan(1000);
  }, 60_000);

  it("a model with the KIP-1228 check broken diverges where its stale copy lands (kip-1228 seed 5)", async () => {
    const mutant = findMutant("tv2-marker-legacy-rule");
    const [r] = await validateTraces({
      loaded: resolveScenario("kip-1228"),
      seedStart: 5,
      seeds: 1,
      overrides: mutant?.overrides ?? {},
      stopOnFirst: true,
    });
    expect(r?.first?.difference).toMatchObject({ path: "error", kafka: "INVALID_PRODUCER_EPOCH", model: "NONE" });
    expect(r?.first?.ops.at(-1)).toMatchObject({ op: "marker", transactionVersion: 2, origin: "COORDINATOR" });
  }, 60_000);

  it("an upgrade's restart moves a replica's trace to the new release (kip-1228-upgrade seed 0)", async () => {
    const results = await validateTraces({
      loaded: resolveScenario("kip-1228-upgrade"),
      seedStart: 0,
      seeds: 1,
      overrides: {},
      stopOnFirst: false,
    });
    const byRelease = Object.fromEntries(results.map((r) => [r.release, r.divergentSegments]));
    expect(byRelease).toEqual({ "4.1.2": 0, "4.2.1": 0 });
  }, 120_000);

  it("a seed's drawn expiry and an upgrade's rebuilt history reach Kafka's log (everything seed 0)", async () => {
    // Seed 0 draws producer-state expiry at 300 ms and upgrades 4.1 to 4.2.1; seed 4 upgrades to
    // 4.4. Kafka's log must expire at the broker's drawn 300 ms, and the log rebuilt on the new
    // release must have gone through the same expiries (a producer forgotten, back at a new epoch
    // with no coordinator epoch) as the model's: batches alone diverge at the upgrade's restart.
    for (const seedStart of [0]) {
      const results = await validateTraces({
        loaded: resolveScenario("everything"),
        seedStart,
        seeds: 1,
        overrides: {},
        stopOnFirst: false,
      });
      expect(results.length).toBeGreaterThan(1);
      for (const r of results)
        expect({ seedStart, release: r.release, first: r.first }).toEqual({
          seedStart,
          release: r.release,
          first: null,
        });
    }
  }, 120_000);

  it("brokers a scenario runs with flag overrides are counted as not judged", async () => {
    const [r] = await validateTraces({
      loaded: resolveScenario("strict-without-19999"),
      seedStart: 0,
      seeds: 1,
      overrides: {},
      stopOnFirst: false,
    });
    expect(r).toMatchObject({ segments: 0, divergentSegments: 0 });
    expect(r?.skippedOverridden).toBeGreaterThan(0);
  }, 60_000);
});

describe("release boundaries", () => {
  it("name the flags that change between neighbouring releases of jvm/releases.json", () => {
    const changes = Object.fromEntries(
      releaseBoundaries().map((b) => [`${b.before.release}->${b.after.release}`, b.changes.map((c) => c.flag)]),
    );
    expect(changes["4.1.0->4.1.2"]).toEqual(["staleEpochRefusedBeforeGuard"]);
    expect(changes["4.2.0->4.2.1"]).toEqual(["markerVersionDiscovery"]);
    expect(changes["4.1.2->4.2.0"]).toEqual(
      expect.arrayContaining(["maxWriteTxnMarkersVersion", "strictMarkerEpochForTv2", "equalEpochNoOpenTxnTolerance"]),
    );
    // 4.2.1 and 4.2.2 share a profile: no boundary between them.
    expect(changes["4.2.1->4.2.2"]).toBeUndefined();
  });
});
