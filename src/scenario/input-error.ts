import { readFileSync, statSync } from "node:fs";

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

/** Longest message printed: a line a terminal shows whole. */
const MAX_MESSAGE_CHARS = 500;
const MAX_NAME_CHARS = 160;

export function formatInputError(
  file: string,
  field: string,
  problem: string,
  position: { line: number; col: number } | null,
): string {
  // A name longer than a line (a pasted blob as a file name) is cut, so what was expected still shows.
  const name = file.length > MAX_NAME_CHARS ? `${file.slice(0, MAX_NAME_CHARS - 3)}...` : file;
  const where = position ? `${name}:${position.line}:${position.col}` : name;
  const line = field ? `${where} ${field}: ${problem}` : `${where}: ${problem}`;
  return printable(line.length > MAX_MESSAGE_CHARS ? `${line.slice(0, MAX_MESSAGE_CHARS - 3)}...` : line);
}

/** Control characters (from binary garbage or a file name) escaped, so the line cannot garble a terminal. */
export function printable(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters to escape
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Read a user's file as UTF-8 text, or fail with one line (unreadable, or bigger than `maxBytes`). */
export function readInputFile(path: string, maxBytes: number, what: string): string {
  return readInputBytes(path, maxBytes, what).toString("utf8");
}

/**
 * Read a user's file, or fail with one line. A regular file's size is checked before reading, so a
 * huge file is refused instead of filling memory (a pipe, as from `<(...)`, is checked once read).
 */
export function readInputBytes(path: string, maxBytes: number, what: string): Buffer {
  try {
    const stat = statSync(path);
    if (stat.isDirectory()) throw Object.assign(new Error("a directory"), { code: "EISDIR" });
    if (stat.isFile() && stat.size > maxBytes)
      throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found ${stat.size}`);
    const buffer = readFileSync(path);
    if (buffer.length > maxBytes)
      throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found ${buffer.length}`);
    return buffer;
  } catch (e) {
    if (e instanceof InputError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    const found =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "a directory"
          : `a file it cannot read (${code ?? (e as Error).message})`;
    throw new InputError(path, "", `expected ${what}, found ${found}`);
  }
}

/** A found value in a few words, for "expected ..., found ..." messages. */
export function describeFound(value: unknown): string {
  if (value === undefined) return "nothing";
  if (typeof value === "string")
    return value.length > 40 ? `${JSON.stringify(value.slice(0, 40)).slice(0, -1)}..."` : JSON.stringify(value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "object") return "a map";
  return String(value);
}
