/**
 * JSON text in pieces: what JSON.stringify(value, null, indent) returns, as a sequence of strings
 * none of which holds more than one small sub-value. A report of millions of seeds is longer than
 * V8's longest string (about 512 MiB): JSON.stringify of it throws "Invalid string length", while
 * its pieces can be written to a file one after the other.
 */

/** Containers this deep or deeper are stringified whole (a violation's fields, a tape): they are small. */
const SPLIT_DEPTH = 3;

type Json = unknown;

/** A value as JSON.stringify sees it: through its toJSON (a Date's is its ISO string). */
function toJsonValue(key: string, value: Json): Json {
  const withToJson = value as { toJSON?: (key: string) => unknown } | null;
  if (withToJson !== null && typeof withToJson === "object" && typeof withToJson.toJSON === "function")
    return withToJson.toJSON(key);
  return value;
}

/** Values JSON.stringify leaves out of an object (and writes as null in an array). */
function isSkipped(value: Json): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

/** JSON.stringify of a small value, indented to sit at `depth`. */
function whole(value: Json, indent: number, depth: number): string {
  const text = JSON.stringify(value, null, indent);
  return indent > 0 && depth > 0 ? text.replace(/\n/g, `\n${" ".repeat(indent * depth)}`) : text;
}

function* pieces(value: Json, indent: number, depth: number): Generator<string> {
  if (value === null || typeof value !== "object" || depth >= SPLIT_DEPTH) {
    yield whole(value, indent, depth);
    return;
  }
  const inner = indent > 0 ? `\n${" ".repeat(indent * (depth + 1))}` : "";
  const outer = indent > 0 ? `\n${" ".repeat(indent * depth)}` : "";
  if (Array.isArray(value)) {
    if (value.length === 0) {
      yield "[]";
      return;
    }
    yield "[";
    for (let i = 0; i < value.length; i++) {
      yield i === 0 ? inner : `,${inner}`;
      const v = toJsonValue(String(i), value[i]);
      if (isSkipped(v)) yield "null";
      else yield* pieces(v, indent, depth + 1);
    }
    yield `${outer}]`;
    return;
  }
  const record = value as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(record)) {
    const v = toJsonValue(key, record[key]);
    if (isSkipped(v)) continue;
    yield `${first ? "{" : ","}${inner}${JSON.stringify(key)}:${indent > 0 ? " " : ""}`;
    first = false;
    yield* pieces(v, indent, depth + 1);
  }
  yield first ? "{}" : `${outer}}`;
}

/** The pieces of JSON.stringify(value, null, indent) (indent 0: compact); joined, they equal it. */
export function* jsonPieces(value: unknown, indent = 0): Generator<string> {
  const v = toJsonValue("", value);
  if (isSkipped(v)) return;
  yield* pieces(v, indent, 0);
}

/** Pieces gathered into chunks of about `size` characters (fewer, larger writes). */
export function* chunked(parts: Iterable<string>, size = 1 << 20): Generator<string> {
  let buffer: string[] = [];
  let length = 0;
  for (const part of parts) {
    buffer.push(part);
    length += part.length;
    if (length >= size) {
      yield buffer.join("");
      buffer = [];
      length = 0;
    }
  }
  if (length > 0) yield buffer.join("");
}
