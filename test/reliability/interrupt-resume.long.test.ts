import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunReport } from "../../src/report/read-run-report.js";
import { ROOT, startEosfuzz as start, waitFor } from "../cli/cli-helpers.js";

// Real processes, real signals: the built CLI (npm test builds first) is started, signalled with
// kill(2) and its files are read back as a user would.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-interrupt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until results.jsonl of `out` holds at least `runs` finished runs (its lines are streamed as seeds finish). */
async function untilResults(out: string, runs: number): Promise<void> {
  const file = join(out, "results.jsonl");
  for (let waitedMs = 0; waitedMs < 60_000; waitedMs += 20) {
    if (existsSync(file)) {
      const lines = readFileSync(file, "utf8").split("\n");
      if (lines.filter((l) => l.startsWith('{"index"')).length >= runs) return;
    }
    await sleep(20);
  }
  throw new Error(`results.jsonl of ${out} never reached ${runs} runs`);
}

/** Every line of results.jsonl parses: a header, coverage point keys, one line per finished run. */
function resultLines(out: string): { header: Record<string, unknown>; runs: { seed: number }[] } {
  const text = readFileSync(join(out, "results.jsonl"), "utf8");
  expect(text.endsWith("\n")).toBe(true);
  const lines = text
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const [header, ...rest] = lines;
  return { header: header as Record<string, unknown>, runs: rest.filter((l) => !("point" in l)) as { seed: number }[] };
}

// The run is signalled once its 20th result is streamed, so it only has to outlast the signal's
// delivery: 380 seeds still to run take seconds on any machine (about 7 ms a seed on one core of the
// 2-core machine that measured it), and kip-1228-gap shows stale markers in about a fifth of its seeds.
const CAMPAIGN_SEEDS = 400;
const RESULTS_BEFORE_SIGNAL = 20;
const CAMPAIGN = [
  "run",
  "--scenario",
  "kip-1228-gap",
  "--seeds",
  String(CAMPAIGN_SEEDS),
  "--workers",
  "1",
  "--no-shrink",
  "--no-progress",
  "--json",
];

describe("interrupting a run (real signals on real processes)", () => {
  it("SIGINT mid-run: exit 130, a partial report with interrupted: true; --resume then completes the same seeds as an uninterrupted run", async () => {
    const out = join(dir, "interrupted");
    const run = start([...CAMPAIGN, "--out", out]);
    await untilResults(out, RESULTS_BEFORE_SIGNAL);
    run.child.kill("SIGINT");
    const first = await run.done;
    expect(first.code).toBe(130);
    const partial = readRunReport(join(out, "run.json"));
    expect(partial.interrupted).toBe(true);
    expect(partial.seedsRun).toBeGreaterThan(0);
    expect(partial.seedsRun).toBeLessThan(CAMPAIGN_SEEDS);
    expect(partial.completedSeeds).toEqual([[0, partial.seedsRun - 1]]);
    // Streamed as they finished: exactly the seeds the report counts, in order.
    const streamed = resultLines(out);
    expect(streamed.header.format).toBe("eosfuzz-results");
    expect(streamed.runs.map((r) => r.seed)).toEqual(Array.from({ length: partial.seedsRun }, (_, i) => i));

    const [resumed, whole] = await Promise.all([
      start(["run", "--resume", out, "--workers", "2", "--no-shrink", "--no-progress", "--json"]).done,
      start(CAMPAIGN).done,
    ]);
    expect(resumed.stderr).toBe("");
    expect(resumed.code).toBe(whole.code);
    const a = JSON.parse(resumed.stdout);
    const b = JSON.parse(whole.stdout);
    expect(a.interrupted).toBe(false);
    expect(a.seedsRun).toBe(CAMPAIGN_SEEDS);
    expect(a.completedSeeds).toEqual([[0, CAMPAIGN_SEEDS - 1]]);
    expect(a.violations.length).toBeGreaterThan(0);
    expect(a.violations).toEqual(b.violations);
    expect(a.failingSeeds).toEqual(b.failingSeeds);
    expect([a.events, a.virtualTimeMs, a.coverage]).toEqual([b.events, b.virtualTimeMs, b.coverage]);
    // No seed run twice, none skipped: results.jsonl holds each seed once.
    expect(resultLines(out).runs.map((r) => r.seed)).toEqual(Array.from({ length: CAMPAIGN_SEEDS }, (_, i) => i));
    expect(readRunReport(join(out, "run.json")).interrupted).toBe(false);
  }, 120_000);

  it("a second SIGINT exits at once, results.jsonl still valid up to its last line; --resume continues from it", async () => {
    const out = join(dir, "twice");
    const run = start([
      "run",
      "--scenario",
      "kip-1228-gap-small",
      "--seeds",
      "100000",
      "--workers",
      "2",
      "--no-shrink",
      "--no-progress",
      "--out",
      out,
    ]);
    // Signalled once its first run is written (not after a fixed delay: a loaded machine may take
    // longer to start, and then there is no results.jsonl to check).
    await untilResults(out, 1);
    const signalledAt = Date.now();
    run.child.kill("SIGINT");
    await sleep(50);
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.code).toBe(130);
    expect(r.exitedAt - signalledAt).toBeLessThan(1_500);
    const { runs } = resultLines(out);
    expect(runs.map((x) => x.seed)).toEqual(Array.from({ length: runs.length }, (_, i) => i));
    // The campaign is long: resume it for a moment and stop it with SIGTERM, which is handled the same way.
    const resumed = start(["run", "--resume", out, "--workers", "1", "--no-shrink", "--no-progress", "--json"]);
    await sleep(1_500);
    resumed.child.kill("SIGTERM");
    const second = await resumed.done;
    expect(second.code).toBe(130);
    const report = JSON.parse(second.stdout);
    expect(report.interrupted).toBe(true);
    expect(report.seedsRun).toBeGreaterThanOrEqual(runs.length);
    expect(report.completedSeeds).toEqual([[0, report.seedsRun - 1]]);
    expect(resultLines(out).runs).toHaveLength(report.seedsRun);
  }, 30_000);

  it("a run killed outright (SIGKILL) leaves run.json either absent or whole, never half written", async () => {
    // A writer that rewrites a large report over and over, killed at moments that land mid-write.
    const target = join(dir, "atomic", "run.json");
    const writer = `import { writeJsonAtomic } from ${JSON.stringify(join(ROOT, "dist/common/write-files.js"))};
      const big = { violations: Array.from({ length: 40000 }, (_, i) => ({ seed: i, summary: "x".repeat(50) })) };
      for (let i = 0; ; i++) writeJsonAtomic(${JSON.stringify(target)}, { ...big, i });`;
    let seenWhole = 0;
    for (let attempt = 0; attempt < 5; attempt++) {
      const child = spawn(process.execPath, ["--input-type=module", "-e", writer]);
      // The first kill waits for a first whole file (a loaded machine may take seconds to start
      // node), so at least one attempt reads a file; the later ones land at arbitrary moments.
      if (attempt === 0) await waitFor(() => existsSync(target), 20_000);
      await sleep(300 + attempt * 97);
      child.kill("SIGKILL");
      await new Promise((r) => child.on("close", r));
      if (!existsSync(target)) continue;
      const parsed = JSON.parse(readFileSync(target, "utf8"));
      expect(parsed.violations).toHaveLength(40000);
      seenWhole++;
    }
    expect(seenWhole).toBeGreaterThan(0);
  }, 60_000);
});
