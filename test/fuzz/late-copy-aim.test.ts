import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign.js";
import { runSeed } from "../../src/fuzz/run-seed.js";
import type { LateCopyTarget } from "../../src/fuzz/search/late-copy-finder.js";
import { isLateCopy, type MarkerArrival } from "../../src/oracle/protocol-coverage.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { withLateDuplicate } from "../../src/sim/transmit-choices.js";

const config = runConfigFor(resolveScenario("kip-1228-gap"));
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
  const at = (release: string) => runs.filter((r) => r.target.release === release);

  it("are found in runs of kip-1228-gap at both kinds of leader, with delays the marker link allows", () => {
    expect(at("4.1").length).toBeGreaterThan(5);
    expect(at("4.2.1").length).toBeGreaterThan(5);
    for (const { target } of runs) expect(target.delayMs).toBeLessThanOrEqual(1_500); // markerRequests slow delays: 250 to 1,500 ms
    expect(runs.every(({ target }) => target.wire === (target.release === "4.1" ? "v1" : "v2-tv2"))).toBe(true);
  });

  it("at the 4.1 leader, the late duplicate mostly lands while the next transaction is open and is applied: a stale marker", () => {
    const old = at("4.1");
    const stale = old.filter((r) => r.kinds.has("stale-marker")).length;
    expect(stale / old.length).toBeGreaterThan(0.5); // measured: 73% over 30 seeds
    for (const r of old.filter((r) => r.kinds.has("stale-marker")))
      expect(r.lateCopies.some((m) => m.result === "applied")).toBe(true);
  });

  it("at a KIP-1228 leader, the same kind of late duplicate arrives while the next transaction is open and is rejected", () => {
    const strict = at("4.2.1");
    const reached = strict.filter((r) => r.lateCopies.length > 0);
    expect(reached.length / strict.length).toBeGreaterThan(0.5);
    for (const r of reached) expect(r.lateCopies.every((m) => m.result === "rejected")).toBe(true);
  });
});
