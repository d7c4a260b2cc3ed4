import { join } from "node:path";
import type { SeedTrace } from "../fuzz/failure-traces.js";
import { reportedFailures, shivizFileName } from "./failure-selection.js";
import { type ReplayView, renderReplayHtml, renderRunHtml } from "./html/page.js";
import { renderJunit } from "./junit.js";
import type { RunReport } from "./run-report.js";
import { shivizLog } from "./shiviz.js";
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

/**
 * The report directory of a run: run.json (the `--json` object), index.html, junit.xml and one
 * ShiViz log per reported failure. Each file is written then renamed, so a reader never sees half
 * of one. Returns the files written.
 */
export function writeReportDir(dir: string, content: ReportContent): string[] {
  const written: string[] = [];
  const put = (name: string, text: string) => {
    writeFileAtomic(join(dir, name), text);
    written.push(join(dir, name));
  };
  writeJsonAtomic(join(dir, "run.json"), content.report);
  written.push(join(dir, "run.json"));
  put("junit.xml", renderJunit(content.report));
  const bySeed = new Map(content.traces.map((t) => [t.seed, t]));
  const seeds = new Set(reportedFailures(content.report).map((v) => v.seed));
  for (const seed of seeds) {
    const trace = bySeed.get(seed);
    if (trace) put(shivizFileName(seed), shivizLog(trace.events));
  }
  put(
    "index.html",
    renderRunHtml({ report: content.report, traces: content.traces, notes: content.notes, withFiles: true }),
  );
  return written;
}

/** Only the page (`eosfuzz report RUN.json --html FILE`). */
export function writeReportHtml(file: string, content: ReportContent): void {
  writeFileAtomic(
    file,
    renderRunHtml({ report: content.report, traces: content.traces, notes: content.notes, withFiles: false }),
  );
}

/** The page of one replayed seed (`eosfuzz replay FILE --html FILE`). */
export function writeReplayHtml(file: string, view: ReplayView): void {
  writeFileAtomic(file, renderReplayHtml(view));
}
