import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { eosfuzz } from "./cli-helpers.js";

describe("eosfuzz run", () => {
  it("--json prints exactly one JSON object with the contract's fields", () => {
    const r = eosfuzz(["run", "--scenario", "kip-1228-gap", "--seeds", "40", "--seed-start", "10", "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    for (const field of [
      "schemaVersion",
      "scenario",
      "seedsRun",
      "events",
      "eventsPerSecond",
      "seedsPerSecond",
      "expectationMet",
      "violations",
    ]) {
      expect(report).toHaveProperty(field);
    }
    expect(report.scenario).toBe("kip-1228-gap");
    expect(report.seedsRun).toBe(40);
    const stale = report.violations.find((v: { kind: string }) => v.kind === "stale-marker");
    expect(stale).toMatchObject({
      seed: expect.any(Number),
      traceHash: expect.stringMatching(/^[0-9a-f]{16}$/),
      explanation: expect.any(String),
      partition: expect.any(String),
      broker: expect.stringMatching(/^broker-\d$/),
    });
    // The gap is wherever 4.1 is involved: a 4.1 leader, or a 4.1 coordinator sending v1.
    expect(stale.brokerRelease === "4.1" || stale.coordinatorRelease === "4.1").toBe(true);
  });

  it("exits 1 when the expectation is not met (a find budget larger than the seeds run, nothing found)", () => {
    const r = eosfuzz(["run", "--scenario", "kip-1228-gap", "--seeds", "3", "--json"]);
    const report = JSON.parse(r.stdout);
    expect(report.expectationMet).toBe(false);
    expect(r.code).toBe(1);
  });

  it("writes run.json into --out, the same object as --json", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-out-"));
    const r = eosfuzz(["run", "--scenario", "kip-1228", "--seeds", "5", "--out", dir, "--json"]);
    expect(r.code).toBe(0);
    const written = JSON.parse(readFileSync(join(dir, "run.json"), "utf8"));
    const printed = JSON.parse(r.stdout);
    expect({ ...written, wallMs: 0, eventsPerSecond: 0, seedsPerSecond: 0 }).toEqual({
      ...printed,
      wallMs: 0,
      eventsPerSecond: 0,
      seedsPerSecond: 0,
    });
  });

  it("an unknown flag is one line on stderr and exit 2", () => {
    const r = eosfuzz(["run", "--sedes", "3"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/sedes/);
  });

  it("an unknown scenario is one line and exit 2", () => {
    const r = eosfuzz(["run", "--scenario", "no-such-scenario"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/expected a built-in scenario/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a malformed scenario file names file:line:col, the field, what was expected and found", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-bad-"));
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      'name: bad\ncluster:\n  transactionState: { minInsyncReplicas: 1 }\n  brokers: [{ id: b-0, release: "9.9" }]\n  topics: [{ name: t, partitions: 1 }]\n',
    );
    const r = eosfuzz(["run", "--scenario", file]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(
      new RegExp(
        `^eosfuzz: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:4:\\d+ cluster\\.brokers\\[0\\]\\.release: expected one of .*found "9\\.9"$`,
      ),
    );
  });

  it("saves the shrunk failure in a temporary folder it names, and ends on the verdict and its replay", () => {
    const tmp = mkdtempSync(join(tmpdir(), "eosfuzz-tmp-"));
    const r = eosfuzz(["run", "--scenario", "kip-1228-gap", "--seeds", "10", "--shrink-budget-ms", "1500"], {
      env: { TMPDIR: tmp },
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    // The verdict is last: the expectation, MET, then the commands that replay the shrunk failure and
    // confirm it on real Kafka.
    expect(lines.at(-4)).toMatch(/^ {2}expectation: find stale-marker/);
    expect(lines.at(-3)).toBe("  MET");
    const replay = /^ {2}replay the shrunk failure: eosfuzz replay (\S+)$/.exec(lines.at(-2) ?? "");
    expect(lines.at(-1)).toBe(`  confirm it on real Kafka: eosfuzz confirm ${replay?.[1]}`);
    expect(replay?.[1]).toMatch(new RegExp(`^${tmp}/eosfuzz-[^/]+/kip-1228-gap\\.tape-[0-9a-f]{16}\\.json$`));
    const again = eosfuzz(["replay", replay?.[1] as string, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).reproduced).toBe(true);
  });

  it("with --out the shrunk failure is saved in the report directory; a clean run ends on MET", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "eosfuzz-out-")), "report");
    const r = eosfuzz([
      "run",
      "--scenario",
      "kip-1228-gap",
      "--seeds",
      "10",
      "--shrink-budget-ms",
      "1500",
      "--out",
      dir,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const saved = readdirSync(dir).filter((f) => /^kip-1228-gap\.tape-[0-9a-f]{16}\.json$/.test(f));
    expect(saved).toHaveLength(1);
    expect(r.stdout.trimEnd().split("\n").slice(-2)).toEqual([
      `  replay the shrunk failure: eosfuzz replay ${join(dir, saved[0] as string)}`,
      `  confirm it on real Kafka: eosfuzz confirm ${join(dir, saved[0] as string)}`,
    ]);
    expect(JSON.parse(readFileSync(join(dir, "run.json"), "utf8")).shrunk.savedTo).toBe(join(dir, saved[0] as string));
    const clean = eosfuzz(["run", "--scenario", "kip-1228", "--seeds", "3", "--no-progress"]);
    expect(clean.code).toBe(0);
    expect(clean.stdout.trimEnd().split("\n").slice(-2)).toEqual([
      "  expectation: clean (no violation of any kind)",
      "  MET",
    ]);
  });

  it("prints a readable summary with the causal chain when not --json", () => {
    const r = eosfuzz(["run", "--scenario", "kip-1228-gap", "--seeds", "30", "--seed-start", "20"]);
    expect(r.stdout).toMatch(/stale-marker/);
    expect(r.stdout).toMatch(/legacy rule/);
    expect(r.stdout).toMatch(/replay: eosfuzz run --scenario kip-1228-gap --seed-start \d+ --seeds 1/);
    expect(r.stdout).not.toContain("\u001b[");
  });
});
