import type { z } from "zod";
import { JSON_LARGE_LIMITS, JsonBytesError, parseJsonBytes } from "../common/json-large.js";
import { describeFound, InputError } from "../common/input-error.js";
import { readInputBytes } from "../common/read-input.js";
import { parseJsonInput } from "../scenario/json-positions.js";
import type { RunReport } from "./run-report.js";
import { runReportSchema } from "./run-report-schema.js";

/** Bound on a run.json read back (what one Buffer reads); one above V8's longest string is read in pieces. */
const MAX_REPORT_BYTES = 2_000_000_000;

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const key of path)
    v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

const fieldName = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("") ||
  "(top level)";

const WHAT = "a JSON run report (run.json or the output of run --json)";

/** The JSON of a report: a small one with line and column on error, a big one (millions of seeds) in pieces. */
function parseReportBytes(bytes: Buffer, file: string): unknown {
  if (bytes.length < JSON_LARGE_LIMITS.wholeBytes) return parseJsonInput(bytes.toString("utf8"), file, WHAT);
  try {
    return parseJsonBytes(bytes);
  } catch (e) {
    if (!(e instanceof JsonBytesError)) throw e;
    throw new InputError(file, "", `expected ${WHAT}, found damaged JSON at byte ${e.offset}`);
  }
}

/**
 * Read and validate a run report (run.json, or what `run --json` printed). Bad input is one
 * InputError line naming the file, the field, what was expected and what was found.
 */
export function readRunReport(file: string): RunReport {
  const bytes = readInputBytes(file, MAX_REPORT_BYTES, "a run report");
  const data = parseReportBytes(bytes, file);
  if ((data as { format?: unknown } | null)?.format === "eosfuzz-seed") {
    throw new InputError(
      file,
      "",
      "expected a run report (run.json or the output of run --json), found a seed file (replay it with eosfuzz replay)",
    );
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw new InputError(file, "", `expected a JSON object (a run report), found ${describeFound(data)}`);
  const parsed = runReportSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as z.core.$ZodIssue;
    const found = describeFound(valueAt(data, issue.path));
    const expected =
      issue.code === "invalid_type" ? `expected ${issue.expected}` : issue.message.replace(/^Invalid input: /, "");
    const more = parsed.error.issues.length > 1 ? ` (+${parsed.error.issues.length - 1} more problems)` : "";
    throw new InputError(file, fieldName(issue.path), `${expected}, found ${found}${more}`);
  }
  // Keep the object as written: fields this version does not know (coverage, statistics) stay.
  return data as RunReport;
}
