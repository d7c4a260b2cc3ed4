import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { JSON_LARGE_LIMITS, parseJsonBytes } from "../../src/common/json-large.js";
import { jsonPieces } from "../../src/common/json-pieces.js";
import { eosfuzz, FAILING_SEEDS_RUN, ROOT } from "../cli/cli-helpers.js";

// Item 1 of "Trustworthy in CI and on long campaigns": a campaign of millions of seeds writes its
// run.json (JSON.stringify of one string fails near 1.6 million seeds of kip-1228-gap with
// "Invalid string length", V8's longest string being about 512 MiB), and reads it back (merge,
// report). Here, the writer and reader against JSON.stringify and JSON.parse on random values, and
// once for real on a report whose JSON is longer than the longest string.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-large-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = fc.jsonValue({ maxDepth: 6 });

describe("JSON in pieces", () => {
  it("the pieces join to what JSON.stringify gives, indented or compact, with undefined, toJSON and nesting", () => {
    const withOdd = fc.oneof(
      json,
      fc.record({
        a: json,
        skipped: fc.constant(undefined),
        fn: fc.constant(() => 1),
        date: fc.date({ noInvalidDate: true }),
        list: fc.array(fc.oneof(json, fc.constant(undefined)), { maxLength: 5 }),
      }),
    );
    fc.assert(
      fc.property(withOdd, fc.constantFrom(0, 2), (value, indent) => {
        expect(jsonPieces(value, indent).join("")).toBe(JSON.stringify(value, null, indent));
      }),
      { numRuns: 2_000 },
    );
  });

  it("big texts are walked and split where JSON.parse would take them whole", () => {
    const saved = { ...JSON_LARGE_LIMITS };
    JSON_LARGE_LIMITS.wholeBytes = 0;
    JSON_LARGE_LIMITS.splitBytes = 8;
    try {
      fc.assert(
        fc.property(json, fc.constantFrom(0, 2), (value, indent) => {
          const bytes = Buffer.from(JSON.stringify(value, null, indent), "utf8");
          expect(parseJsonBytes(bytes)).toEqual(JSON.parse(bytes.toString("utf8")));
        }),
        { numRuns: 2_000 },
      );
      expect(() => parseJsonBytes(Buffer.from('{"a": [1, 2'))).toThrow();
      expect(() => parseJsonBytes(Buffer.from('{"a": 1} x'))).toThrow();
    } finally {
      Object.assign(JSON_LARGE_LIMITS, saved);
    }
  });

  it("a run.json longer than V8's longest string is written and read back (in a process of its own)", () => {
    // The report's violations share their strings, so it is small in memory; its JSON is not.
    const file = join(dir, "run.json");
    const script = join(dir, "big.mjs");
    const templateFile = join(dir, "template.json");
    const template = eosfuzz([...FAILING_SEEDS_RUN, "--json"]);
    writeFileSync(templateFile, template.stdout);
    writeFileSync(
      script,
      `import { writeJsonAtomic } from ${JSON.stringify(join(ROOT, "dist/common/write-files.js"))};
       import { readRunReport } from ${JSON.stringify(join(ROOT, "dist/report/read-run-report.js"))};
       import { readFileSync } from "node:fs";
       const template = JSON.parse(readFileSync(${JSON.stringify(templateFile)}, "utf8"));
       const explanation = "x".repeat(30_000);
       const steps = [explanation];
       const count = 10_000;
       const violations = Array.from({ length: count }, (_, i) => ({ ...template.violations[0], seed: i, explanation, steps }));
       const report = { ...template, seedsRun: count, violations };
       let stringifyFailed = false;
       try { JSON.stringify(report, null, 2); } catch (e) { stringifyFailed = /Invalid string length/.test(e.message); }
       writeJsonAtomic(${JSON.stringify(file)}, report, "the run report");
       const back = readRunReport(${JSON.stringify(file)});
       console.log(JSON.stringify({ stringifyFailed, count: back.violations.length, last: back.violations[count - 1].seed, length: back.violations[7].explanation.length }));`,
    );
    const r = spawnSync(process.execPath, ["--max-old-space-size=6144", script], {
      encoding: "utf8",
      timeout: 300_000,
    });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual({ stringifyFailed: true, count: 10_000, last: 9_999, length: 30_000 });
    expect(statSync(file).size).toBeGreaterThan(2 ** 29);
  }, 300_000);
});
