import { appendFileSync } from "node:fs";
import { type OutputError, outputErrorOf } from "../common/output-error.js";
import { isAbsolute, relative, sep } from "node:path";
import { reportedFailures } from "./failure-selection.js";
import { describeExpectation } from "./terminal.js";
import type { RunReport } from "./run-report.js";

/** GitHub shows at most 10 error annotations per step: annotate the first failures only. */
export const MAX_ANNOTATIONS = 10;
/** Rows of the step summary's violation table (the summary is capped at 1 MiB by GitHub). */
const MAX_SUMMARY_ROWS = 50;

/** Workflow-command escaping, as GitHub's toolkit does it. */
const escapeData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

export function isGithubActions(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.GITHUB_ACTIONS === "true";
}

/** The scenario file relative to the checkout, when it is in it (annotations point at repository files). */
function annotationFile(source: string, workspace: string | undefined): string {
  let path: string | null = isAbsolute(source) ? null : source;
  if (isAbsolute(source) && workspace) {
    const rel = relative(workspace, source);
    if (!rel.startsWith("..") && !isAbsolute(rel)) path = rel;
  }
  return path ? `file=${escapeProperty(path.split(sep).join("/"))},` : "";
}

/** `::error` lines for the first unexpected results: unmet expectation clauses, then unexpected violations. */
export function githubAnnotations(report: RunReport, env: NodeJS.ProcessEnv = process.env): string[] {
  const lines: string[] = [];
  const scenarioFile = annotationFile(report.scenarioSource, env.GITHUB_WORKSPACE);
  for (const check of report.expectationChecks.filter((c) => !c.met && c.clause !== "nothing-unexpected")) {
    lines.push(
      `::error ${scenarioFile}title=${escapeProperty(`eosfuzz ${report.scenario}: expectation not met`)}::${escapeData(`${check.name}: ${check.detail}`)}`,
    );
  }
  for (const v of reportedFailures(report).filter((x) => x.unexpected)) {
    const title = `eosfuzz ${report.scenario}: ${v.kind} (seed ${v.seed})`;
    lines.push(
      `::error ${scenarioFile}title=${escapeProperty(title)}::${escapeData(`${v.summary}\nreplay: ${v.replay}`)}`,
    );
  }
  return lines.slice(0, MAX_ANNOTATIONS);
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The run as Markdown for $GITHUB_STEP_SUMMARY: verdict, clauses, violations, the first causal chain. */
export function githubStepSummary(report: RunReport): string {
  const out: string[] = [];
  const verdict = report.expectationMet ? "expectation met" : "expectation NOT met";
  out.push(`### eosfuzz run \`${report.scenario}\`: ${report.expectationMet ? "✅" : "❌"} ${verdict}`, "");
  out.push(
    `Seeds ${report.seedStart}..${report.seedStart + report.seedsRun - 1} (${report.seedsRun}), ${report.events.toLocaleString("en-US")} events, ${report.eventsPerSecond.toLocaleString("en-US")} events/s. Expectation: ${describeExpectation(report.expectation)}.`,
    "",
  );
  out.push("| | clause | result |", "|---|---|---|");
  for (const c of report.expectationChecks)
    out.push(`| ${c.met ? "✅" : "❌"} | ${cell(c.name)} | ${cell(c.detail)} |`);
  if (report.violations.length > 0) {
    out.push("", "| seed | kind | where | expected | replay |", "|---:|---|---|---|---|");
    for (const v of report.violations.slice(0, MAX_SUMMARY_ROWS)) {
      const where = v.broker ? `${v.broker} (${v.brokerRelease ?? "?"}) ${v.partition ?? ""}` : "coordinator";
      out.push(`| ${v.seed} | ${v.kind} | ${cell(where.trim())} | ${v.unexpected ? "no" : "yes"} | \`${v.replay}\` |`);
    }
    if (report.violations.length > MAX_SUMMARY_ROWS)
      out.push("", `${report.violations.length - MAX_SUMMARY_ROWS} more violations in run.json.`);
    const first = reportedFailures(report)[0];
    if (first)
      out.push(
        "",
        `<details><summary>Causal chain of seed ${first.seed} (${first.kind})</summary>`,
        "",
        "```",
        first.explanation,
        "```",
        "",
        "</details>",
      );
  }
  return `${out.join("\n")}\n`;
}

/**
 * When running under GitHub Actions: print the annotations and append the step summary. A step
 * summary that cannot be written is added to `problems` (or thrown without it).
 */
export function emitGithubActions(
  report: RunReport,
  write: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  problems?: OutputError[],
): void {
  if (!isGithubActions(env)) return;
  for (const line of githubAnnotations(report, env)) write(`${line}\n`);
  appendStepSummary(githubStepSummary(report), env, problems);
}

/** Append Markdown to $GITHUB_STEP_SUMMARY, if set. */
export function appendStepSummary(markdown: string, env: NodeJS.ProcessEnv, problems?: OutputError[]): void {
  const summaryFile = env.GITHUB_STEP_SUMMARY;
  if (!summaryFile) return;
  try {
    appendFileSync(summaryFile, markdown);
  } catch (e) {
    const error = outputErrorOf(summaryFile, "the step summary (GITHUB_STEP_SUMMARY)", e);
    if (!problems) throw error;
    problems.push(error);
  }
}
