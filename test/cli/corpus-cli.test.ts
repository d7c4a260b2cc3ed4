import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RunReport } from "../../src/report/run-report.js";
import { adversarialGapYaml } from "../fuzz/adversarial-gap.js";
import { eosfuzz } from "./cli-helpers.js";

const tmp = () => mkdtempSync(join(tmpdir(), "eosfuzz-corpus-"));
/** The coverage strategy aims late marker copies as network duplicates: kip-1228-gap under the adversarial model. */
const gapFile = join(tmp(), "kip-1228-gap-adversarial.yaml");
writeFileSync(gapFile, adversarialGapYaml());
const coverage = (corpus: string, o: { seeds?: number; seedStart?: number; workers?: number; extra?: string[] } = {}) =>
  eosfuzz([
    "run",
    ...(o.extra?.includes("--scenario") ? [] : ["--scenario", gapFile]),
    "--strategy",
    "coverage",
    "--seeds",
    String(o.seeds ?? 24),
    "--seed-start",
    String(o.seedStart ?? 3_000_000),
    "--workers",
    String(o.workers ?? 1),
    "--no-shrink",
    "--json",
    "--corpus",
    corpus,
    ...(o.extra ?? []),
  ]);
const report = (stdout: string) => JSON.parse(stdout) as RunReport;

describe("eosfuzz run --corpus (coverage across campaigns)", () => {
  it("the first campaign creates the corpus; the next starts from its tapes, the same way on 1 and 2 workers", () => {
    const dir = tmp();
    const file = join(dir, "gap.corpus.json");
    const first = coverage(file);
    expect(first.code).toBe(0); // within 24 runs, aimed late marker copies meet the scenario's expectation (a stale marker)
    expect(report(first.stdout).strategy.summary).toMatch(
      /\(corpus .*gap\.corpus\.json: started from 0 kept tapes, left [1-9]\d* and \d+ targets not aimed at yet\)/,
    );
    const saved = readFileSync(file, "utf8");
    const kept = (JSON.parse(saved) as { entries: unknown[] }).entries.length;
    expect(kept).toBeGreaterThan(0);

    // Two campaigns from the same corpus content: identical findings whatever the worker count.
    const copy = join(dir, "copy.corpus.json");
    writeFileSync(copy, saved);
    const one = coverage(file, { seedStart: 4_000_000 });
    const two = coverage(copy, { seedStart: 4_000_000, workers: 2 });
    expect(two.code).toBe(one.code);
    expect(report(one.stdout).strategy.summary).toContain(`started from ${kept} kept tapes`);
    const found = (r: RunReport) =>
      JSON.stringify([
        r.violations.map((v) => `${v.seed}:${v.kind}:${v.traceHash}`),
        r.statistics.coverage,
        r.strategy.coverage,
      ]);
    expect(found(report(two.stdout))).toEqual(found(report(one.stdout)));
    expect(report(one.stdout).violations.length).toBeGreaterThan(0); // warm, 24 runs find the stale marker
    expect(readFileSync(copy, "utf8")).toBe(readFileSync(file, "utf8"));
  });

  it("refuses a corpus of another scenario, a damaged file, or a strategy without a corpus, with one line and exit 2, leaving the file as it was", () => {
    const dir = tmp();
    const file = join(dir, "gap.corpus.json");
    expect(coverage(file, { seeds: 4, seedStart: 2_000_000 }).code).toBe(0); // this campaign's first run finds the stale marker
    const before = readFileSync(file, "utf8");

    const other = coverage(file, { extra: ["--scenario", "kip-1228"] });
    expect(other.code).toBe(2);
    expect(other.stderr.trim().split("\n")).toHaveLength(1);
    expect(other.stderr).toMatch(
      /gap\.corpus\.json:1:\d+ scenario: expected a corpus of kip-1228 [0-9a-f]{16} .*found one of kip-1228-gap/,
    );
    expect(readFileSync(file, "utf8")).toBe(before);

    const damaged = join(dir, "damaged.json");
    writeFileSync(damaged, before.slice(0, before.length / 2));
    const cut = coverage(damaged);
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(/damaged\.json:1:\d+: expected a complete JSON corpus file/);
    expect(readFileSync(damaged, "utf8")).toBe(before.slice(0, before.length / 2));

    const random = eosfuzz(["run", "--seeds", "2", "--corpus", file]);
    expect(random.code).toBe(2);
    expect(random.stderr).toMatch(/--corpus: expected --strategy coverage/);
    const shard = coverage(file, { extra: ["--shard", "0/2"] });
    expect(shard.code).toBe(2);
    expect(shard.stderr).toMatch(/--corpus: expected no --shard with --corpus/);
    expect(readFileSync(file, "utf8")).toBe(before);
  });
});
