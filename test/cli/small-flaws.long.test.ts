import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { visibleLength } from "../../src/report/terminal-width.js";
import { eosfuzz, ROOT } from "./cli-helpers.js";

// Item 7 of issue 30 ("Triage as a Kafka engineer does it"): -h and -V, examples in --help that
// exist, no citation of a document the repository does not have, output fitted to the terminal.

const widest = (text: string) => Math.max(...text.split("\n").map(visibleLength));

describe("short flags", () => {
  it("-h is --help and -V is --version, for eosfuzz and for a command", () => {
    expect(eosfuzz(["-V"])).toEqual(eosfuzz(["--version"]));
    expect(eosfuzz(["-h"])).toMatchObject({ code: 0, stdout: eosfuzz(["--help"]).stdout });
    expect(eosfuzz(["run", "-h"]).stdout).toBe(eosfuzz(["run", "--help"]).stdout);
    // After `--` a token is an argument, not a flag.
    expect(eosfuzz(["validate", "--", "-h"]).stdout).not.toContain("Examples:");
  });
});

describe("--help examples", () => {
  it("name files that are in the repository", () => {
    const commands = ["run", "replay", "shrink", "regress", "report", "bugs", "confirm", "conform"];
    const files = new Set<string>();
    for (const argv of [[], ...commands.map((c) => [c])]) {
      const help = eosfuzz([...argv, "--help"]).stdout;
      for (const m of help.matchAll(/\b(?:seeds|scenarios|examples)\/[\w./-]+\.(?:json|yaml)\b/g)) files.add(m[0]);
    }
    expect(files.size).toBeGreaterThan(0);
    for (const file of files) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });
});

describe("eosfuzz scenarios", () => {
  it("cites no KAFKA.md (not in the repository) and fits an 80-column terminal", () => {
    expect(existsSync(join(ROOT, "KAFKA.md"))).toBe(false);
    const json = eosfuzz(["scenarios", "--json"]).stdout;
    expect(json).not.toContain("KAFKA.md");
    const r = eosfuzz(["scenarios"], { env: { COLUMNS: "80" } });
    expect(r.code).toBe(0);
    expect(widest(r.stdout)).toBeLessThanOrEqual(80);
  });
});

describe("a run's output at the terminal's width", () => {
  const run = ["run", "--scenario", "kip-1228-gap", "--seed-start", "6", "--seeds", "1", "--workers", "0"];
  const args = [...run, "--no-shrink", "--no-progress"];

  it("fits 80 columns, table included; in a pipe without COLUMNS the lines stay whole", () => {
    const fitted = eosfuzz(args, { env: { COLUMNS: "80" } });
    expect(fitted.code).toBe(0);
    expect(fitted.stdout).toContain("│ kind");
    expect(widest(fitted.stdout)).toBeLessThanOrEqual(80);
    const whole = eosfuzz(args);
    expect(widest(whole.stdout)).toBeGreaterThan(80);
    // The replay command stays whole on one line, to be copied.
    expect(fitted.stdout).toMatch(/^ +replay: eosfuzz run --scenario kip-1228-gap --seed-start 6 --seeds 1$/m);
  });
});

describe("the exhaustive strategy's clean result", () => {
  it("says what was enumerated, not a random-sampling confidence", () => {
    const base = ["run", "--scenario", "kip-1228-gap-small", "--no-progress", "--no-shrink", "--workers", "0"];
    const exhaustive = eosfuzz([...base, "--strategy", "exhaustive", "--depth", "1"]);
    // Exit 1: depth 1 is too shallow for this scenario's stale marker, so its expectation is not met.
    expect(exhaustive.code, exhaustive.stderr).toBe(1);
    expect(exhaustive.stdout).not.toContain("95% confidence");
    expect(exhaustive.stdout).toMatch(
      /no violation in \d+ runs: every schedule with at most 1 deviation from the simplest schedule was run/,
    );
    const random = eosfuzz([...base, "--seeds", "3"]);
    expect(random.stdout).toContain("(95% confidence)");
  });
});

describe("files of eosfuzz where they do not belong (item 8)", () => {
  it("a run.json given as a scenario: one whole line saying what it is and what reads it, exit 2", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-runjson-"));
    const run = eosfuzz(["run", "--scenario", "kip-1228-gap-small", "--seeds", "2", "--no-progress", "--out", dir]);
    expect(run.code, run.stderr).toBeLessThanOrEqual(1);
    const r = eosfuzz(["run", "--scenario", join(dir, "run.json"), "--no-progress"]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /run\.json:1:1: expected a scenario file .*found the run report \(run\.json\) of a run of scenario kip-1228-gap-small: eosfuzz report reads it, and its scenario is \S+kip-1228-gap-small\.yaml$/,
    );
    expect(lines[0]).not.toContain("...");
  });

  it("a resumed run whose results.jsonl header is corrupt names the file and the field, not a flag", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-resume-"));
    eosfuzz(["run", "--scenario", "kip-1228-gap-small", "--seeds", "2", "--no-progress", "--no-shrink", "--out", dir]);
    const file = join(dir, "results.jsonl");
    const [header, ...rest] = readFileSync(file, "utf8").split("\n");
    writeFileSync(file, [header?.replace('"seeds":2', '"seeds":-5'), ...rest].join("\n"));
    const r = eosfuzz(["run", "--resume", dir, "--no-progress"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`eosfuzz: ${file} args.seeds: expected an integer in [1, 100000000], found -5\n`);
  });
});
