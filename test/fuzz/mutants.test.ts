import { describe, expect, it } from "vitest";
import { EQUIVALENT_MUTANTS, MUTANTS } from "../../src/fuzz/catalogue/mutants.js";
import { FLAG_NAMES, RELEASES } from "../../src/kafka/release.js";
import { VIOLATION_KINDS } from "../../src/oracle/violation.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { eosfuzz } from "../cli/cli-helpers.js";

describe("eosfuzz mutants", () => {
  it("--json lists at least 12 mutants with name, description, scenario and expectedKinds", () => {
    const r = eosfuzz(["mutants", "--json"]);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as {
      name: string;
      description: string;
      scenario: string;
      expectedKinds: string[];
    }[];
    expect(list.length).toBeGreaterThanOrEqual(12);
    expect(new Set(list.map((m) => m.name)).size).toBe(list.length);
    for (const m of list) {
      expect(m.name).toMatch(/^[a-z0-9-]+$/);
      expect(m.description.length).toBeGreaterThan(20);
      expect(() => resolveScenario(m.scenario)).not.toThrow();
      expect(m.expectedKinds.length).toBeGreaterThan(0);
      for (const k of m.expectedKinds) expect(VIOLATION_KINDS).toContain(k);
    }
  });

  it("every mutant names real flags and changes at least one of them on a node of its scenario", () => {
    for (const m of [...MUTANTS, ...EQUIVALENT_MUTANTS]) {
      const changed = Object.entries(m.overrides).filter(([flag, value]) => {
        expect(FLAG_NAMES).toContain(flag);
        const releases = new Set(resolveScenario(m.scenario).scenario.cluster.brokers.map((n) => n.release));
        return [...releases].some((rel) => RELEASES[rel][flag as keyof (typeof RELEASES)[typeof rel]] !== value);
      });
      expect(changed.length, m.name).toBeGreaterThan(0);
    }
  });

  it("the human listing names each mutant and the equivalent candidates with their reasons", () => {
    const r = eosfuzz(["mutants"]);
    expect(r.code).toBe(0);
    for (const m of MUTANTS) expect(r.stdout).toContain(m.name);
    for (const e of EQUIVALENT_MUTANTS) expect(r.stdout).toContain(e.why);
  });

  it("without --scenario, a mutant runs in its own scenario, with its own expectation", () => {
    const r = eosfuzz(["run", "--mutant", "consumer-ignores-aborted-index", "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      scenario: "kip-1228",
      mutant: "consumer-ignores-aborted-index",
      expectationMet: true,
    });
    expect(report.expectation).toMatchObject({ findAny: ["aborted-read"], within: 10 });
  });

  it("an unknown mutant is one line on stderr and exit 2", () => {
    const r = eosfuzz(["run", "--mutant", "no-such-mutant"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--mutant: expected one of the \d+ listed by eosfuzz mutants, found "no-such-mutant"$/m);
  });
});
