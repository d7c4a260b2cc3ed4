import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Size limits of the model (issue 29): no file of src/kafka over 600 lines, no function over 70 lines,
 * none with more than 5 positional parameters. A file that grows past them holds more than one idea; a
 * long parameter list is a call site where arguments can swap unseen (an options object names them).
 * Measured with the TypeScript compiler, so arrow functions, methods, accessors and constructors count.
 */

const SRC = join(import.meta.dirname, "../../src");

const LIMITS = { fileLines: 600, functionLines: 70, positionalParameters: 5 };

/** The folders held to the limits, relative to src/. */
const FOLDERS = ["kafka/"];

interface SourceFile {
  /** Relative to src/, with / separators. */
  path: string;
  text: string;
}

function sourceFiles(folder: string): SourceFile[] {
  return (readdirSync(join(SRC, folder), { recursive: true }) as string[])
    .map((p) => folder + p.split("\\").join("/"))
    .filter((p) => p.endsWith(".ts") && !p.endsWith(".d.ts"))
    .sort()
    .map((path) => ({ path, text: readFileSync(join(SRC, path), "utf8") }));
}

function lineCount(text: string): number {
  const lines = text.split("\n").length;
  return text.endsWith("\n") ? lines - 1 : lines;
}

interface FunctionSize {
  /** `path:line name`, the place a breach names. */
  where: string;
  lines: number;
  parameters: number;
}

/** Every function with a body in `file`: its lines (signature to closing brace) and positional parameters. */
function functionsOf(file: SourceFile): FunctionSize[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.Latest, true);
  const out: FunctionSize[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      // `this:` declares the receiver's type; the caller passes no argument for it.
      const parameters = fn.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === "this")).length;
      const name = fn.name?.getText(source) ?? (ts.isConstructorDeclaration(fn) ? "constructor" : "(anonymous)");
      out.push({ where: `src/${file.path}:${first + 1} ${name}`, lines: last - first + 1, parameters });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every breach of LIMITS in `files`, one line each, naming the place and the measure. */
function sizeViolations(files: readonly SourceFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const lines = lineCount(file.text);
    if (lines > LIMITS.fileLines)
      out.push(`src/${file.path} has ${lines} lines (at most ${LIMITS.fileLines}): split it by idea`);
    for (const fn of functionsOf(file)) {
      if (fn.lines > LIMITS.functionLines)
        out.push(`${fn.where} has ${fn.lines} lines (at most ${LIMITS.functionLines})`);
      if (fn.parameters > LIMITS.positionalParameters)
        out.push(
          `${fn.where} takes ${fn.parameters} positional parameters (at most ${LIMITS.positionalParameters}): pass an options object`,
        );
    }
  }
  return out;
}

describe("the size limits of the model", () => {
  it("hold in src/kafka: files, functions and parameter lists", () => {
    const files = FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    expect(sizeViolations(files)).toEqual([]);
  });

  it("catch a planted long file, long function and long parameter list", () => {
    const body = Array.from({ length: 71 }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const planted: SourceFile[] = [
      { path: "kafka/long.ts", text: "export const x = 1;\n".repeat(601) },
      { path: "kafka/fn.ts", text: `export function long() {\n${body}\n}\n` },
      {
        path: "kafka/params.ts",
        text: [
          "export class C {",
          "  m(a: number, b: number, c: number, d: number, e: number, f: number): void {}",
          "  ok(this: C, a: number, b: number, c: number, d: number, e: number): void {}",
          "}",
          "export const g = (a: number, b: number, c: number, d: number, e: number, f: number) => a;",
        ].join("\n"),
      },
    ];
    expect(sizeViolations(planted)).toEqual([
      "src/kafka/long.ts has 601 lines (at most 600): split it by idea",
      "src/kafka/fn.ts:1 long has 73 lines (at most 70)",
      "src/kafka/params.ts:2 m takes 6 positional parameters (at most 5): pass an options object",
      "src/kafka/params.ts:5 (anonymous) takes 6 positional parameters (at most 5): pass an options object",
    ]);
  });
});
