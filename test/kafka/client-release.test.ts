import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { producerBehaviour } from "../../src/kafka/client/producer-behaviour.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";
import { type LoadedScenario, loadScenario } from "../../src/scenario/loader.js";
import type { Scenario } from "../../src/scenario/schema.js";
import { semanticProblems } from "../../src/scenario/semantic-checks.js";
import { toClusterSpec } from "../../src/scenario/to-cluster-spec.js";

/** The scenario with its workload changed. */
function withWorkload(loaded: LoadedScenario, workload: Partial<Scenario["workload"]>): Scenario {
  return { ...loaded.scenario, workload: { ...loaded.scenario.workload, ...workload } };
}

describe("the producers' client release (workload.release)", () => {
  it("defaults to the newest release for a TV2 client and to 3.x for an older one; a scenario may name its own", () => {
    const tv2 = loadScenario("epoch-exhaustion");
    expect(toClusterSpec(tv2.scenario).producers.release).toBe("4.4");
    const tv1 = loadScenario("tv1-legacy");
    expect(tv1.scenario.workload.transactionVersion).toBeLessThan(2);
    expect(toClusterSpec(tv1.scenario).producers.release).toBe("3.x");
    expect(toClusterSpec(withWorkload(tv2, { release: "4.0" })).producers.release).toBe("4.0");
  });

  it("must agree with workload.transactionVersion: a 4.0+ client knows TV2, a 3.x client does not", () => {
    const tv2 = loadScenario("epoch-exhaustion");
    const onRelease = (s: Scenario) =>
      semanticProblems(s)
        .filter((p) => p.path.join(".") === "workload.release")
        .map((p) => p.message);
    expect(onRelease(withWorkload(tv2, { release: "3.x" }))).toEqual([
      "expected a 4.0+ release for a TV2 client (workload.transactionVersion 2), found 3.x",
    ]);
    expect(onRelease(withWorkload(tv2, { release: "4.2.1", transactionVersion: 1 }))).toHaveLength(1);
    expect(onRelease(withWorkload(tv2, { release: "4.2.1" }))).toEqual([]);
  });

  it("each release's producer switches: KAFKA-18019 in 4.0, KAFKA-19250 in 4.1.0, KIP-1319 in 4.4; overrides reach them", () => {
    const switches = (name: "3.x" | "4.0" | "4.1.0" | "4.4", overrides: Partial<ReleaseFlags> = {}) => {
      const b = producerBehaviour(releaseProfile(name, overrides).flags);
      return [
        b.invalidProducerIdMappingFatal,
        b.endTxnAbortAbortableErrorFatal,
        b.txnOffsetCommitMemberEpochErrorsAbortable,
      ];
    };
    expect(switches("3.x")).toEqual([false, false, false]);
    expect(switches("4.0")).toEqual([true, false, false]);
    expect(switches("4.1.0")).toEqual([true, true, false]);
    expect(switches("4.4")).toEqual([true, true, true]);
    expect(switches("4.4", { invalidProducerIdMappingFatal: false })).toEqual([false, true, true]);
  });

  /**
   * epoch-exhaustion seed 8: a zombie producer's abort meets INVALID_PRODUCER_ID_MAPPING (its
   * producer id was rotated at epoch exhaustion). A 4.0+ client takes it as fatal at once; a 3.x
   * one as abortable, so its abortTransaction fails and the application gives up after max.block.ms.
   */
  function zombieAbort(globalOverrides: Partial<ReleaseFlags>, brokerOverrides: Partial<ReleaseFlags> = {}): string[] {
    const loaded = loadScenario("epoch-exhaustion");
    const brokers = loaded.scenario.cluster.brokers.map((b) => ({
      ...b,
      overrides: { ...b.overrides, ...brokerOverrides },
    }));
    const scenario = { ...loaded.scenario, cluster: { ...loaded.scenario.cluster, brokers } };
    const r = runSeed(runConfigFor({ ...loaded, scenario }, globalOverrides), { seed: 8 }, { recordTrace: true });
    return r.trace
      .filter((e) => e.node === "p1" && (e.kind === "producer.fatal" || e.kind === "producer.give-up"))
      .map((e) => `${e.kind} ${(e.fields as { reason: string }).reason}`);
  }

  it("a producer's flags are its client release's with the global overrides, never a broker's profile", () => {
    expect(zombieAbort({})).toEqual(["producer.fatal EndTxn: INVALID_PRODUCER_ID_MAPPING"]);
    expect(zombieAbort({ invalidProducerIdMappingFatal: false })).toEqual([
      "producer.give-up abortTransaction: no result within max.block.ms (2000 ms)",
    ]);
    // Every broker's profile says otherwise: the producer does not read it.
    expect(zombieAbort({}, { invalidProducerIdMappingFatal: false })).toEqual([
      "producer.fatal EndTxn: INVALID_PRODUCER_ID_MAPPING",
    ]);
  });
});
