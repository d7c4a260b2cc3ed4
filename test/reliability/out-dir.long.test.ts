import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunReport } from "../../src/report/read-run-report.js";
import { eosfuzz, startEosfuzz as start } from "../cli/cli-helpers.js";

// Items 4 and 5 of "Trustworthy in CI and on long campaigns": an --out directory belongs to one
// run (refused when it holds one, locked while it is written, resumed by a restarted shard with
// --continue), and what is read back (results.jsonl, shard reports) is checked before it is trusted.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-outdir-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function loggedSeeds(out: string): number[] {
  return readFileSync(join(out, "results.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l.startsWith('{"index"'))
    .map((l) => JSON.parse(l).seed as number);
}

const SMALL = ["run", "--scenario", "kip-1228-small", "--seeds", "5", "--workers", "0", "--no-progress"];

describe("an --out directory is one run's", () => {
  it("a second run --out on a directory holding a run is refused with one line; --continue resumes it", () => {
    const out = join(dir, "second");
    const first = eosfuzz([...SMALL, "--out", out]);
    expect(first.code).not.toBe(2);
    const before = readFileSync(join(out, "results.jsonl"), "utf8");
    const second = eosfuzz([...SMALL, "--out", out]);
    expect(second.code).toBe(2);
    expect(second.stdout).toBe("");
    expect(second.stderr).toBe(
      `eosfuzz: ${out}: expected a new or empty directory for --out, found the results of an earlier run (continue it with eosfuzz run --resume ${out}, add --continue to resume it whenever it holds this campaign, or choose another --out)\n`,
    );
    expect(readFileSync(join(out, "results.jsonl"), "utf8")).toBe(before);
    const again = eosfuzz([...SMALL, "--out", out, "--continue", "--json"]);
    expect(again.code).toBe(first.code);
    expect(JSON.parse(again.stdout).seedsRun).toBe(5);
    expect(loggedSeeds(out)).toEqual([0, 1, 2, 3, 4]);
    const other = eosfuzz(["run", "--scenario", "kip-1228-small", "--seeds", "6", "--out", out, "--continue"]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /results\.jsonl args\.seeds: expected a run of this campaign to continue \(--seeds 6\), found one with 5; give another --out\n$/,
    );
  });

  it("two processes cannot write one directory: --resume of a directory in use is refused, naming who holds it", async () => {
    const out = join(dir, "in-use");
    const run = start([
      "run",
      "--scenario",
      "kip-1228-gap-small",
      "--seeds",
      "100000",
      "--workers",
      "1",
      "--no-shrink",
      "--no-progress",
      "--out",
      out,
    ]);
    for (let i = 0; i < 400 && !(existsSync(join(out, "results.jsonl")) && loggedSeeds(out).length > 2); i++)
      await sleep(25);
    const resume = eosfuzz(["run", "--resume", out, "--no-progress"]);
    expect(resume.code).toBe(2);
    expect(resume.stderr).toMatch(
      new RegExp(
        `^eosfuzz: ${out}: expected a directory no other eosfuzz is writing, found it in use by pid ${run.child.pid} on ${hostname()} since \\S+ \\(eosfuzz run --out ${out}\\); if that process is gone, delete ${out}/\\.eosfuzz\\.lock\\n$`,
      ),
    );
    // Killed outright, it leaves its lock behind: a process of this host that is gone no longer holds it.
    run.child.kill("SIGKILL");
    await run.done;
    expect(existsSync(join(out, ".eosfuzz.lock"))).toBe(true);
    const resumed = start(["run", "--resume", out, "--workers", "1", "--no-shrink", "--no-progress", "--json"]);
    await sleep(1_500);
    resumed.child.kill("SIGINT");
    const r = await resumed.done;
    expect(r.code).toBe(130);
    expect(JSON.parse(r.stdout).interrupted).toBe(true);
    expect(existsSync(join(out, ".eosfuzz.lock"))).toBe(false);
  }, 60_000);

  it("a shard restarted after its pod was evicted (SIGKILL) resumes its own work with --continue", async () => {
    const shard = [
      "run",
      "--scenario",
      "kip-1228-gap",
      "--seeds",
      "800",
      "--shard",
      "1/4",
      "--workers",
      "1",
      "--no-shrink",
      "--no-progress",
      "--json",
    ];
    const out = join(dir, "shard-1");
    const evicted = start([...shard, "--out", out, "--continue"]);
    for (let i = 0; i < 400 && !(existsSync(join(out, "results.jsonl")) && loggedSeeds(out).length > 20); i++)
      await sleep(25);
    evicted.child.kill("SIGKILL");
    await evicted.done;
    const done = loggedSeeds(out);
    expect(done.length).toBeGreaterThan(0);
    expect(done.length).toBeLessThan(200);
    const [retried, whole] = await Promise.all([
      start([...shard, "--out", out, "--continue"]).done,
      start([...shard, "--out", join(dir, "shard-1-whole")]).done,
    ]);
    expect(retried.code).toBe(whole.code);
    const a = JSON.parse(retried.stdout);
    const b = JSON.parse(whole.stdout);
    expect(a.seedsRun).toBe(200);
    expect(a.completedSeeds).toEqual([[200, 399]]);
    expect(a.violations.length).toBeGreaterThan(0);
    expect(a.violations).toEqual(b.violations);
    expect(loggedSeeds(out)).toEqual(Array.from({ length: 200 }, (_, i) => 200 + i));
  }, 120_000);
});

describe("results and reports are checked before they are trusted", () => {
  const out = join(dir, "checked");
  const results = join(out, "results.jsonl");
  const original = () => readFileSync(results, "utf8");
  let text = "";

  it("resume refuses results with more runs than the campaign's seeds, naming the line", () => {
    expect(eosfuzz([...SMALL, "--out", out]).code).not.toBe(2);
    text = original();
    const lines = text.trimEnd().split("\n");
    const header = JSON.parse(lines[0] as string);
    header.args.seeds = 3;
    writeFileSync(results, `${[JSON.stringify(header), ...lines.slice(1)].join("\n")}\n`);
    const r = eosfuzz(["run", "--resume", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/results\.jsonl:\d+:1: expected at most 3 runs \(seeds 0\.\.2\), found 5\n$/);
  });

  it("resume refuses lines out of order, naming the line", () => {
    const lines = text.trimEnd().split("\n");
    // Two adjacent run lines, so that each still follows the coverage points it refers to.
    const isRun = (i: number) => lines[i]?.startsWith('{"index"') === true;
    const a = lines.findIndex((_, i) => i > 0 && isRun(i) && isRun(i + 1));
    expect(a).toBeGreaterThan(0);
    const seed = JSON.parse(lines[a] as string).seed as number;
    [lines[a], lines[a + 1]] = [lines[a + 1] as string, lines[a] as string];
    writeFileSync(results, `${lines.join("\n")}\n`);
    const r = eosfuzz(["run", "--resume", out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `eosfuzz: ${results}:${a + 1}:1 index: expected the run of seed ${seed} next (runs are logged in order from seed 0), found seed ${seed + 1}\n`,
    );
  });

  describe("merge", () => {
    const shards = [0, 1].map((i) => join(dir, `merge-${i}`));
    const edited = join(dir, "edited-run.json");
    const edit = (change: (report: Record<string, unknown>) => void) => {
      const report = JSON.parse(readFileSync(join(shards[1] as string, "run.json"), "utf8"));
      change(report);
      writeFileSync(edited, JSON.stringify(report));
      return eosfuzz(["merge", join(shards[0] as string, "run.json"), edited]);
    };

    it("refuses a shard with seeds outside its slice", () => {
      for (const [i, out] of shards.entries())
        expect(
          eosfuzz([
            "run",
            "--scenario",
            "kip-1228-gap",
            "--seeds",
            "60",
            "--shard",
            `${i}/2`,
            "--workers",
            "0",
            "--no-shrink",
            "--no-progress",
            "--out",
            out,
          ]).code,
        ).not.toBe(2);
      expect(eosfuzz(["merge", ...shards.map((s) => join(s, "run.json"))]).code).toBe(0);
      // A violation of shard 0's slice (seed 4) in shard 1's report.
      const other = readRunReport(join(shards[0] as string, "run.json")).violations[0];
      expect(other?.seed).toBeLessThan(30);
      const violation = edit((r) => {
        r.violations = [other, ...(r.violations as unknown[])];
      });
      expect(violation.code).toBe(2);
      expect(violation.stderr).toBe(
        `eosfuzz: ${edited} violations[0].seed: expected a seed the shard ran (its slice of shard 1/2: seeds 30..59), found ${other?.seed}\n`,
      );
      const ranges = edit((r) => {
        r.completedSeeds = [[0, 29]];
      });
      expect(ranges.stderr).toBe(
        `eosfuzz: ${edited} completedSeeds[0]: expected seeds in its slice of shard 1/2: seeds 30..59, found 0..29\n`,
      );
    });

    it("refuses reports of another tool or another version, saying what it accepts and why", () => {
      const tool = edit((r) => {
        r.tool = { name: "otherfuzz", version: "1.0.0" };
      });
      expect(tool.code).toBe(2);
      expect(tool.stderr).toBe(
        `eosfuzz: ${edited} tool.name: expected a run report of eosfuzz, found one of "otherfuzz"\n`,
      );
      const version = edit((r) => {
        r.tool = { name: "eosfuzz", version: "0.0.1" };
      });
      expect(version.code).toBe(2);
      expect(version.stderr).toMatch(
        /^eosfuzz: .* tool\.version: expected a shard run by eosfuzz \d+\.\d+\.\d+\S*, this version \(another version models Kafka differently, so its results do not add up with this one's: merge with the version that ran the shards\), found "0\.0\.1"\n$/,
      );
      expect(readRunReport(join(shards[0] as string, "run.json")).tool.name).toBe("eosfuzz");
    });
  });
});
