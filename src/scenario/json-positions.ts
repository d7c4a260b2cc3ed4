import { InputError } from "../common/input-error.js";
/**
 * Where a path lies in a JSON text, for `file:line:col` messages about JSON files (seed files). It
 * walks the text once along the path, skipping every other value, so it costs a fraction of a
 * full parse (the YAML parser takes ~80 ms for a 30 KB seed file; this takes well under 1 ms).
 * It assumes text that JSON.parse accepted.
 */

type Path = readonly (string | number)[];

/** The offset of the value at `path` (or of the deepest part of it that exists); with `key`, of that key inside it. */
export function jsonOffsetOf(text: string, path: Path, key?: string): number {
  const scan = new Scanner(text);
  let best = scan.skipSpace();
  for (const step of key === undefined ? path : [...path, key]) {
    const at = scan.enter(step);
    if (at === null) return best;
    best = at.keyAt !== null && step === key ? at.keyAt : at.valueAt;
  }
  return best;
}

/** 1-based line and column of an offset. */
export function lineColOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < Math.min(offset, text.length); i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: Math.min(offset, text.length) - lineStart + 1 };
}

class Scanner {
  private i = 0;
  constructor(private readonly text: string) {}

  skipSpace(): number {
    while (this.i < this.text.length && " \t\r\n".includes(this.text[this.i] as string)) this.i++;
    return this.i;
  }

  /** Move into the member `step` of the object or array at the cursor; null if there is none. */
  enter(step: string | number): { keyAt: number | null; valueAt: number } | null {
    const open = this.text[this.skipSpace()];
    if (open === "{" && typeof step === "string") {
      this.i++;
      while (this.skipSpace() < this.text.length && this.text[this.i] !== "}") {
        const keyAt = this.i;
        const name = this.readString();
        this.skipSpace();
        this.i++; // ':'
        const valueAt = this.skipSpace();
        if (name === step) return { keyAt, valueAt };
        this.skipValue();
        if (this.text[this.skipSpace()] === ",") this.i++;
      }
      return null;
    }
    if (open === "[" && typeof step === "number") {
      this.i++;
      for (let index = 0; this.skipSpace() < this.text.length && this.text[this.i] !== "]"; index++) {
        if (index === step) return { keyAt: null, valueAt: this.i };
        this.skipValue();
        if (this.text[this.skipSpace()] === ",") this.i++;
      }
    }
    return null;
  }

  private readString(): string {
    const start = this.i;
    this.i++; // opening quote
    while (this.i < this.text.length && this.text[this.i] !== '"') this.i += this.text[this.i] === "\\" ? 2 : 1;
    this.i++;
    try {
      return JSON.parse(this.text.slice(start, this.i)) as string;
    } catch {
      return "";
    }
  }

  private skipValue(): void {
    const c = this.text[this.skipSpace()];
    if (c === '"') {
      this.readString();
      return;
    }
    if (c !== "{" && c !== "[") {
      while (this.i < this.text.length && !",}] \t\r\n".includes(this.text[this.i] as string)) this.i++;
      return;
    }
    let depth = 0;
    while (this.i < this.text.length) {
      const ch = this.text[this.i];
      if (ch === '"') {
        this.readString();
        continue;
      }
      if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") depth--;
      this.i++;
      if (depth === 0) return;
    }
  }
}

/** What JSON.parse's error says about a text, for "expected ..., found ..." (and where, when it says). */
export function describeJsonSyntaxError(
  text: string,
  error: Error,
): { found: string; position: { line: number; col: number } | null } {
  if (text.trim() === "") return { found: "an empty file", position: null };
  const message = error.message.split("\n")[0] ?? "";
  const at = /position (\d+)/.exec(message);
  const offset = at ? Number(at[1]) : null;
  const cutShort =
    /end of (JSON )?input|Unterminated/i.test(message) || (offset !== null && offset >= text.trimEnd().length);
  const found = cutShort
    ? "it cut short (truncated?)"
    : `text that is not JSON (${message.replace(/ in JSON at position \d+.*$/, "")})`;
  const where = offset ?? (cutShort ? text.length : null);
  return { found, position: where !== null ? lineColOf(text, where) : null };
}

/** JSON.parse of a user's file, or one InputError line: "expected <expected>, found <the syntax error>" at its position. */
export function parseJsonInput(text: string, file: string, expected: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const { found, position } = describeJsonSyntaxError(text, e as Error);
    throw new InputError(file, "", `expected ${expected}, found ${found}`, position);
  }
}
