import { describe, expect, it } from "vitest";
import { MUTANTS } from "../../src/fuzz/catalogue/mutants.js";
import { eosfuzz } from "../cli/cli-helpers.js";

// Each mutant run on its own scenario until caught: a minute or two of fuzzing in all, so in
// npm run test:long (CI runs it); mutants.test.ts keeps the listing and the command's contract.
describe("every mutant is caught within its budget (eosfuzz run --scenario S --mutant M --json)", () => {
  // The exact command for the first; --no-shrink for the others (shrinking the first failure does not
  // change the verdict and costs two seconds a mutant; the shrinker has its own tests).
  it.each(MUTANTS.map((m, i) => [m.name, m, i] as const))("%s", (_name, m, i) => {
    const r = eosfuzz([
      "run",
      "--scenario",
      m.scenario,
      "--mutant",
      m.name,
      "--json",
      ...(i === 0 ? [] : ["--no-shrink"]),
    ]);
    const report = JSON.parse(r.stdout);
    expect(report.mutant).toBe(m.name);
    expect(report.expectationReasons).toEqual([]);
    expect(report.expectationMet).toBe(true);
    expect(r.code).toBe(0);
    const killer = report.violations.find((v: { kind: string }) => (m.expectedKinds as string[]).includes(v.kind));
    expect(killer, "a violation of an expected kind").toBeDefined();
    expect(killer.seed).toBeLessThan(m.budget);
    expect(report.seedsRun).toBe(killer.seed + 1);
    expect(killer.replay).toBe(
      `eosfuzz run --scenario ${m.scenario} --seed-start ${killer.seed} --seeds 1 --mutant ${m.name}`,
    );
  });
});
