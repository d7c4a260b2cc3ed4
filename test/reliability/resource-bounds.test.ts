import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { InputError } from "../../src/common/input-error.js";
import { BUILTIN_SCENARIO_DIR, parseScenario, resolveScenario } from "../../src/scenario/loader.js";
import { LIMITS } from "../../src/scenario/schema.js";
import { BoundExceeded, SIM_BOUNDS } from "../../src/sim/bounds.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { type LinkFaults, Network } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";
import { thrownBy } from "./input-fuzz-helpers.js";

/** Issue 9, resource bounds: too big is refused up front; a queue at its bound is reported, not a hang. */

const KIP_1228 = readFileSync(join(BUILTIN_SCENARIO_DIR, "kip-1228.yaml"), "utf8");

function withWorkload(producers: number, transactions: number, records: number): string {
  return KIP_1228.replace(
    /workload:\n( {2}.*\n)+/,
    `workload:\n  producers: ${producers}\n  transactions: ${transactions}\n  recordsPerTxn: [1, ${records}]\n`,
  );
}

describe("resource bounds", () => {
  it("a workload bigger than one run can hold is refused up front, naming the limit", () => {
    const tooManyTxns = thrownBy(() => parseScenario(withWorkload(64, 10_000, 1), "big.yaml"));
    expect(tooManyTxns).toBeInstanceOf(InputError);
    expect((tooManyTxns as Error).message).toMatch(
      /^big\.yaml:\d+:\d+ workload\.transactions: expected at most 50,000 transactions per seed \(.*transactionsPerSeed.*\), found 64 x 10,000 = 640,000$/,
    );
    const tooManyRecords = thrownBy(() => parseScenario(withWorkload(10, 1_000, 1_000), "big.yaml"));
    expect((tooManyRecords as Error).message).toMatch(
      /workload\.recordsPerTxn: expected at most 200,000 records per seed .*recordsPerSeed.*, found 10 x 1,000 x 1,000 = 10,000,000$/,
    );
    // At the limit it is accepted.
    expect(parseScenario(withWorkload(50, 1_000, 4), "big.yaml").scenario.workload.transactions).toBe(1_000);
    expect(LIMITS.transactionsPerSeed * 4).toBeLessThanOrEqual(LIMITS.recordsPerSeed);
  });

  it("a run that fills the simulation's event queue ends with a model-error naming the bound, promptly", () => {
    const saved = SIM_BOUNDS.pendingEvents;
    SIM_BOUNDS.pendingEvents = 40;
    try {
      const started = performance.now();
      const result = runSeed(runConfigFor(resolveScenario("kip-1228")), { seed: 0 });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(result.violations).toHaveLength(1);
      expect(result.violations[0]).toMatchObject({
        kind: "model-error",
        summary: "the run reached a bound of the model: pending events of the simulation exceeded 40",
      });
      expect(result.violations[0]?.explanation.join(" ")).toMatch(/bounded so that a runaway run is reported/);
    } finally {
      SIM_BOUNDS.pendingEvents = saved;
    }
  });

  it("a connection refuses more requests in flight than its bound, naming it", () => {
    const quiet: LinkFaults = {
      delay: { minMs: 1, maxMs: 1, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
      dropPpm: 0,
      duplicatePpm: 0,
      reorderPpm: 0,
    };
    const sim = new Simulation(new Trace());
    const net = new Network<string, string>(
      sim,
      ChoiceSource.seeded(1),
      () => quiet,
      (m) => m,
    );
    net.registerServer("server", () => {});
    const conn = net.connect("client", "server");
    const error = thrownBy(() => {
      for (let i = 0; i < 100; i++) net.request(conn, `m${i}`, 1_000, () => {});
    });
    expect(error).toBeInstanceOf(BoundExceeded);
    expect((error as Error).message).toBe("requests in flight on connection 1 (client to server) exceeded 16");
  });
});
