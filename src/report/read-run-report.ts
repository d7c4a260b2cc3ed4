import type { z } from "zod";
import { describeFound, InputError, readInputFile } from "../scenario/input-error.js";
import { parseJsonInput } from "../scenario/json-positions.js";
import type { RunReport } from "./run-report.js";
import { runReportSchema } from "./run-report-schema.js";

/** Bound on a run.json read back: big campaigns stay far below it (violations are one line each). */
const MAX_REPORT_BYTES = 512 * 1024 * 1024;

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const key of path)
    v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

const fieldName = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("") ||
  "(top level)";

/**
 * Read and validate a run report (run.json, or what `run --json` printed). Bad input is one
 * InputError line naming the file, the field, what was expected and what was found.
 */
export function readRunReport(file: string): RunReport {
  const text = readInputFile(file, MAX_REPORT_BYTES, "a run report");
  const data = parseJsonInput(text, file, "a JSON run report (run.json or the output of run --json)");
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
