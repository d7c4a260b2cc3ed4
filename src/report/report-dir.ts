import { dirname, join } from "node:path";
import type { SeedTrace } from "../fuzz/failure-traces.js";
import { reportedFailures, shivizFileName } from "./failure-selection.js";
import { type ReplayView, renderReplayHtml, renderRunHtml } from "./html/page.js";
import { renderJunit } from "./junit.js";
import type { RunReport } from "./run-report.js";
import { shivizLog } from "./shiviz.js";
import { OutputError } from "../common/output-error.js";
import { writeFileAtomic, writeJsonAtomic } from "../common/write-files.js";

export interface ReportContent {
  report: RunReport;
  /** The reported failures traced again (see reportedFailures); may be fewer, with notes saying why. */
  traces: readonly SeedTrace[];
  notes: readonly string[];
}

/** `reports/<scenario>-<run id>`: the run id is the start time, UTC, to the second. */
export function defaultReportDir(report: Pick<RunReport, "scenario" | "startedAt">, root = "reports"): string {
  const runId = report.startedAt.replace(/\.\d+Z$/, "Z").replace(/[-:]/g, "");
  return join(root, `${report.scenario}-${runId}`);
}

/** What writing a report directory did: the files written, and those that could not be (one line each). */
export interface WrittenFiles {
  written: string[];
  failed: OutputError[];
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

/**
 * The report directory of a run: run.json (the `--json` object), index.html, junit.xml and one
 * ShiViz log per reported failure. Each file is written then renamed, so a reader never sees half
 * of one; run.json is written first, in pieces (a campaign of millions of seeds makes it longer than
 * one string can be). A file that cannot be written does not stop the others.
 */
export function writeReportDir(dir: string, content: ReportContent): WrittenFiles {
  const files: WrittenFiles = { written: [], failed: [] };
  const put = (name: string, write: (path: string) => void) => {
    if (attemptWrite(files.failed, () => write(join(dir, name)))) files.written.push(join(dir, name));
  };
  put("run.json", (path) => writeJsonAtomic(path, content.report, "the run report"));
  put("junit.xml", (path) => writeFileAtomic(path, renderJunit(content.report), "the JUnit report"));
  const bySeed = new Map(content.traces.map((t) => [t.seed, t]));
  const seeds = new Set(reportedFailures(content.report).map((v) => v.seed));
  for (const seed of seeds) {
    const trace = bySeed.get(seed);
    if (trace) put(shivizFileName(seed), (path) => writeFileAtomic(path, shivizLog(trace.events), "a ShiViz log"));
  }
  const page = renderRunHtml({ report: content.report, traces: content.traces, notes: content.notes, withFiles: true });
  put("index.html", (path) => writeFileAtomic(path, page, "the HTML report"));
  return files;
}

/** Only the page (`eosfuzz report RUN.json --html FILE`). */
export function writeReportHtml(file: string, content: ReportContent): void {
  writeFileAtomic(
    file,
    renderRunHtml({ report: content.report, traces: content.traces, notes: content.notes, withFiles: false }),
    "the HTML report",
  );
}

/** The page of one replayed seed (`eosfuzz replay FILE --html FILE`). */
export function writeReplayHtml(file: string, view: ReplayView): void {
  writeFileAtomic(file, renderReplayHtml(view), "the HTML page");
}
