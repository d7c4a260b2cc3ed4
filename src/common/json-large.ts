/**
 * JSON.parse of bytes that may be longer than V8's longest string (about 512 MiB), such as the
 * run.json of a campaign of millions of seeds. Small texts are parsed as usual; a big one is walked
 * byte by byte, and only its big arrays and objects are split: every other value (a violation, a
 * coverage table) is parsed alone, from a string of its own.
 */

export const JSON_LARGE_LIMITS = {
  /** Below this many bytes the text is parsed whole. */
  wholeBytes: 256 * 1024 * 1024,
  /** A container at least this big is split into its members. */
  splitBytes: 16 * 1024 * 1024,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** A JSON text that does not parse, with the byte offset where it stopped making sense. */
export class JsonBytesError extends Error {
  override readonly name = "JsonBytesError";
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

function skipSpace(bytes: Buffer, i: number, end: number): number {
  while (i < end && isSpace(bytes[i])) i++;
  return i;
}

/** The end (exclusive) of the string starting at the quote at `i`. */
function stringEnd(bytes: Buffer, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const b = bytes[j];
    if (b === BACKSLASH) j++;
    else if (b === QUOTE) return j + 1;
  }
  throw new JsonBytesError("a string that does not end", i);
}

/** The end (exclusive) of the value starting at `i` (no leading space). */
function valueEnd(bytes: Buffer, i: number, end: number): number {
  const b = bytes[i];
  if (b === QUOTE) return stringEnd(bytes, i, end);
  if (b !== OPEN_BRACE && b !== OPEN_BRACKET) {
    let j = i;
    while (j < end) {
      const c = bytes[j];
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break;
      j++;
    }
    if (j === i) throw new JsonBytesError("a value", i);
    return j;
  }
  let depth = 0;
  for (let j = i; j < end; j++) {
    const c = bytes[j];
    if (c === QUOTE) j = stringEnd(bytes, j, end) - 1;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
    else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  throw new JsonBytesError("a container that does not end", i);
}

function parseSlice(bytes: Buffer, start: number, end: number): unknown {
  try {
    return JSON.parse(bytes.toString("utf8", start, end));
  } catch (e) {
    throw new JsonBytesError((e as Error).message, start);
  }
}

/** The value in bytes [start, end): split if it is a big container, else parsed whole. */
function parseValue(bytes: Buffer, start: number, end: number): unknown {
  const open = bytes[start];
  if (end - start < JSON_LARGE_LIMITS.splitBytes || (open !== OPEN_BRACE && open !== OPEN_BRACKET))
    return parseSlice(bytes, start, end);
  const isArray = open === OPEN_BRACKET;
  const close = isArray ? CLOSE_BRACKET : CLOSE_BRACE;
  const items: unknown[] = [];
  const record: Record<string, unknown> = {};
  let i = skipSpace(bytes, start + 1, end);
  if (bytes[i] === close) return isArray ? items : record;
  for (;;) {
    let key = "";
    if (!isArray) {
      if (bytes[i] !== QUOTE) throw new JsonBytesError("a key", i);
      const keyEnd = stringEnd(bytes, i, end);
      key = parseSlice(bytes, i, keyEnd) as string;
      i = skipSpace(bytes, keyEnd, end);
      if (bytes[i] !== COLON) throw new JsonBytesError("a colon", i);
      i = skipSpace(bytes, i + 1, end);
    }
    const stop = valueEnd(bytes, i, end);
    const value = parseValue(bytes, i, stop);
    if (isArray) items.push(value);
    else if (key === "__proto__") Object.defineProperty(record, key, { value, enumerable: true, writable: true });
    else record[key] = value;
    i = skipSpace(bytes, stop, end);
    if (bytes[i] === COMMA) {
      i = skipSpace(bytes, i + 1, end);
      continue;
    }
    if (bytes[i] === close) return isArray ? items : record;
    throw new JsonBytesError("a comma or the end of the container", i);
  }
}

/** JSON.parse of UTF-8 bytes of any size a Buffer holds; a damaged text throws JsonBytesError with its offset. */
export function parseJsonBytes(bytes: Buffer): unknown {
  if (bytes.length < JSON_LARGE_LIMITS.wholeBytes) return parseSlice(bytes, 0, bytes.length);
  const start = skipSpace(bytes, bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0, bytes.length);
  if (start >= bytes.length) throw new JsonBytesError("a value", start);
  const stop = valueEnd(bytes, start, bytes.length);
  if (skipSpace(bytes, stop, bytes.length) !== bytes.length) throw new JsonBytesError("the end of the text", stop);
  return parseValue(bytes, start, stop);
}
