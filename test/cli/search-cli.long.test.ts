import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../../src/report/run-report.js";
import { eosfuzz, ROOT } from "./cli-helpers.js";

const tmp = () => mkdtempSync(join(tmpdir(), "eosfuzz-search-"));
const json = (stdout: string) => JSON.parse(stdout) as RunReport;
/** A report without its wall-clock parts. */
function timeless(r: RunReport): string {
  const { wallMs: _w, eventsPerSecond: _e, seedsPerSecond: _s, startedAt: _t, ...rest } = r;
  for (const s of rest.statistics.signatures) s.wallMsToFirstHit = null;
  return JSON.stringify(rest);
}

describe("eosfuzz run: scale and search flags", () => {
  it("--shard 0/2 and 1/2 merged with eosfuzz merge give the unsharded report (timings aside)", () => {
    const dir = tmp();
    const whole = eosfuzz(["run", "--seeds", "16", "--seed-start", "20", "--workers", "1", "--no-shrink", "--json"]);
    expect(whole.code).toBe(0);
    for (const i of [0, 1]) {
      const r = eosfuzz([
        "run",
        "--seeds",
        "16",
        "--seed-start",
        "20",
        "--workers",
        "1",
        "--no-shrink",
        "--shard",
        `${i}/2`,
        "--out",
        join(dir, `s${i}`),
        "--json",
      ]);
      expect(r.code).toBe(0); // a shard judges only what it can: nothing unexpected
      expect(json(r.stdout).shard).toEqual({ index: i, count: 2, firstSeed: 20 + 8 * i, lastSeed: 27 + 8 * i });
    }
    const merged = eosfuzz(["merge", join(dir, "s1/run.json"), join(dir, "s0/run.json"), "--out", join(dir, "merged")]);
    expect(merged.code).toBe(0);
    expect(readdirSync(join(dir, "merged")).sort()).toEqual(
      expect.arrayContaining(["index.html", "junit.xml", "run.json"]),
    );
    const mergedReport = json(readFileSync(join(dir, "merged/run.json"), "utf8"));
    expect(mergedReport.violationsByKind["stale-marker"]).toBeGreaterThan(0);
    expect(timeless(mergedReport)).toEqual(timeless(json(whole.stdout)));
  });

  it("merge refuses an incomplete or mixed set of shards with one line and exit 2", () => {
    const dir = tmp();
    const a = eosfuzz([
      "run",
      "--seeds",
      "4",
      "--workers",
      "0",
      "--no-shrink",
      "--shard",
      "0/2",
      "--out",
      join(dir, "a"),
    ]);
    const b = eosfuzz([
      "run",
      "--seeds",
      "6",
      "--workers",
      "0",
      "--no-shrink",
      "--shard",
      "1/2",
      "--out",
      join(dir, "b"),
    ]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const missing = eosfuzz(["merge", join(dir, "a/run.json")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
    expect(missing.stderr).toMatch(/expected all 2 shards, missing shard 1/);
    const mixed = eosfuzz(["merge", join(dir, "a/run.json"), join(dir, "b/run.json")]);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toMatch(/not a shard of the same campaign .*seedsPlanned: expected 4/);
  });

  it("--strategy exhaustive proves kip-1228-small clean and says so in the JSON; too shallow, its coverage goal fails it", () => {
    const r = eosfuzz(["run", "--scenario", "kip-1228-small", "--strategy", "exhaustive", "--depth", "3", "--json"]);
    expect(r.code).toBe(0);
    const report = json(r.stdout);
    expect(report.strategy.exhaustive).toMatchObject({ exhaustive: true, depth: 3, depthCompleted: 3 });
    // 517 at depth 3 (878 under the adversarial network, whose marker requests could also be duplicated)
    expect(report.strategy.exhaustive?.schedules).toBeGreaterThan(500);
    expect(report.strategy.exhaustive?.states).toBeGreaterThan(500); // 516
    expect(report.strategy.summary).toMatch(
      /^exhaustive: clean up to 3 deviations from the simplest schedule \([\d,]+ schedules, [\d,]+ distinct states/,
    );
    expect(report.coverage.goals[0]?.reached).toBe(true);
    const shallow = eosfuzz([
      "run",
      "--scenario",
      "kip-1228-small",
      "--strategy",
      "exhaustive",
      "--depth",
      "2",
      "--json",
    ]);
    expect(shallow.code).toBe(1);
    const notMet = json(shallow.stdout);
    expect(notMet.expectationMet).toBe(false);
    expect(notMet.coverage.goals).toMatchObject([
      { name: "a late marker copy reached a 4.2.1 leader while a newer transaction was open", reached: false },
    ]);
    // Nothing else fails it: no violation, only the goal's check is unmet.
    expect(notMet.expectationChecks.filter((c) => !c.met).map((c) => c.clause)).toEqual(["other"]);
    expect(notMet.violations).toEqual([]);
  });

  it("an exhaustive counterexample is saved as a seed file that eosfuzz replay reproduces", () => {
    const dir = tmp();
    const ex = eosfuzz([
      "run",
      "--scenario",
      "kip-1228-gap-small",
      "--strategy",
      "exhaustive",
      "--no-shrink",
      "--save-failures",
      join(dir, "ex"),
      "--json",
    ]);
    expect(ex.code).toBe(0);
    const v = json(ex.stdout).violations[0];
    expect(v?.kind).toBe("stale-marker");
    expect(Object.keys(v?.tape ?? {}).length).toBeGreaterThan(0);
    const files = readdirSync(join(dir, "ex"));
    expect(files).toHaveLength(1);
    const replay = eosfuzz(["replay", join(dir, "ex", files[0] as string), "--json"]);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout).status).toBe("reproduced");
  });

  it("a coverage goal no run reached fails the run with a message naming the goal", () => {
    const dir = tmp();
    const text = readFileSync(join(ROOT, "scenarios/kip-1228-small.yaml"), "utf8").replace(
      "coverage:\n  goals:\n",
      'coverage:\n  goals:\n    - name: a marker reached a 4.1 leader\n      marker: { release: "4.1" }\n',
    );
    writeFileSync(join(dir, "goal.yaml"), text);
    const r = eosfuzz(["run", "--scenario", join(dir, "goal.yaml"), "--seeds", "3", "--workers", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /NOT MET coverage goal "a marker reached a 4.1 leader" \(marker release=4.1\) never reached in 3 seeds \(no state this scenario can produce matches it\)/,
    );
    const bad = text.replace(
      'marker: { release: "4.1" }',
      'marker: { release: "4.1" }\n      event: marker-sending-abandoned',
    );
    writeFileSync(join(dir, "bad.yaml"), bad);
    const b = eosfuzz(["run", "--scenario", join(dir, "bad.yaml"), "--seeds", "1"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(
      /bad\.yaml:\d+:\d+ coverage\.goals\[0\]: expected exactly one of marker, offsetsMarker or event/,
    );
  });

  it("a run past --seed-timeout is killed, reported as model-timeout with its replay command, and the campaign goes on", () => {
    const r = eosfuzz(["run", "--seeds", "2", "--workers", "1", "--seed-timeout", "1ms", "--json"]);
    expect(r.code).toBe(1);
    const report = json(r.stdout);
    expect(report.seedsRun).toBe(2);
    expect(report.violations.map((v) => [v.kind, v.seed])).toEqual([
      ["model-timeout", 0],
      ["model-timeout", 1],
    ]);
    expect(report.violations[1]?.replay).toBe("eosfuzz run --scenario kip-1228-gap --seed-start 1 --seeds 1");
    // Kept apart from protocol violations: its own reason, its own check, its own count.
    expect(report.expectationReasons).toEqual([
      "expected stale-marker within 200 seeds, found none in 2 seeds",
      "model failures (bugs in eosfuzz, not in Kafka): model-timeout x2 (first at seed 0)",
    ]);
    expect(report.modelFailures).toEqual({ violations: 2, seeds: [0, 1] });
    expect(report.expectationChecks.find((c) => c.clause === "nothing-unexpected")?.met).toBe(true);
    expect(report.expectationChecks.filter((c) => c.clause === "other").map((c) => [c.name, c.met])).toEqual([
      ["the model runs without failing (model-error, model-timeout)", false],
    ]);
  });

  it("--time-budget stops starting runs and says so", () => {
    // kip-1228 has no coverage goals, so a run cut short by the budget still meets its expectation
    // however few seeds a loaded machine gets through in the second.
    const budget = eosfuzz([
      "run",
      "--scenario",
      "kip-1228",
      "--seeds",
      "100000",
      "--time-budget",
      "1s",
      "--workers",
      "1",
      "--json",
    ]);
    const b = json(budget.stdout);
    expect(b.stoppedBy).toBe("time-budget");
    expect(b.seedsRun).toBeGreaterThan(0);
    expect(b.seedsRun).toBeLessThan(100_000);
    // Stopping on the budget is no failure of its own: the verdict is on the seeds that ran.
    expect(b.violations).toEqual([]);
    expect(b.expectationMet).toBe(true);
    expect(budget.code).toBe(0);
  });

  it.each([
    [["--shard", "2/2"], /--shard: expected I\/N with 0 <= I < N/],
    [["--time-budget", "soon"], /--time-budget: expected a duration such as 90s/],
    [
      ["--strategy", "genetic"],
      /--strategy: expected one of random, swarm, pct, coverage, exhaustive, found "genetic"$/m,
    ],
    [["--strategy", "exhaustive", "--shard", "0/2"], /expected no --shard with --strategy exhaustive/],
    [["--workers", "-1"], /--workers: expected an integer in \[0, 256\]/],
  ])("bad search flags %j are one line and exit 2", (flags, message) => {
    const r = eosfuzz(["run", "--seeds", "1", ...(flags as string[])]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message as RegExp);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
});
