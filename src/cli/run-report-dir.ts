import { join } from "node:path";
import type { OutputError } from "../common/output-error.js";
import type { ReleaseFlags } from "../kafka/release.js";
import { defaultReportDir, writeReportDir } from "../report/report-dir.js";
import type { RunReport } from "../report/run-report.js";
import type { LoadedScenario } from "../scenario/loader.js";
import { traceReport } from "./report-output.js";

// Its own module: `eosfuzz run` imports it (and with it the HTML renderer) only when it has an --out directory.

/**
 * The --out directory: the run's failures traced again, then every report file. Returns the
 * directory, or null when not even run.json could be written; files that could not be written are
 * added to `problems`.
 */
export function writeRunReport(
  report: RunReport,
  loaded: LoadedScenario | null,
  out: string,
  overrides: Partial<ReleaseFlags>,
  problems: OutputError[],
): string | null {
  const dir = out === "" ? defaultReportDir(report) : out;
  const files = writeReportDir(dir, traceReport(report, loaded, overrides));
  problems.push(...files.failed);
  return files.written.includes(join(dir, "run.json")) ? dir : null;
}
