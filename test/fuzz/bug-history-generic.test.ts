import { describe, expect, it } from "vitest";
import { findBug, type HistoricalBug } from "../../src/fuzz/catalogue/bug-history.js";
import { GENERIC_BUG_SCENARIO, runBug } from "../../src/fuzz/catalogue/bug-history-run.js";
import { eosfuzz } from "../cli/cli-helpers.js";

let clock = 0;
const now = () => clock++;

describe("eosfuzz bugs run --generic (issue 31)", () => {
  it("finds a bug on the one generic scenario, with its symptom on and clean off over the same seeds", () => {
    const o = runBug(findBug("Z05") as HistoricalBug, { budgetSeeds: 3, shrinkBudgetMs: 0, now, generic: true });
    expect(o.scenario).toBe(GENERIC_BUG_SCENARIO);
    expect(o.found).toBe(true);
    expect(o.firstSeed).toBe(0); // measured: seed 0 since Z19's draws (a model-error: a second completion)
    expect(o.seedsOff).toBe(3);
    expect(o.symptomSeedsOff).toBe(0);
  });

  it("does not count what Kafka itself shows under a seed's draw: a switch that changes nothing is never found", () => {
    // fatal-error is what the draws of transactional.id expiry, TV1 and transaction.version changes
    // make Kafka show (marked expectedBy): both sides show it, neither counts it.
    const nothing: HistoricalBug = {
      ...(findBug("Z07") as HistoricalBug),
      bug: {},
      fixed: {},
    };
    const o = runBug(nothing, { budgetSeeds: 12, shrinkBudgetMs: 0, now, generic: true });
    expect(o.kindsOff["fatal-error"] ?? 0).toBeGreaterThan(0);
    expect(o.found).toBe(false);
    expect(o.symptomSeedsOff).toBe(0);
    expect(o.why).toMatch(/^no fatal-error in 12 seeds of everything/);
  });

  it("the command runs it and says which scenario", async () => {
    const r = await eosfuzz(["bugs", "run", "Z05", "--generic", "--budget-seeds", "2", "--shrink-budget-ms", "0"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("everything: first seed 0");
    expect(r.stdout).toContain("1 of 1 found on everything within 2 seeds each");
  });
});
