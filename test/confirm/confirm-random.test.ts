import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ConfirmPlan } from "../../src/confirm/plan/plan.js";
import { confirmRandom } from "../../src/confirm/random-runs.js";
import type { RealRun } from "../../src/confirm/run/real-run.js";
import { loadScenario } from "../../src/scenario/loader.js";

// confirm --random: each drawn seed's schedule is played as drawn (not shrunk), on a cluster of its
// own, judged by the same oracle, with a Jepsen history beside it. A recorded run stands in for the
// cluster: what is checked is what is played, and what is written.

describe("confirm --random", () => {
  it("plays each seed's schedule as drawn, one directory per run, each with its Jepsen history", async () => {
    const recorded = JSON.parse(
      readFileSync(new URL("./fixtures/real-runs/kip-1228-gap.all-4.2.1.json", import.meta.url), "utf8"),
    ).run as RealRun;
    const played: ConfirmPlan[] = [];
    const outDir = mkdtempSync(join(tmpdir(), "eosfuzz-confirm-random-"));
    const runs = await confirmRandom(loadScenario("leader-failover"), [1, 10], {
      outDir,
      retries: 0,
      runner: async (plan) => {
        played.push(plan);
        return recorded;
      },
    });
    expect(runs.map((r) => r.seed)).toEqual([1, 10]);
    // Played as drawn: every step of the schedule, the events included (a shrink would cut them).
    expect(played.map((p) => p.source)).toEqual([
      "leader-failover seed 1 (drawn at random)",
      "leader-failover seed 10 (drawn at random)",
    ]);
    expect(played[0]?.steps.filter((s) => s.kind === "restart-broker").length).toBe(1);
    expect(played[1]?.steps.filter((s) => s.kind === "elect-leader").length).toBe(2);
    expect(readdirSync(outDir).sort()).toEqual(["run-1-seed-1", "run-2-seed-10"]);
    for (const r of runs)
      expect(readFileSync(join(r.dir, "attempt-1", "history.edn"), "utf8")).toMatch(/^\{:index 0, /);
  });
});
