import { join } from "node:path";
import type { SeedTrace } from "../fuzz/seeds/failure-traces.js";
import { reportedFailures, shivizFileName } from "./failure-selection.js";
import { type ReplayView, renderReplayHtml, renderRunHtml } from "./html/page.js";
import { renderJunit } from "./junit.js";
import type { RunReport } from "./run-report.js";
import { shivizLog } from "./shiviz.js";
import type { OutputError } from "../common/output-error.js";
import { writeFileAtomic, writeJsonAtomic } from "../common/write-files.js";
import { attemptWrite } from "./report-files.js";

export { attemptWrite, defaultReportDir } from "./report-files.js";

export interface ReportContent {
  report: RunReport;
  /** The reported failures traced again (see reportedFailures); may be fewer, with notes saying why. */
  traces: readonly SeedTrace[];
  notes: readonly string[];
  /** The shrunk first failure's saved tape, replayed (null: no shrink, or its tape is gone). */
  shrunk?: SeedTrace | null;
}

/** What writing a report directory did: the files written, and those that could not be (one line each). */
export interface WrittenFiles {
  written: string[];
  failed: OutputError[];
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
  const page = renderRunHtml({
    report: content.report,
    traces: content.traces,
    notes: content.notes,
    shrunk: content.shrunk ?? null,
    withFiles: true,
  });
  put("index.html", (path) => writeFileAtomic(path, page, "the HTML report"));
  return files;
}

/** Only the page (`eosfuzz report RUN.json --html FILE`). */
export function writeReportHtml(file: string, content: ReportContent): void {
  writeFileAtomic(
    file,
    renderRunHtml({
      report: content.report,
      traces: content.traces,
      notes: content.notes,
      shrunk: content.shrunk ?? null,
      withFiles: false,
    }),
    "the HTML report",
  );
}

/** The page of one replayed seed (`eosfuzz replay FILE --html FILE`). */
export function writeReplayHtml(file: string, view: ReplayView): void {
  writeFileAtomic(file, renderReplayHtml(view), "the HTML page");
}
