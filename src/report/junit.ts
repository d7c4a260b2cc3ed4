import { type ReportedViolation, type RunReport, seedsCovered } from "./run-report.js";

/** Bound on the test cases for violations; the rest are counted in one case (all are in run.json). */
export const MAX_JUNIT_VIOLATION_CASES = 10_000;
/** Explanations are cut to this many lines inside a test case. */
const MAX_DETAIL_LINES = 40;

/** XML 1.0 text: escape markup, and drop characters XML forbids (ANSI escapes, other controls). */
export function xmlText(s: string): string {
  return (
    s
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters XML 1.0 forbids
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
  );
}

function where(v: ReportedViolation): string {
  return v.broker ? ` at ${v.broker} (${v.brokerRelease ?? "?"})${v.partition ? ` ${v.partition}` : ""}` : "";
}

function detailOf(v: ReportedViolation): string {
  const lines = v.explanation.split("\n");
  const shown =
    lines.length > MAX_DETAIL_LINES
      ? [...lines.slice(0, MAX_DETAIL_LINES), `... (${lines.length - MAX_DETAIL_LINES} more lines in run.json)`]
      : lines;
  return [...shown, "", `seed ${v.seed}, trace ${v.traceHash}`, `replay: ${v.replay}`].join("\n");
}

interface Case {
  classname: string;
  name: string;
  failure: { message: string; type: string; body: string } | null;
  out: string;
}

function renderCase(c: Case): string {
  const open = `    <testcase classname="${xmlText(c.classname)}" name="${xmlText(c.name)}" time="0"`;
  const failure = c.failure
    ? `      <failure message="${xmlText(c.failure.message)}" type="${xmlText(c.failure.type)}">${xmlText(c.failure.body)}</failure>\n`
    : "";
  const out = c.out ? `      <system-out>${xmlText(c.out)}</system-out>\n` : "";
  return failure || out ? `${open}>\n${failure}${out}    </testcase>` : `${open}/>`;
}

/**
 * The run as JUnit XML: one test case per expectation clause and one per violation. A violation
 * the expectation does not allow fails its case; an expected one passes, with its explanation as
 * output. The aggregate clause "nothing unexpected" appears only when it holds, so that every
 * unexpected result is exactly one failing case.
 */
export function renderJunit(report: RunReport): string {
  const prefix = `eosfuzz.${report.scenario}`;
  const cases: Case[] = [];
  for (const check of report.expectationChecks) {
    if (check.clause === "nothing-unexpected" && !check.met) continue;
    const failure = check.met
      ? null
      : { message: check.detail, type: "expectation", body: `${check.name}: ${check.detail}` };
    cases.push({ classname: `${prefix}.expectation`, name: check.name, failure, out: check.met ? check.detail : "" });
  }
  const ordered = [...report.violations.filter((v) => v.unexpected), ...report.violations.filter((v) => !v.unexpected)];
  for (const v of ordered.slice(0, MAX_JUNIT_VIOLATION_CASES)) {
    const name = `seed ${v.seed} ${v.kind}${where(v)}`;
    cases.push(
      v.unexpected
        ? {
            classname: `${prefix}.violations`,
            name,
            failure: { message: v.summary, type: v.kind, body: detailOf(v) },
            out: "",
          }
        : { classname: `${prefix}.violations`, name, failure: null, out: `expected by the scenario\n${detailOf(v)}` },
    );
  }
  const left = ordered.slice(MAX_JUNIT_VIOLATION_CASES);
  if (left.length > 0) {
    const unexpected = left.filter((v) => v.unexpected).length;
    const message = `${left.length} more violations (${unexpected} unexpected) not listed as test cases; see run.json`;
    cases.push({
      classname: `${prefix}.violations`,
      name: "further violations",
      failure: unexpected > 0 ? { message, type: "unexpected", body: message } : null,
      out: unexpected > 0 ? "" : message,
    });
  }
  const failures = cases.filter((c) => c.failure).length;
  const suite = `eosfuzz run ${report.scenario}`;
  const properties = [
    ["scenario", report.scenario],
    ["scenarioHash", report.scenarioHash],
    ["seedStart", String(report.seedStart)],
    ["seedsRun", String(report.seedsRun)],
    ["seeds", seedsCovered(report)],
    ...(report.shard ? [["shard", `${report.shard.index}/${report.shard.count}`]] : []),
    ["mutant", report.mutant ?? ""],
    ["tool", `${report.tool.name} ${report.tool.version}`],
  ]
    .map(([k, v]) => `      <property name="${xmlText(k as string)}" value="${xmlText(v as string)}"/>`)
    .join("\n");
  const seconds = (report.wallMs / 1000).toFixed(3);
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="eosfuzz" tests="${cases.length}" failures="${failures}" errors="0" time="${seconds}">
  <testsuite name="${xmlText(suite)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds}" timestamp="${xmlText(report.startedAt.replace(/\.\d+Z$/, ""))}">
    <properties>
${properties}
    </properties>
${cases.map(renderCase).join("\n")}
  </testsuite>
</testsuites>
`;
}
