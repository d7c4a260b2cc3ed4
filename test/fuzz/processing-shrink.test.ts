import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { checkDeterminism } from "../../src/fuzz/run/determinism-check.js";
import { MUTANTS } from "../../src/fuzz/catalogue/mutants.js";
import { replay } from "../../src/fuzz/seeds/replay.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { renderSeedFile } from "../../src/fuzz/seeds/seed-file.js";
import { targetOf } from "../../src/fuzz/shrink/shrink.js";
import { shrinkOne, shrunkSeedFile } from "../../src/fuzz/shrink/shrink-seed.js";
import type { ReleaseFlags } from "../../src/kafka/release.js";
import type { RunReport } from "../../src/report/run-report.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { eosfuzz } from "../cli/cli-helpers.js";

/**
 * Shrinking and replay of processor runs (issue 17): a failing run shrinks to a smaller schedule
 * that fails the same way, and the shrunk tape, saved as a seed file, replays to the same trace.
 */
function shrinkAndReplay(scenario: string, seed: number, overrides: Partial<ReleaseFlags>, kind: string, at?: string) {
  const loaded = resolveScenario(scenario);
  const run = runSeed(runConfigFor(loaded, overrides), { seed }, { recordTape: true });
  const violation = run.violations.find((v) => v.kind === kind && (at === undefined || v.partition === at));
  if (!violation) throw new Error(`seed ${seed} of ${scenario} shows no ${kind}${at ? ` at ${at}` : ""}`);
  const summary = shrinkOne({
    scenario: loaded,
    overrides,
    tape: run.tape ?? {},
    seed,
    target: targetOf(violation),
    budgetMs: 60_000,
  });
  const path = join(mkdtempSync(join(tmpdir(), "eosfuzz-processing-shrink-")), "shrunk.yaml");
  writeFileSync(path, renderSeedFile(shrunkSeedFile(summary, overrides, null, path)));
  return { summary, replayed: replay(path) };
}

describe("shrinking and replaying processor runs", () => {
  it("eos-processor-gap: a stale marker at __consumer_offsets-0 shrinks to one at __consumer_offsets-0, which replays with the same trace hash", () => {
    // Seed 1: a late copy of a TV2 marker reaches the 4.1 leader of the group's offsets partition
    // (WriteTxnMarkers v1, legacy rule) while the processor's next transaction holds pending offsets.
    const { summary, replayed } = shrinkAndReplay("eos-processor-gap", 1, {}, "stale-marker", "__consumer_offsets-0");
    // A stale marker at a data partition of the same broker is another failure: the target keeps the partition.
    expect(summary.violation.partition).toBe("__consumer_offsets-0");
    expect(summary.violation.broker).toBe("broker-2");
    expect(summary.after.events).toBeLessThan(summary.before.events / 4);
    expect(summary.after.transactions).toBeLessThan(summary.before.transactions);
    expect(summary.deterministic).toBe(true);
    // The minimal counterexample names the offsets partition the marker was stale at.
    expect(summary.story.join("\n")).toContain("__consumer_offsets-0");
    expect(replayed.status).toBe("reproduced");
    expect(replayed.traceHash).toBe(summary.traceHash);
    expect(replayed.violations.some((v) => v.kind === "stale-marker" && v.partition === "__consumer_offsets-0")).toBe(
      true,
    );
  }, 120_000);

  it("mutant processor-no-seek-after-abort: lost-processing shrinks, and the shrunk tape replays to it", () => {
    const mutant = MUTANTS.find((m) => m.name === "processor-no-seek-after-abort");
    expect(mutant?.scenario).toBe("eos-processor");
    const overrides = mutant?.overrides ?? {};
    const { summary, replayed } = shrinkAndReplay("eos-processor", 0, overrides, "lost-processing");
    expect(summary.after.events).toBeLessThan(summary.before.events / 4);
    expect(summary.deterministic).toBe(true);
    expect(replayed.status).toBe("reproduced");
    expect(replayed.traceHash).toBe(summary.traceHash);
    expect(replayed.violations.map((v) => v.kind)).toContain("lost-processing");
  }, 120_000);

  it.each(["eos-processor", "eos-processor-gap", "kip-447-zombie"])(
    "%s is deterministic: two runs of a seed give the same trace, event for event",
    (name) => {
      const config = runConfigFor(resolveScenario(name));
      for (const seed of [0, 1]) {
        const verdict = checkDeterminism(config, { seed });
        expect(verdict.deterministic, `${name} seed ${seed}`).toBe(true);
        // The group side is in the trace whose determinism was checked.
        if (verdict.deterministic) expect(verdict.events).toBeGreaterThan(1_000);
      }
    },
    60_000,
  );

  it("eosfuzz run --check-determinism on kip-447-zombie finds no divergence", () => {
    const r = eosfuzz([
      "run",
      "--scenario",
      "kip-447-zombie",
      "--seeds",
      "3",
      "--no-shrink",
      "--workers",
      "0",
      "--check-determinism",
      "--json",
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as RunReport;
    expect(report.determinism?.checked).toBe(3);
    expect(report.determinism?.mismatches).toEqual([]);
  }, 120_000);
});
