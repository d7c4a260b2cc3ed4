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
