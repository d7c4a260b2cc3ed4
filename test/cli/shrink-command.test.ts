import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eosfuzz, ROOT } from "./cli-helpers.js";

const GAP_SEED = join(ROOT, "seeds/kip-1228-gap.seed-6.json");

describe("eosfuzz shrink", () => {
  it("shrinks a saved failure, prints before/after and the story, and saves a seed file that replays", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-shrink-"));
    const input = join(dir, "gap.json");
    copyFileSync(GAP_SEED, input);
    const out = join(dir, "gap.min.json");
    const r = eosfuzz(["shrink", input, "--out", out, "--budget-ms", "30000"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/shrunk stale-marker at broker-\d/);
    expect(r.stdout).toMatch(/simulation events +\d+ +\d+/);
    expect(r.stdout).toMatch(/minimal counterexample/);
    expect(r.stdout).toMatch(/=> stale-marker/);
    const saved = JSON.parse(readFileSync(out, "utf8"));
    expect(saved.seed).toBeNull();
    const replay = eosfuzz(["replay", out, "--json"]);
    expect(replay.code).toBe(0);
    const result = JSON.parse(replay.stdout);
    expect(result.reproduced).toBe(true);
    expect(result.violations.some((v: { kind: string }) => v.kind === "stale-marker")).toBe(true);
  });

  it("calls the story minimal only at a fixpoint: a spent budget says what is left and how to go on", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-shrink-budget-"));
    const out = join(dir, "gap.partial.json");
    // One millisecond: the shrink stops after its first candidate, far from a fixpoint.
    const r = eosfuzz(["shrink", GAP_SEED, "--out", out, "--budget-ms", "1"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/minimal counterexample/);
    expect(r.stdout).toMatch(/shrunk, budget spent: \d+ faults? and [\d,]+ events left \(not minimal\)/);
    const further = /shrink further: (eosfuzz shrink \S+ --budget-ms \d+)/.exec(r.stdout);
    expect(further?.[1]).toBe(`eosfuzz shrink ${out} --budget-ms 10000`);
    // The command goes on from the saved tape (how far it gets depends on the machine's speed).
    const again = eosfuzz([...(further?.[1]?.split(" ").slice(1, 3) ?? []), "--budget-ms", "2000"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/shrunk stale-marker at broker-\d/);
  });

  it("a truncated seed file is one line and exit 2", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-shrink-bad-"));
    const bad = join(dir, "cut.json");
    const text = readFileSync(GAP_SEED, "utf8");
    writeFileSync(bad, text.slice(0, text.length >> 1));
    const r = eosfuzz(["shrink", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/cut\.json/);
  });
});

describe("eosfuzz run: automatic shrink and determinism check", () => {
  it("shrinks the first failure by default and reports it in --json; --check-determinism runs every seed twice", () => {
    const r = eosfuzz([
      "run",
      "--scenario",
      "kip-1228-gap",
      "--seeds",
      "10",
      "--seed-start",
      "20",
      "--check-determinism",
      "--json",
    ]);
    // Seed 20's stale marker is at the 4.1 leader, which one producer shows: the shrink reaches a fixpoint.
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.determinism).toEqual({ checked: 10, mismatches: [] });
    expect(report.shrunk.kind).toBe("stale-marker");
    expect(report.shrunk.after.events).toBeLessThan(report.shrunk.before.events / 4);
    expect(report.shrunk.story.at(-1)).toMatch(/=> stale-marker/);
  });

  it("--no-shrink leaves the report without a shrink", () => {
    const r = eosfuzz([
      "run",
      "--scenario",
      "kip-1228-gap",
      "--seeds",
      "3",
      "--seed-start",
      "4",
      "--no-shrink",
      "--json",
    ]);
    expect(JSON.parse(r.stdout).shrunk).toBeUndefined();
  });

  it("replay --html writes a self-contained page", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-replay-html-"));
    const page = join(dir, "replay.html");
    const r = eosfuzz(["replay", GAP_SEED, "--html", page]);
    expect(r.code).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(html).toMatch(/<svg/);
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(r.stdout).toMatch(/the story/);
  });
});
