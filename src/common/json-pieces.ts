/**
 * JSON text in pieces: what JSON.stringify(value, null, indent) returns, handed to a sink piece by
 * piece, none of which holds more than one small sub-value. A report of millions of seeds is longer
 * than V8's longest string (about 512 MiB): JSON.stringify of it throws "Invalid string length",
 * while its pieces can be written to a file one after the other.
 */

/**
 * Containers this deep or deeper (a violation, a coverage row) are stringified whole: they are
 * small, and one JSON.stringify each keeps the whole within a few times JSON.stringify's own time.
 */
const SPLIT_DEPTH = 2;

/** A value as JSON.stringify sees it: through its toJSON (a Date's is its ISO string). */
function toJsonValue(key: string, value: unknown): unknown {
  const withToJson = value as { toJSON?: (key: string) => unknown } | null;
  if (withToJson !== null && typeof withToJson === "object" && typeof withToJson.toJSON === "function")
    return withToJson.toJSON(key);
  return value;
}

/** Values JSON.stringify leaves out of an object (and writes as null in an array). */
function isSkipped(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function emit(value: unknown, indent: number, depth: number, sink: (piece: string) => void): void {
  if (value === null || typeof value !== "object" || depth >= SPLIT_DEPTH) {
    const text = JSON.stringify(value, null, indent);
    sink(indent > 0 && depth > 0 ? text.replace(/\n/g, `\n${" ".repeat(indent * depth)}`) : text);
    return;
  }
  const inner = indent > 0 ? `\n${" ".repeat(indent * (depth + 1))}` : "";
  const outer = indent > 0 ? `\n${" ".repeat(indent * depth)}` : "";
  if (Array.isArray(value)) {
    if (value.length === 0) {
      sink("[]");
      return;
    }
    if (depth + 1 >= SPLIT_DEPTH) {
      emitArrayInBatches(value, indent, depth, sink);
      return;
    }
    for (let i = 0; i < value.length; i++) {
      sink(i === 0 ? `[${inner}` : `,${inner}`);
      const v = toJsonValue(String(i), value[i]);
      if (isSkipped(v)) sink("null");
      else emit(v, indent, depth + 1, sink);
    }
    sink(`${outer}]`);
    return;
  }
  const record = value as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(record)) {
    const v = toJsonValue(key, record[key]);
    if (isSkipped(v)) continue;
    sink(`${first ? "{" : ","}${inner}${JSON.stringify(key)}:${indent > 0 ? " " : ""}`);
    first = false;
    emit(v, indent, depth + 1, sink);
  }
  sink(first ? "{}" : `${outer}}`);
}

/** Elements stringified together: one JSON.stringify and one re-indent per batch, not per element. */
const BATCH = 256;

/**
 * An array whose elements are stringified whole, BATCH at a time: JSON.stringify of a slice, its
 * brackets taken off and its lines indented to the array's depth. (An element's toJSON is called
 * with its index in the slice, not in the array; no value a report holds has a toJSON that reads it.)
 */
function emitArrayInBatches(
  value: readonly unknown[],
  indent: number,
  depth: number,
  sink: (piece: string) => void,
): void {
  const pad = indent > 0 ? `\n${" ".repeat(indent * depth)}` : "";
  for (let i = 0; i < value.length; i += BATCH) {
    const text = JSON.stringify(value.slice(i, i + BATCH), null, indent);
    // "[\n  a,\n  b\n]" (or "[a,b]"): what is between the brackets, without the newline before "]".
    const body = text.slice(1, indent > 0 ? -2 : -1);
    sink(`${i === 0 ? "[" : ","}${pad ? body.replace(/\n/g, pad) : body}`);
  }
  sink(`${pad}]`);
}

/** Hand the pieces of JSON.stringify(value, null, indent) (indent 0: compact) to `sink`; joined, they equal it. */
export function emitJson(value: unknown, indent: number, sink: (piece: string) => void): void {
  const v = toJsonValue("", value);
  if (!isSkipped(v)) emit(v, indent, 0, sink);
}

/** The pieces of a (small) value as a list: what emitJson hands its sink. */
export function jsonPieces(value: unknown, indent = 0): string[] {
  const pieces: string[] = [];
  emitJson(value, indent, (piece) => pieces.push(piece));
  return pieces;
}

/** Gathers pieces into chunks of about `size` characters and hands each to `flush` (fewer, larger writes). */
export class Chunker {
  private parts: string[] = [];
  private length = 0;

  constructor(
    private readonly flush: (chunk: string) => void,
    private readonly size = 1 << 20,
  ) {}

  readonly push = (piece: string): void => {
    this.parts.push(piece);
    this.length += piece.length;
    if (this.length >= this.size) this.end();
  };

  /** Hand over what is gathered. */
  end(): void {
    if (this.length === 0) return;
    this.flush(this.parts.join(""));
    this.parts = [];
    this.length = 0;
  }
}
