import { dirname, join } from "node:path";
import { OutputError } from "../common/output-error.js";
import type { RunReport } from "./run-report.js";

// Where a run's report files go and how a failed write is kept: apart from report-dir.ts, so that a
// run without --out does not load the HTML renderer to name a directory or write a results log.

/** `reports/<scenario>-<run id>`: the run id is the start time, UTC, to the second. */
export function defaultReportDir(report: Pick<RunReport, "scenario" | "startedAt">, root = "reports"): string {
  const runId = report.startedAt.replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
  return join(root, `${report.scenario}-${runId}`);
}

/**
 * Call `write`; an OutputError (disk full, read-only, a file in the way) is kept in `failed` instead
 * of thrown, so that one output that cannot be written does not lose the others. Failures for the
 * same reason in the same directory (a full disk, a directory that cannot be made) are kept once.
 */
export function attemptWrite(failed: OutputError[], write: () => void): boolean {
  try {
    write();
    return true;
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    const same = (f: OutputError) =>
      f.reason === e.reason && (f.file === e.file || dirname(f.file) === dirname(e.file));
    if (!failed.some(same)) failed.push(e);
    return false;
  }
}
