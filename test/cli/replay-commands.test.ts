import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, describe, expect, it } from "vitest";
import { readRunReport } from "../../src/report/read-run-report.js";
import { BUILTIN_SCENARIO_DIR } from "../../src/scenario/loader.js";
import { eosfuzz, FAILING_SEEDS_RUN } from "./cli-helpers.js";

// Item 10 of "Trustworthy in CI and on long campaigns": the replay command of a scenario of one's
// own names its file (its name alone is no built-in), wherever it is printed; a shard says the
// seeds it ran.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz replay commands "));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scenarioFile = join(dir, "our mix.yaml");
writeFileSync(
  scenarioFile,
  readFileSync(join(BUILTIN_SCENARIO_DIR, "kip-1228-gap.yaml"), "utf8").replace(/^name: .*$/m, "name: our-mix"),
);
const quoted = `'${scenarioFile}'`;
const replayOf = (seed: number) => `eosfuzz run --scenario ${quoted} --seed-start ${seed} --seeds 1`;

describe("replay commands of a scenario file", () => {
  it("name the file on the terminal, in run.json, JUnit, annotations and the step summary; the command replays", () => {
    const out = join(dir, "out");
    const summary = join(dir, "summary.md");
    const junitFile = join(dir, "run-junit.xml");
    const r = eosfuzz(
      [
        "run",
        "--scenario",
        scenarioFile,
        "--seeds",
        "30",
        "--workers",
        "0",
        "--no-shrink",
        "--no-progress",
        "--out",
        out,
        "--junit",
        junitFile,
      ],
      { env: { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: summary, GITHUB_WORKSPACE: dir } },
    );
    const report = readRunReport(join(out, "run.json"));
    const first = report.violations[0];
    expect(first).toBeDefined();
    const replay = replayOf(first?.seed as number);
    expect(report.violations.every((v) => v.replay === replayOf(v.seed))).toBe(true);
    expect(r.stdout).toContain(`replay: ${replay}`);
    expect(r.stdout).not.toMatch(/--scenario our-mix /);
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    // run --junit FILE writes the same JUnit XML as the report directory's junit.xml.
    expect(readFileSync(junitFile, "utf8")).toBe(junit);
    expect(junit).toContain(`replay: ${replay.replace(/'/g, "'")}`);
    expect(new XMLParser().parse(junit)).toBeTruthy();
    expect(readFileSync(summary, "utf8")).toContain(`\`${replay}\``);

    // An unexpected violation makes an annotation; an expectation of clean makes them all unexpected.
    const clean = join(dir, "clean.yaml");
    writeFileSync(
      clean,
      readFileSync(scenarioFile, "utf8").replace(/^expect:\n(( {2}.*)?\n)*/m, "expect:\n  clean: true\n"),
    );
    const annotated = eosfuzz(
      ["run", "--scenario", clean, "--seeds", "30", "--workers", "0", "--no-shrink", "--no-progress"],
      { env: { GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: dir } },
    );
    expect(annotated.code).toBe(1);
    const annotation = annotated.stdout.split("\n").find((l) => l.startsWith("::error file=clean.yaml,"));
    expect(annotation).toContain(`%0Areplay: eosfuzz run --scenario '${clean}' --seed-start `);

    // An expectation not met is the scenario file's doing: the annotation points at its expect line.
    const unmet = eosfuzz(["run", "--scenario", scenarioFile, "--seeds", "2", "--workers", "0", "--no-progress"], {
      env: { GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: dir },
    });
    expect(unmet.code).toBe(1);
    const expectLine = readFileSync(scenarioFile, "utf8").split("\n").indexOf("expect:") + 1;
    expect(unmet.stdout).toContain(
      `::error file=our mix.yaml,line=${expectLine},title=eosfuzz our-mix%3A expectation not met::finds stale-marker`,
    );

    // Run as printed (by a shell), the command shows the same violation.
    const again = eosfuzz([
      "run",
      "--scenario",
      scenarioFile,
      "--seed-start",
      String(first?.seed),
      "--seeds",
      "1",
      "--workers",
      "0",
      "--json",
    ]);
    const one = JSON.parse(again.stdout);
    expect(one.violations[0].traceHash).toBe(first?.traceHash);
    expect(one.violations[0].replay).toBe(replay);
  });

  it("a built-in scenario keeps its name", () => {
    const r = eosfuzz([...FAILING_SEEDS_RUN, "--json"]);
    expect(JSON.parse(r.stdout).violations[0].replay).toMatch(
      /^eosfuzz run --scenario kip-1228-gap --seed-start \d+ --seeds 1$/,
    );
  });
});

describe("a shard says the seeds it ran", () => {
  it("in its header, run.json and JUnit; a find clause it cannot judge is not a failing test case", () => {
    const out = join(dir, "shard");
    const r = eosfuzz([
      "run",
      "--scenario",
      "kip-1228-gap",
      "--seeds",
      "300",
      "--shard",
      "1/3",
      "--workers",
      "0",
      "--no-shrink",
      "--no-progress",
      "--out",
      out,
    ]);
    expect(r.stdout.split("\n")[0]).toBe("eosfuzz run kip-1228-gap  seeds 100..199  shard 1/3");
    const report = readRunReport(join(out, "run.json"));
    expect(report.shard).toEqual({ index: 1, count: 3, firstSeed: 100, lastSeed: 199 });
    expect(report.completedSeeds).toEqual([[100, 199]]);
    const find = report.expectationChecks.find((c) => c.clause === "find");
    expect(find).toMatchObject({ met: true, name: expect.stringMatching(/judged over all shards by eosfuzz merge/) });
    const junit = readFileSync(join(out, "junit.xml"), "utf8");
    expect(junit).toContain('<property name="seeds" value="100..199"/>');
    expect(junit).toMatch(/failures="0"/);
  });
});
