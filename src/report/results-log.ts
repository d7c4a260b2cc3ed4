import { closeSync, existsSync, openSync, truncateSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { JobOutcome } from "../fuzz/executor/run-job.js";
import { type CoveragePoint, parseStateKey } from "../oracle/protocol-coverage.js";
import { outputErrorOf } from "../common/output-error.js";
import { InputError } from "../common/input-error.js";
import { readInputBytes } from "../common/read-input.js";
import { TOOL_VERSION } from "../version.js";

/**
 * results.jsonl in a run's --out directory: a header line, then one line per run in campaign
 * order, appended as each run is tallied. A coverage point's long key is written once, on a line
 * of its own (`{"point":ID,"key":...}`) before the first run that reached it; runs name points by
 * ID (`"coverage":[[ID,count],...]`), which keeps a line near 200 bytes. Every line is written whole with one write(2), so a
 * kill at any moment leaves a file that is valid up to its last complete line; `run --resume DIR`
 * reads it back and continues after the last run it holds.
 */
export const RESULTS_FILE = "results.jsonl";
export const RESULTS_FORMAT = "eosfuzz-results";
export const RESULTS_FORMAT_VERSION = 1;

/** Largest results log read back (a Buffer's limit); about ten million runs. */
const MAX_RESULTS_BYTES = 2_000_000_000;

/** The settings a resumed campaign must reuse unchanged (the command-line values of the first run). */
export type CampaignArgs = Record<string, string | number | boolean | number[] | string[] | null>;

export interface ResultsHeader {
  format: typeof RESULTS_FORMAT;
  version: number;
  tool: string;
  scenario: string;
  scenarioHash: string;
  args: CampaignArgs;
}

/** A coverage point's line: its ID is its position; its state is parsed from its key once, when read. */
type PointOfLog = Pick<CoveragePoint, "key" | "state">;

/** A run as results.jsonl holds it: its outcome without what only a live search uses, points by ID. */
type LoggedOutcome = Omit<JobOutcome, "choicePoints" | "coverage"> & { coverage: [number, number][] };

export function resultsFile(dir: string): string {
  return join(dir, RESULTS_FILE);
}

/** Appends lines to results.jsonl; opened fresh (truncating) for a new run, or after `validBytes` for a resumed one. */
export class ResultsLog {
  private fd: number | null;
  private readonly pointIds: Map<string, number>;
  private readonly file: string;

  private constructor(fd: number, pointIds: Map<string, number>, file: string) {
    this.fd = fd;
    this.pointIds = pointIds;
    this.file = file;
  }

  static create(dir: string, header: Omit<ResultsHeader, "format" | "version" | "tool">): ResultsLog {
    const fd = openLog(resultsFile(dir), "w");
    const log = new ResultsLog(fd, new Map(), resultsFile(dir));
    log.writeLine({ format: RESULTS_FORMAT, version: RESULTS_FORMAT_VERSION, tool: TOOL_VERSION, ...header });
    return log;
  }

  /** Continue a log read by readResultsLog: a torn last line (a kill mid-write) is cut off first. */
  static resume(dir: string, read: Pick<ReadResults, "validBytes" | "pointIds">): ResultsLog {
    try {
      truncateSync(resultsFile(dir), read.validBytes);
    } catch (e) {
      throw outputErrorOf(resultsFile(dir), "the results log", e);
    }
    return new ResultsLog(openLog(resultsFile(dir), "a"), new Map(read.pointIds), resultsFile(dir));
  }

  append(outcome: JobOutcome): void {
    const { choicePoints: _, coverage, ...rest } = outcome;
    const ids: [number, number][] = [];
    for (const p of coverage) {
      let id = this.pointIds.get(p.key);
      if (id === undefined) {
        id = this.pointIds.size;
        this.pointIds.set(p.key, id);
        this.writeLine({ point: id, key: p.key });
      }
      ids.push([id, p.count]);
    }
    const logged: LoggedOutcome = { ...rest, coverage: ids };
    this.writeLine(logged);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private writeLine(value: unknown): void {
    if (this.fd === null) throw new Error("results log already closed");
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`, "utf8");
    // One line, written whole at the end of the file: a reader never sees a torn line but the last.
    try {
      let written = 0;
      while (written < bytes.length) written += writeSync(this.fd, bytes, written, bytes.length - written, null);
    } catch (e) {
      throw outputErrorOf(this.file, "the results log", e);
    }
  }
}

function openLog(file: string, flags: "w" | "a"): number {
  try {
    return openSync(file, flags);
  } catch (e) {
    throw outputErrorOf(file, "the results log", e);
  }
}

export interface ReadResults {
  header: ResultsHeader;
  outcomes: JobOutcome[];
  /** Coverage point keys and their IDs in this file. */
  pointIds: Map<string, number>;
  /** Bytes up to the end of the last complete line (what a resumed log keeps). */
  validBytes: number;
  /** The line (1-based) of each outcome, for messages about it. */
  lines: number[];
  /** The file's size when read (a torn last line included). */
  size: number;
}

/** Read results.jsonl back; a torn last line is ignored, anything else malformed is one InputError line. */
export function readResultsLog(dir: string): ReadResults {
  const file = resultsFile(dir);
  if (!existsSync(file))
    throw new InputError(file, "", `expected the results of a run started with --out ${dir}, found no such file`);
  const bytes = readInputBytes(file, MAX_RESULTS_BYTES, "a results log (results.jsonl)");
  const validBytes = bytes.lastIndexOf(NEWLINE) + 1;
  const lines = splitLines(bytes, validBytes);
  const header = parseLine(file, lines[0], 1) as Partial<ResultsHeader> | null;
  if (
    header?.format !== RESULTS_FORMAT ||
    header.version !== RESULTS_FORMAT_VERSION ||
    typeof header.args !== "object" ||
    header.args === null
  ) {
    throw new InputError(
      file,
      "format",
      `expected a "${RESULTS_FORMAT}" header (version ${RESULTS_FORMAT_VERSION}) on line 1, found ${lines.length === 0 ? "an empty file" : "something else"}`,
      { line: 1, col: 1 },
    );
  }
  const points: PointOfLog[] = [];
  const outcomes: JobOutcome[] = [];
  const outcomeLines: number[] = [];
  for (let i = 1; i < lines.length; i++) {
    const value = parseLine(file, lines[i], i + 1) as { point?: unknown; key?: unknown } | null;
    if (value !== null && typeof value === "object" && "point" in value) {
      const state = typeof value.key === "string" ? parseStateKey(value.key) : null;
      if (value.point !== points.length || state === null)
        throw new InputError(
          file,
          "point",
          `expected point ${points.length} with the key of a protocol state, found another`,
          {
            line: i + 1,
            col: 1,
          },
        );
      points.push({ key: value.key as string, state });
    } else {
      outcomes.push(outcomeOfLine(file, value, i + 1, points));
      outcomeLines.push(i + 1);
    }
  }
  return {
    header: header as ResultsHeader,
    outcomes,
    pointIds: new Map(points.map((p, id) => [p.key, id])),
    validBytes,
    lines: outcomeLines,
    size: bytes.length,
  };
}

const NEWLINE = 0x0a;

/** The complete lines of the first `end` bytes, each still as bytes (a whole log may exceed V8's longest string). */
function splitLines(bytes: Buffer, end: number): Buffer[] {
  const lines: Buffer[] = [];
  for (let from = 0; from < end; ) {
    const to = bytes.indexOf(NEWLINE, from);
    lines.push(bytes.subarray(from, to));
    from = to + 1;
  }
  return lines;
}

function parseLine(file: string, line: Buffer | undefined, lineNumber: number): unknown {
  try {
    return JSON.parse(line?.toString("utf8") ?? "");
  } catch {
    throw new InputError(file, "", "expected one JSON object per line, found a damaged line", {
      line: lineNumber,
      col: 1,
    });
  }
}

function outcomeOfLine(file: string, value: unknown, line: number, points: readonly PointOfLog[]): JobOutcome {
  const o = value as Partial<LoggedOutcome> | null;
  const ok =
    o !== null &&
    typeof o === "object" &&
    Number.isSafeInteger(o.index) &&
    (o.seed === null || Number.isSafeInteger(o.seed)) &&
    typeof o.traceHash === "string" &&
    Array.isArray(o.violations) &&
    Array.isArray(o.coverage) &&
    o.coverage.every((c) => Array.isArray(c) && points[c[0]] !== undefined && Number.isSafeInteger(c[1])) &&
    typeof o.events === "number" &&
    typeof o.virtualTimeMs === "number";
  if (!ok)
    throw new InputError(
      file,
      "",
      "expected a run's result (index, seed, traceHash, violations, coverage, events), found a line without them",
      { line, col: 1 },
    );
  const logged = o as LoggedOutcome;
  return {
    ...logged,
    coverage: logged.coverage.map(([id, count]) => {
      const { key, state } = points[id] as PointOfLog;
      return { state, key, count, from: null, link: null };
    }),
    choicePoints: null,
  };
}
