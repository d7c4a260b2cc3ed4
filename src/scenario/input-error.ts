import { readFileSync } from "node:fs";

/**
 * Bad input from a user: a scenario, a seed file, a flag. Printed as one line
 * (`file:line:col field: what was expected, what was found`) with exit code 2, never a stack.
 */
export class InputError extends Error {
  override readonly name = "InputError";
  constructor(
    readonly file: string,
    readonly field: string,
    readonly problem: string,
    readonly position: { line: number; col: number } | null = null,
  ) {
    super(formatInputError(file, field, problem, position));
  }
}

export function formatInputError(file: string, field: string, problem: string, position: { line: number; col: number } | null): string {
  const where = position ? `${file}:${position.line}:${position.col}` : file;
  return field ? `${where} ${field}: ${problem}` : `${where}: ${problem}`;
}

/** Read a user's file as UTF-8 text, or fail with one line (unreadable, or bigger than `maxBytes`). */
export function readInputFile(path: string, maxBytes: number, what: string): string {
  let buffer: Buffer;
  try {
    buffer = readFileSync(path);
  } catch (e) {
    throw new InputError(path, "", `cannot read the file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (buffer.length > maxBytes) throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found ${buffer.length}`);
  return buffer.toString("utf8");
}

/** A found value in a few words, for "expected ..., found ..." messages. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string") return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "object") return "a map";
  return String(value);
}
