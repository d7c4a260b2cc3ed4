import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { describe, expect, it } from "vitest";
import { emitGithubActions, githubAnnotations, MAX_ANNOTATIONS } from "../../src/report/github-actions.js";
import { renderJunit } from "../../src/report/junit.js";
import type { RunReport } from "../../src/report/run-report.js";
import { campaignReport, firstGapFailure, withExpectation } from "./report-fixtures.js";

interface JunitCase {
  "@_name": string;
  "@_classname": string;
  failure?: { "@_message": string; "#text": string };
  "system-out"?: string;
}

function junitCases(xml: string): { suite: Record<string, string>; cases: JunitCase[] } {
  expect(XMLValidator.validate(xml)).toBe(true);
  const doc = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "testcase" }).parse(xml);
  const suite = doc.testsuites.testsuite;
  return { suite, cases: suite.testcase as JunitCase[] };
}

const { loaded, trace } = firstGapFailure();
const start = Math.max(0, trace.seed - 3);

describe("junit.xml", () => {
  it("passes every case when the violations are the expected ones", () => {
    const { report } = campaignReport(loaded, start, 6);
    expect(report.expectationMet).toBe(true);
    const { suite, cases } = junitCases(renderJunit(report));
    expect(cases.filter((c) => c.failure)).toHaveLength(0);
    expect(suite["@_failures"]).toBe("0");
    const violationCases = cases.filter((c) => c["@_classname"].endsWith(".violations"));
    expect(violationCases).toHaveLength(report.violations.length);
    expect(violationCases[0]?.["system-out"]).toContain(
      `replay: eosfuzz run --scenario kip-1228-gap --seed-start ${trace.seed} --seeds 1`,
    );
  });

  it("has one failing case per unexpected result: each unexpected violation and each expected kind not found", () => {
    const strict = withExpectation(loaded, { find: ["outcome-mismatch"], within: 6 });
    const { report } = campaignReport(strict, start, 6);
    const unexpected = report.violations.filter((v) => v.unexpected).length;
    expect(unexpected).toBeGreaterThan(0);
    const { suite, cases } = junitCases(renderJunit(report));
    const failing = cases.filter((c) => c.failure);
    expect(failing).toHaveLength(unexpected + 1);
    expect(suite["@_failures"]).toBe(String(unexpected + 1));
    expect(failing.map((c) => c["@_name"])).toContain("finds outcome-mismatch within 6 seeds");
    const staleCase = failing.find((c) => c["@_name"].startsWith(`seed ${trace.seed} stale-marker`));
    expect(staleCase?.failure?.["@_message"]).toMatch(/^stale (ABORT|COMMIT) marker/);
    expect(staleCase?.failure?.["#text"]).toContain(
      `replay: eosfuzz run --scenario kip-1228-gap --seed-start ${trace.seed} --seeds 1`,
    );
  });

  it("stays well-formed whatever the text holds (markup, quotes, escape codes)", () => {
    const { report } = campaignReport(loaded, start, 6);
    const nasty: RunReport = { ...report, scenario: `a<b>&"c'${String.fromCharCode(27)}[31m` };
    expect(XMLValidator.validate(renderJunit(nasty))).toBe(true);
  });
});

describe("GitHub Actions", () => {
  const strict = withExpectation(loaded, { clean: true });
  const { report } = campaignReport(strict, start, 6);

  it("annotates the first unexpected failures with ::error and the replay command, escaped", () => {
    const lines = githubAnnotations(report, {});
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.length).toBeLessThanOrEqual(MAX_ANNOTATIONS);
    for (const line of lines)
      expect(line).toMatch(
        /^::error title=eosfuzz kip-1228-gap%3A [a-z-]+ \(seed \d+\)::\S.*%0Areplay: eosfuzz run --scenario kip-1228-gap --seed-start \d+ --seeds 1$/,
      );
    expect(lines[0]).toMatch(/^::error title=eosfuzz kip-1228-gap%3A stale-marker \(seed \d+\)::stale /);
    expect(lines.join("\n")).not.toMatch(/\n(?!::error)/);
  });

  it("points annotations at the scenario file when it is inside the checkout", () => {
    const lines = githubAnnotations(
      { ...report, scenarioSource: "/ws/repo/scenarios/x.yaml" },
      { GITHUB_WORKSPACE: "/ws/repo" },
    );
    expect(lines[0]).toMatch(/^::error file=scenarios\/x\.yaml,title=/);
  });

  it("writes a Markdown step summary and prints annotations only when GITHUB_ACTIONS is true", () => {
    const file = join(mkdtempSync(join(tmpdir(), "eosfuzz-gh-")), "summary.md");
    const printed: string[] = [];
    emitGithubActions(report, (l) => printed.push(l), { GITHUB_STEP_SUMMARY: file });
    expect(printed).toEqual([]);
    emitGithubActions(report, (l) => printed.push(l), { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: file });
    expect(printed.length).toBeGreaterThan(0);
    const md = readFileSync(file, "utf8");
    expect(md).toMatch(/^### eosfuzz run `kip-1228-gap`: ❌ expectation NOT met/);
    expect(md).toContain("| ❌ | no violation of any kind |");
    expect(md).toMatch(
      /\| \d+ \| stale-marker \| broker-\d \(4\.(?:1|2\.1)\) orders-\d \| no \| `eosfuzz run --scenario kip-1228-gap --seed-start \d+ --seeds 1` \|/,
    );
    expect(md).toContain("<details><summary>Causal chain of seed");
  });
});
