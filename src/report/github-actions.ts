import { appendFileSync, readFileSync } from "node:fs";
import { type OutputError, outputErrorOf } from "../common/output-error.js";
import { isAbsolute, relative, sep } from "node:path";
import { isMap, isPair, isScalar, LineCounter, parseDocument } from "yaml";
import type { RegressResult, RegressRow } from "../fuzz/catalogue/regress.js";
import { reportedFailures } from "./failure-selection.js";
import { isGithubActions } from "./github-env.js";
import { describeExpectation } from "./terminal.js";
import { type RunReport, seedsCovered } from "./run-report.js";

/** GitHub shows at most 10 error annotations per step: annotate the first failures only. */
export const MAX_ANNOTATIONS = 10;
/** Rows of the step summary's violation table (the summary is capped at 1 MiB by GitHub). */
const MAX_SUMMARY_ROWS = 50;

/** Workflow-command escaping, as GitHub's toolkit does it. */
const escapeData = (s: string) => s.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, "%3A").replace(/,/g, "%2C");

/**
 * The `file=...,line=...,col=...,` of an annotation: the file relative to the checkout when it is
 * in it (annotations point at repository files), and where in it, when known.
 */
function annotationFile(
  source: string,
  workspace: string | undefined,
  position: { line: number; col?: number } | null = null,
): string {
  let path: string | null = isAbsolute(source) ? null : source;
  if (isAbsolute(source) && workspace) {
    const rel = relative(workspace, source);
    if (!rel.startsWith("..") && !isAbsolute(rel)) path = rel;
  }
  if (!path) return "";
  const where = position ? `line=${position.line},${position.col ? `col=${position.col},` : ""}` : "";
  return `file=${escapeProperty(path.split(sep).join("/"))},${where}`;
}

/** The line of a top-level key (such as expect) in a YAML file, or null (no such file or key). */
export function yamlKeyLine(file: string, key: string): { line: number } | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return null;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (!isMap(doc.contents)) return null;
  const pair = doc.contents.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === key);
  const start = isPair(pair) && isScalar(pair.key) ? pair.key.range?.[0] : undefined;
  return start === undefined ? null : { line: lines.linePos(start).line };
}

/** `::error` lines for the first unexpected results: unmet expectation clauses, then unexpected violations. */
export function githubAnnotations(report: RunReport, env: NodeJS.ProcessEnv = process.env): string[] {
  const lines: string[] = [];
  const scenarioFile = annotationFile(report.scenarioSource, env.GITHUB_WORKSPACE);
  // An expectation that is not met is the scenario file's doing: the annotation points at its expect.
  const expectation = annotationFile(
    report.scenarioSource,
    env.GITHUB_WORKSPACE,
    yamlKeyLine(report.scenarioSource, "expect"),
  );
  for (const check of report.expectationChecks.filter((c) => !c.met && c.clause !== "nothing-unexpected")) {
    lines.push(
      `::error ${expectation}title=${escapeProperty(`eosfuzz ${report.scenario}: expectation not met`)}::${escapeData(`${check.name}: ${check.detail}`)}`,
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
    `Seeds ${seedsCovered(report)} (${report.seedsRun}${report.shard ? `, shard ${report.shard.index}/${report.shard.count}` : ""}), ${report.events.toLocaleString("en-US")} events, ${report.eventsPerSecond.toLocaleString("en-US")} events/s. Expectation: ${describeExpectation(report.expectation)}.`,
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

/** Where a regress row's problem is: an unreadable scenario at its error, a failed one at its expect. */
function regressLocation(row: RegressRow): { line: number; col?: number } | null {
  if (row.position) return row.position;
  if (row.kind === "scenario" && row.result === "fail") return yamlKeyLine(row.file, "expect");
  return null;
}

/** `::error` lines for the rows of `eosfuzz regress` that do not hold (at most MAX_ANNOTATIONS). */
export function regressAnnotations(result: RegressResult, env: NodeJS.ProcessEnv = process.env): string[] {
  return result.rows
    .filter((r) => r.result !== "pass")
    .slice(0, MAX_ANNOTATIONS)
    .map((r) => {
      const what =
        r.result === "error" ? "unreadable" : r.kind === "scenario" ? "expectation not met" : "seed does not reproduce";
      const title = `eosfuzz regress: ${r.name}: ${what}`;
      return `::error ${annotationFile(r.file, env.GITHUB_WORKSPACE, regressLocation(r))}title=${escapeProperty(title)}::${escapeData(`${r.expectation === "-" ? "" : `${r.expectation}: `}${r.detail}`)}`;
    });
}

/** The regression as Markdown for $GITHUB_STEP_SUMMARY: the verdict and one row per scenario and seed. */
export function regressStepSummary(result: RegressResult): string {
  const holds = result.failed === 0 && result.errors === 0;
  const out = [
    `### eosfuzz regress: ${holds ? "✅ all hold" : "❌ not all hold"}`,
    "",
    `${result.passed} passed, ${result.failed} failed${result.errors > 0 ? `, ${result.errors} unreadable` : ""}${result.shard ? ` (shard ${result.shard.index}/${result.shard.count} of the scenarios and seeds)` : ""}.`,
    "",
    "| | kind | name | expectation | seeds | detail |",
    "|---|---|---|---|---:|---|",
  ];
  for (const r of result.rows.slice(0, MAX_SUMMARY_ROWS * 4))
    out.push(
      `| ${r.result === "pass" ? "✅" : "❌"} | ${r.kind} | ${cell(r.name)} | ${cell(r.expectation)} | ${r.seeds} | ${cell(r.detail)} |`,
    );
  if (result.rows.length > MAX_SUMMARY_ROWS * 4)
    out.push("", `${result.rows.length - MAX_SUMMARY_ROWS * 4} more rows.`);
  return `${out.join("\n")}\n`;
}

/** `eosfuzz regress` under GitHub Actions: annotations for what does not hold, and the step summary. */
export function emitRegressGithubActions(
  result: RegressResult,
  write: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  problems?: OutputError[],
): void {
  if (!isGithubActions(env)) return;
  for (const line of regressAnnotations(result, env)) write(`${line}\n`);
  appendStepSummary(regressStepSummary(result), env, problems);
}
