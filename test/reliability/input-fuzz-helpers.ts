import fc from "fast-check";
import { expect } from "vitest";
import { InputError } from "../../src/common/input-error.js";

/**
 * Shared pieces of the input-fuzzing tests: values no schema expects, edits of a valid document at
 * random places, and the check that a rejection is one clean line.
 */

/** The fixed seed of the input-fuzzing properties (EOSFUZZ_FUZZ_SEED=N explores others). */
export const FUZZ_SEED = Number(process.env.EOSFUZZ_FUZZ_SEED ?? 20_251_129);

/** Runs per property: the issue asks for at least 2,000 generated inputs each. */
export const FUZZ_RUNS = 2_000;

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Path = (string | number)[];

/** Values of every wrong shape: other types, out-of-range and huge numbers, odd strings, nesting. */
export const weirdValue: fc.Arbitrary<Json> = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
  fc.constantFrom(-1, 0, 0.5, -0.000001, 1e9, 2 ** 31, 2 ** 53 + 2, 1e21, 1e300, -1e300, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 30 }),
  fc.constantFrom(
    "",
    " ",
    "4.5",
    "4.2.1",
    "3.x",
    "broker-99",
    "tc-0",
    "orders-0",
    "NaN",
    "true",
    "\u0000",
    "\u001b[31m",
    "é🙂",
    "x".repeat(5_000),
  ),
  fc.boolean(),
  fc.constant(null),
  fc.constant([] as Json[]),
  fc.constant({} as Json),
  fc.array(fc.integer(), { maxLength: 5 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.integer(), { maxKeys: 3 }),
  fc.integer({ min: 1, max: 60 }).map((depth) => nested(depth)),
);

/** An array nested `depth` levels deep. */
export function nested(depth: number): Json {
  let v: Json = 1;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Every path into a JSON value (maps and lists), the root first. */
export function pathsOf(value: Json, prefix: Path = [], out: Path[] = []): Path[] {
  out.push(prefix);
  if (Array.isArray(value)) for (const [i, v] of value.entries()) pathsOf(v, [...prefix, i], out);
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out);
  return out;
}

function parentOf(root: Json, path: Path): Record<string | number, Json> | null {
  let v: Json = root;
  for (const key of path.slice(0, -1)) {
    if (v === null || typeof v !== "object") return null;
    v = (v as Record<string | number, Json>)[key] as Json;
  }
  return v !== null && typeof v === "object" ? (v as Record<string | number, Json>) : null;
}

/** One edit of a document: replace a value, delete a key, or add an unknown field. */
export type Edit =
  | { op: "set"; pick: number; value: Json }
  | { op: "delete"; pick: number }
  | { op: "add"; pick: number; key: string; value: Json };

export const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("set" as const), pick: fc.nat(), value: weirdValue }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), pick: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("add" as const),
      pick: fc.nat(),
      key: fc.string({ minLength: 1, maxLength: 12 }),
      value: weirdValue,
    }),
  },
);

/** Apply edits to a deep copy of `doc`; each edit picks one of the document's paths (modulo their count). */
export function applyEdits(doc: Json, edits: readonly Edit[]): Json {
  let root = structuredClone(doc);
  for (const e of edits) {
    const paths = pathsOf(root);
    const path = paths[e.pick % paths.length] as Path;
    if (path.length === 0) {
      if (e.op === "set") root = e.value;
      continue;
    }
    const parent = parentOf(root, path);
    if (!parent) continue;
    const key = path[path.length - 1] as string | number;
    if (e.op === "set") parent[key] = e.value;
    else if (e.op === "add") {
      const target = parent[key];
      if (target !== null && typeof target === "object" && !Array.isArray(target))
        (target as Record<string, Json>)[e.key] = e.value;
    } else if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  }
  return root;
}

/** Text cut, spliced or garbled: truncated at a point, a byte range replaced, or raw bytes. */
export function textDamage(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.nat({ max: valid.length }).map((at) => valid.slice(0, at)),
    fc
      .tuple(fc.nat({ max: valid.length }), fc.nat({ max: 40 }), fc.string({ maxLength: 20 }))
      .map(([at, cut, insert]) => valid.slice(0, at) + insert + valid.slice(at + cut)),
    fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes).toString("utf8")),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
    fc.string({ maxLength: 200 }),
    fc.constantFrom("", "   \n", "\uFEFF", "---\n...\n", "null", "[]", "42", '"a string"', "{}", "\t\t"),
  );
}

/**
 * A rejection must be an InputError printed as one line: no newline, no control character that
 * would garble a terminal, no stack frame, of a readable length, starting with the file it is about,
 * naming the field when there is one, and saying what was expected (or the one it was probably meant to be).
 */
export function expectCleanInputError(error: unknown, file: string): asserts error is InputError {
  if (!(error instanceof InputError))
    throw new Error(
      `expected an InputError, got ${(error as Error)?.name}: ${(error as Error)?.message}\n${(error as Error)?.stack}`,
    );
  const line = error.message;
  expect(line, "one line").not.toMatch(/[\n\r]/);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
  expect(line, "no control characters").not.toMatch(/[\u0000-\u001f\u007f]/);
  expect(line, "no stack frame").not.toMatch(/\s+at .+:\d+:\d+\)?$/m);
  expect(line.length, `readable length: ${line}`).toBeLessThanOrEqual(600);
  expect(line.startsWith(file), `names the file: ${line}`).toBe(true);
  if (error.field !== "") expect(line, "names the field").toContain(` ${error.field}: `);
  // A did-you-mean names the one field or value that was expected.
  expect(line, "says what was expected").toMatch(/expected|\(did you mean /);
}

/** Parse with `parse`: its result if it accepts, null if it rejects with a clean line (anything else fails the test). */
export function acceptedOrCleanlyRejected<T>(parse: () => T, file: string): T | null {
  try {
    return parse();
  } catch (e) {
    expectCleanInputError(e, file);
    return null;
  }
}

/** Call `fn` and hand back what it threw (or null). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
    return null;
  } catch (e) {
    return e;
  }
}
