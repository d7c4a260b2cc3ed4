import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { BUILTIN_SCENARIO_DIR } from "../../src/scenario/loader.js";
import { eosfuzz, ROOT } from "./cli-helpers.js";

describe("eosfuzz regress", () => {
  it("exits 1 when a scenario's expectation is edited to something false, and names it", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-regress-"));
    const edit = (name: string, from: string, to: string) => {
      const text = readFileSync(join(BUILTIN_SCENARIO_DIR, `${name}.yaml`), "utf8");
      expect(text).toContain(from);
      writeFileSync(join(dir, `${name}.yaml`), text.replace(from, to));
    };
    edit(
      "kip-1228-race",
      'expect:\n  find: [stale-marker]\n  where: { brokerRelease: ["4.1"] }',
      "expect:\n  clean: true",
    );
    edit("kip-1228-4.2.0", "find: [hanging-transaction]", "find: [hanging-transaction, stale-marker]");
    copyFileSync(join(BUILTIN_SCENARIO_DIR, "kafka-17754-tv2-race.yaml"), join(dir, "kafka-17754-tv2-race.yaml"));
    const empty = mkdtempSync(join(tmpdir(), "eosfuzz-noseeds-"));
    const r = eosfuzz(["regress", "--scenarios", dir, "--seeds", empty, "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ passed: 1, failed: 2, errors: 0, exitCode: 1 });
    const row = (name: string) => out.rows.find((x: { name: string }) => x.name === name);
    expect(row("kafka-17754-tv2-race")).toMatchObject({ kind: "scenario", result: "pass" });
    expect(row("kip-1228-race")).toMatchObject({ kind: "scenario", result: "fail" });
    expect(row("kip-1228-4.2.0")).toMatchObject({ kind: "scenario", result: "fail" });
    // Why each failed is the row's one-line detail (prose: the reason as the expectation check words it).
    expect(row("kip-1228-race").detail).toMatch(
      /unexpected stale-marker: 1 violation \(first at seed 0, broker-2 on 4\.1\)/,
    );
    expect(row("kip-1228-4.2.0").detail).toMatch(/expected stale-marker within 50 seeds, found none in 50 seeds/);
  });

  it("a corrupt seed file makes it exit 2, after the table", () => {
    const scenarios = mkdtempSync(join(tmpdir(), "eosfuzz-scn-"));
    copyFileSync(join(BUILTIN_SCENARIO_DIR, "tv1-race.yaml"), join(scenarios, "tv1-race.yaml"));
    const seeds = mkdtempSync(join(tmpdir(), "eosfuzz-badseeds-"));
    copyFileSync(join(ROOT, "seeds", "tv1-race.seed-0.json"), join(seeds, "good.json"));
    writeFileSync(
      join(seeds, "broken.json"),
      readFileSync(join(ROOT, "seeds", "tv1-race.seed-0.json"), "utf8").slice(0, 300),
    );
    const r = eosfuzz(["regress", "--scenarios", scenarios, "--seeds", seeds, "--json"]);
    expect(r.code).toBe(2);
    const out = JSON.parse(r.stdout);
    expect(out.rows.map((row: { name: string; result: string }) => `${row.name} ${row.result}`)).toEqual([
      "tv1-race pass",
      "broken.json error",
      "good.json pass",
    ]);
    expect(out.rows[1].detail).toMatch(/broken\.json:\d+:\d+: expected a complete JSON seed file, found it cut short/);
  });

  it("under GitHub Actions: annotations at the file and line of the cause, and a step summary, like run", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-regress-gha-"));
    const text = readFileSync(join(BUILTIN_SCENARIO_DIR, "tv1-race.yaml"), "utf8");
    // An expectation that cannot hold (a budget of one seed for a kind it never finds there)...
    writeFileSync(
      join(dir, "a-false.yaml"),
      text
        .replace(/^name: .*$/m, "name: a-false")
        .replace(/^expect:\n(( {2}.*)?\n)*/m, "expect:\n  within: 1\n  find: [model-timeout]\n"),
    );
    // ... and a file with a misspelt field.
    const broken = text.replace(/^name: .*$/m, "name: b-broken").replace(/^seeds: /m, "sedes: ");
    writeFileSync(join(dir, "b-broken.yaml"), broken);
    const brokenLine = broken.split("\n").findIndex((l) => l.startsWith("sedes: ")) + 1;
    const empty = mkdtempSync(join(tmpdir(), "eosfuzz-noseeds-"));
    const summary = join(dir, "summary.md");
    const junit = join(dir, "out", "junit.xml");
    const r = eosfuzz(["regress", "--scenarios", dir, "--seeds", empty, "--junit", junit], {
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: dir },
    });
    expect(r.code).toBe(2);
    const expectLine = readFileSync(join(dir, "a-false.yaml"), "utf8").split("\n").indexOf("expect:") + 1;
    const annotations = r.stdout.split("\n").filter((l) => l.startsWith("::error "));
    expect(annotations).toHaveLength(2);
    expect(annotations[0]).toMatch(
      new RegExp(
        `^::error file=a-false\\.yaml,line=${expectLine},title=eosfuzz regress%3A a-false%3A expectation not met::`,
      ),
    );
    expect(annotations[1]).toMatch(
      new RegExp(
        `^::error file=b-broken\\.yaml,line=${brokenLine},col=1,title=eosfuzz regress%3A .*b-broken\\.yaml%3A unreadable::`,
      ),
    );
    const markdown = readFileSync(summary, "utf8");
    expect(markdown).toMatch(/^### eosfuzz regress: ❌ not all hold/);
    expect(markdown).toMatch(/\| ❌ \| scenario \| a-false \|/);
    expect(XMLValidator.validate(readFileSync(junit, "utf8"))).toBe(true);
    rmSync(dir, { recursive: true, force: true });
    rmSync(empty, { recursive: true, force: true });
  });
  it("--shard I/N: the shards' rows are the unsharded run's, each in exactly one shard; a shard's seed file is still judged against its scenario", () => {
    // Scripted scenarios (one run each) and three saved seeds; tv1-race's seed file lands in shard 2,
    // its scenario's row in shard 1.
    const scenarios = mkdtempSync(join(tmpdir(), "eosfuzz-regress-shard-"));
    for (const name of ["failover-race", "kafka-17754-tv2-race", "kip-1228-race", "kip-1228-upgrade", "tv1-race"])
      copyFileSync(join(BUILTIN_SCENARIO_DIR, `${name}.yaml`), join(scenarios, `${name}.yaml`));
    const seeds = mkdtempSync(join(tmpdir(), "eosfuzz-regress-shard-seeds-"));
    for (const file of ["kip-1228-race.seed-0.json", "tv1-race.seed-0.json", "kip-1228-upgrade.seed-0.json"])
      copyFileSync(join(ROOT, "seeds", file), join(seeds, file));
    const run = (extra: string[]) => {
      const r = eosfuzz(["regress", "--scenarios", scenarios, "--seeds", seeds, "--json", ...extra]);
      expect(r.code).toBe(0);
      return JSON.parse(r.stdout) as { rows: { kind: string; name: string; detail: string }[]; shard: unknown };
    };
    const key = (row: { kind: string; name: string; detail: string }) => `${row.kind} ${row.name}: ${row.detail}`;
    const whole = run([]);
    expect(whole.shard).toBeNull();
    expect(whole.rows).toHaveLength(8);
    const parts = [0, 1, 2].map((i) => run(["--shard", `${i}/3`]));
    // Position i modulo 3 in name order, scenarios and seeds apart.
    expect(parts.map((p) => p.rows.map((row) => row.name))).toEqual([
      ["failover-race", "kip-1228-upgrade", "kip-1228-race.seed-0.json"],
      ["kafka-17754-tv2-race", "tv1-race", "kip-1228-upgrade.seed-0.json"],
      ["kip-1228-race", "tv1-race.seed-0.json"],
    ]);
    expect(parts.map((p) => p.shard)).toEqual([0, 1, 2].map((index) => ({ index, count: 3 })));
    expect(parts.flatMap((p) => p.rows.map(key)).sort()).toEqual(whole.rows.map(key).sort());
    const junit = join(scenarios, "shard.xml");
    const summary = join(scenarios, "summary.md");
    const table = eosfuzz(["regress", "--scenarios", scenarios, "--seeds", seeds, "--shard", "1/3", "--junit", junit], {
      env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary },
    });
    expect(readFileSync(summary, "utf8")).toMatch(/^3 passed, 0 failed \(shard 1\/3 of the scenarios and seeds\)\.$/m);
    expect(table.stdout).toMatch(/ALL HOLD {2}3 passed, 0 failed \(shard 1\/3\)\n/);
    expect(readFileSync(junit, "utf8")).toMatch(/<testsuites name="eosfuzz regress \(shard 1\/3\)" tests="3"/);
    const bad = eosfuzz(["regress", "--scenarios", scenarios, "--shard", "3/3"]);
    expect([bad.code, bad.stdout]).toEqual([2, ""]);
    expect(bad.stderr).toBe('eosfuzz: --shard: expected I/N with 0 <= I < N <= 100000, e.g. 0/4, found "3/3"\n');
    rmSync(scenarios, { recursive: true, force: true });
    rmSync(seeds, { recursive: true, force: true });
  });
});
