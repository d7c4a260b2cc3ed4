import { closeSync, constants, openSync, readFileSync, readSync, statSync } from "node:fs";

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

/**
 * Several problems of one input at once (every schema problem of a scenario file): its message is
 * the first problem's line with a count of the others; `all` holds each as an InputError of its own,
 * which the command line prints one per line.
 */
export class InputErrors extends InputError {
  constructor(readonly all: readonly InputError[]) {
    const first = all[0];
    if (!first) throw new RangeError("InputErrors of no problem");
    const more = all.length > 1 ? ` (+${all.length - 1} more problem${all.length > 2 ? "s" : ""})` : "";
    super(first.file, first.field, `${first.problem}${more}`, first.position);
  }
}

/** Every problem an error stands for: the list of an InputErrors, else the error itself. */
export function problemsOf(error: InputError): readonly InputError[] {
  return error instanceof InputErrors ? error.all : [error];
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
  // No file: the problem is the whole line (an unknown option of the command line).
  const line = file === "" ? problem : field ? `${where} ${field}: ${problem}` : `${where}: ${problem}`;
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
    const buffer = stat.isFIFO() ? readPipe(path, maxBytes, what) : readFileSync(path);
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

/** A named pipe with no writer this long is given up (reading it would wait for ever). */
export const PIPE_LIMITS = { noWriterMs: 5_000, silentWriterMs: 60_000 };

/**
 * Read a named pipe (a FIFO, or `<(...)`) without hanging: opened non-blocking, read while a writer
 * sends, given up with one line when no writer comes (or one sends nothing) for too long.
 */
function readPipe(path: string, maxBytes: number, what: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const chunk = Buffer.alloc(64 * 1024);
  const chunks: Buffer[] = [];
  let total = 0;
  let writer = false;
  let waitedMs = 0;
  try {
    for (;;) {
      let n = -1;
      try {
        n = readSync(fd, chunk, 0, chunk.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
        writer = true; // a writer is there, with nothing to say yet
      }
      if (n > 0) {
        writer = true;
        waitedMs = 0;
        chunks.push(Buffer.from(chunk.subarray(0, n)));
        total += n;
        if (total > maxBytes) throw new InputError(path, "", `expected ${what} under ${maxBytes} bytes, found more`);
        continue;
      }
      if (n === 0 && writer) break; // the writer closed its end: all there is
      const limit = writer ? PIPE_LIMITS.silentWriterMs : PIPE_LIMITS.noWriterMs;
      if (waitedMs >= limit)
        throw new InputError(
          path,
          "",
          `expected ${what}, found a named pipe ${writer ? "whose writer sent nothing" : "with no writer"} for ${limit / 1000} s`,
        );
      Atomics.wait(sleeper, 0, 0, 20);
      waitedMs += 20;
    }
  } finally {
    closeSync(fd);
  }
  return Buffer.concat(chunks);
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
