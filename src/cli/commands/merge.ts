import type { Argv } from "yargs";
import { findMutant } from "../../fuzz/catalogue/mutants.js";
import { emitGithubActions } from "../../report/github-actions.js";
import { mergeShardReports, readShardReport } from "../../report/merge-reports.js";
import { buildRunReport } from "../../report/run-report.js";
import { renderRunReport } from "../../report/terminal.js";
import { fitted, outputWidth } from "../../report/terminal-width.js";
import { InputError } from "../../common/input-error.js";
import type { OutputError } from "../../common/output-error.js";
import { attemptWrite, defaultReportDir } from "../../report/report-dir.js";
import { EXIT, reportOutputProblems } from "../errors.js";
import { lockDir } from "../out-dir.js";
import { scenarioOfReport } from "../report-output.js";
import { writeRunReport } from "../run-report-dir.js";
import { writeJsonStdout } from "./run.js";

export interface MergeArgs {
  reports: string[];
  out?: string;
  json: boolean;
}

export function mergeBuilder(y: Argv): Argv<MergeArgs> {
  return y
    .positional("reports", {
      type: "string",
      array: true,
      describe: "the run.json of every shard (eosfuzz run --shard I/N --out DIR)",
    })
    .option("out", {
      type: "string",
      describe: "write the merged report (run.json, index.html, junit.xml, ShiViz logs) into DIR",
    })
    .option("json", {
      type: "boolean",
      default: false,
      describe: "print the merged report as one JSON object on stdout and nothing else",
    }) as unknown as Argv<MergeArgs>;
}

/** `eosfuzz merge RUN.json... --out DIR`: the shards of one campaign as the report of the whole campaign. */
export function mergeCommand(args: MergeArgs): number {
  const shards = (args.reports ?? []).map((file) => readShardReport(file));
  const first = shards[0];
  if (!first) throw new InputError("merge", "", "expected the run.json of every shard, found none");
  const { loaded, why } = scenarioOfReport(first.report);
  if (!loaded) throw new InputError(first.file, "scenarioHash", why);
  const overrides = (first.report.mutant ? findMutant(first.report.mutant)?.overrides : undefined) ?? {};
  const { result, wallMs, mutant, startedAt } = mergeShardReports(shards, loaded, overrides);
  const report = buildRunReport(result, wallMs, mutant, startedAt);
  const problems: OutputError[] = [];
  let written: string | null = null;
  if (args.out !== undefined) {
    const out = args.out === "" ? defaultReportDir(report) : args.out;
    attemptWrite(problems, () => {
      const lock = lockDir(out, `eosfuzz merge --out ${out}`);
      try {
        written = writeRunReport(report, loaded, out, overrides, problems);
      } finally {
        lock.release();
      }
    });
  }
  if (args.json) writeJsonStdout(report);
  else
    process.stdout.write(
      fitted(
        `${renderRunReport(report, { width: outputWidth() })}\n${written ? `\n  report: ${written}/index.html\n` : ""}`,
      ),
    );
  emitGithubActions(report, (line) => (args.json ? process.stderr : process.stdout).write(line), process.env, problems);
  reportOutputProblems(problems);
  if (report.stoppedBy === "interrupted") return EXIT.interrupted;
  if (problems.length > 0) return EXIT.usage;
  return report.expectationMet ? EXIT.ok : EXIT.unexpected;
}
