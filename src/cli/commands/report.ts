import type { Argv } from "yargs";
import { emitGithubActions } from "../../report/github-actions.js";
import { readRunReport } from "../../report/read-run-report.js";
import type { OutputError } from "../../common/output-error.js";
import { attemptWrite, writeReportDir, writeReportHtml } from "../../report/report-dir.js";
import { renderRunReport } from "../../report/terminal.js";
import { fitted, outputWidth } from "../../report/terminal-width.js";
import { EXIT, reportOutputProblems } from "../errors.js";
import { lockDir } from "../out-dir.js";
import { findMutant } from "../../fuzz/catalogue/mutants.js";
import { scenarioOfReport, traceReport } from "../report-output.js";

export interface ReportArgs {
  file: string;
  html?: string;
  out?: string;
}

export function reportBuilder(y: Argv): Argv<ReportArgs> {
  return y
    .positional("file", {
      type: "string",
      demandOption: true,
      describe: "a run report: run.json, or what run --json printed (a merged report too)",
    })
    .option("html", {
      type: "string",
      requiresArg: true,
      describe: "write the HTML report (one self-contained file) to FILE",
    })
    .option("out", {
      type: "string",
      requiresArg: true,
      describe: "write the whole report directory (run.json, index.html, junit.xml, ShiViz logs) into DIR",
    }) as unknown as Argv<ReportArgs>;
}

/**
 * `eosfuzz report RUN.json`: render an existing run again, e.g. one merged from shards. The
 * failing seeds are run again to draw them. Exit 0 when the run met its expectation, 1 when not.
 */
export function reportCommand(args: ReportArgs): number {
  const report = readRunReport(args.file);
  const needsTraces = args.html !== undefined || args.out !== undefined;
  const scenario = needsTraces ? scenarioOfReport(report) : { loaded: null, why: "" };
  const content = needsTraces
    ? traceReport(
        report,
        scenario.loaded,
        (report.mutant ? findMutant(report.mutant)?.overrides : undefined) ?? {},
        scenario.why,
      )
    : { report, traces: [], notes: [] };
  const problems: OutputError[] = [];
  const html = args.html ? attemptWrite(problems, () => writeReportHtml(args.html as string, content)) : false;
  let dir = false;
  if (args.out) {
    const out = args.out;
    attemptWrite(problems, () => {
      const lock = lockDir(out, `eosfuzz report --out ${out}`);
      try {
        const files = writeReportDir(out, content);
        problems.push(...files.failed);
        dir = files.written.some((f) => f.endsWith("index.html"));
      } finally {
        lock.release();
      }
    });
  }
  for (const note of content.notes) process.stderr.write(`eosfuzz: ${note}\n`);
  const where = [html ? args.html : undefined, dir ? `${args.out}/index.html` : undefined].filter(Boolean).join(", ");
  process.stdout.write(
    fitted(`${renderRunReport(report, { width: outputWidth() })}\n${where ? `\n  report: ${where}\n` : ""}`),
  );
  emitGithubActions(report, (line) => process.stdout.write(line), process.env, problems);
  reportOutputProblems(problems);
  if (problems.length > 0) return EXIT.usage;
  return report.expectationMet ? EXIT.ok : EXIT.unexpected;
}
