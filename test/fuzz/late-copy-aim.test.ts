import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import type { LateCopyTarget } from "../../src/fuzz/run/late-copy-finder.js";
import { isLateCopy, type MarkerArrival } from "../../src/oracle/protocol-coverage.js";
import { withLateDuplicate } from "../../src/sim/transmit-choices.js";
import { adversarialGap } from "./adversarial-gap.js";

// The targets are network duplicates: the adversarial model's (a TCP link has none to write).
const config = runConfigFor(adversarialGap());
const SEEDS = 12;

/** Each target of seeds 0..SEEDS-1 with the run its late duplicate makes. */
function aimedRuns() {
  const out: { target: LateCopyTarget; kinds: Set<string>; lateCopies: MarkerArrival[] }[] = [];
  for (let seed = 0; seed < SEEDS; seed++) {
    const base = runSeed(config, { seed }, { recordTape: true, coveragePositions: true });
    const tape = base.tape ?? {};
    for (const target of base.lateCopies ?? []) {
      const choices = withLateDuplicate(tape[target.stream] ?? [], target.at, target.faults, target.delayMs);
      expect(choices).not.toBeNull(); // a target is only listed when its copy can be duplicated so
      const run = runSeed(config, { tape: { ...tape, [target.stream]: choices as number[] } });
      out.push({
        target,
        kinds: new Set(run.violations.map((v) => v.kind)),
        lateCopies: run.coverage.flatMap(({ state }) =>
          state.kind === "marker" && isLateCopy(state, target) ? [state.arrival] : [],
        ),
      });
    }
  }
  return out;
}

describe("late-copy targets (the coverage strategy's aim at stale markers)", () => {
  const runs = aimedRuns();
  const at = (release: string, wire: string) =>
    runs.filter((r) => r.target.release === release && r.target.wire === wire);

  it("are found in runs of kip-1228-gap at every kind of leader and wire, with delays the marker link allows", () => {
    expect(at("4.1", "v1").length).toBeGreaterThanOrEqual(4); // measured: 21 over 12 seeds
    expect(at("4.2.1", "v2-tv2").length).toBeGreaterThanOrEqual(4); // 14
    expect(at("4.2.1", "v1").length).toBeGreaterThanOrEqual(4); // 31: from the coordinator on the 4.1 broker
    for (const { target } of runs) expect(target.delayMs).toBeLessThanOrEqual(1_500); // markerRequests slow delays: 250 to 1,500 ms
    // A 4.1 leader takes only v1, whoever sends: no v2 target can exist there.
    expect(at("4.1", "v2-tv2")).toEqual([]);
  });

  it("at the 4.1 leader, the late duplicate mostly lands while the next transaction is open and is applied: a stale marker", () => {
    const old = at("4.1", "v1");
    const stale = old.filter((r) => r.kinds.has("stale-marker")).length;
    expect(stale / old.length).toBeGreaterThan(0.5); // measured: 16 of 21 over 12 seeds
    // In most of them the aimed copy is the stale one (12 of 16; in the others another late copy is).
    const byAimedCopy = old.filter(
      (r) => r.kinds.has("stale-marker") && r.lateCopies.some((m) => m.result === "applied"),
    );
    expect(byAimedCopy.length / stale).toBeGreaterThan(0.5);
  });

  it("at a 4.2.1 leader over v1 (a coordinator still on 4.1) the legacy rule applies: stale markers too", () => {
    // KafkaApis.handleWriteTxnMarkersRequest: a v1 request carries no TransactionVersion, read as 0.
    const v1 = at("4.2.1", "v1");
    const stale = v1.filter((r) => r.kinds.has("stale-marker")).length;
    expect(stale / v1.length).toBeGreaterThan(0.3); // measured: 23 of 31 over 12 seeds
  });

  it("at a KIP-1228 leader over v2, the same kind of late duplicate arrives while the next transaction is open and is rejected", () => {
    const strict = at("4.2.1", "v2-tv2");
    const reached = strict.filter((r) => r.lateCopies.length > 0);
    expect(reached.length / strict.length).toBeGreaterThan(0.5);
    for (const r of reached) expect(r.lateCopies.every((m) => m.result === "rejected")).toBe(true);
  });
});
