import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { EXIT, InternalError, reportFatal } from "../../src/cli/errors.js";
import { executeJob } from "../../src/fuzz/executor/run-job.js";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { readResultsLog, ResultsLog, resultsFile } from "../../src/report/results-log.js";
import { InputError } from "../../src/common/input-error.js";
import { resolveScenario } from "../../src/scenario/loader.js";

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-internal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stderrOf(fn: () => number): { code: number; text: string } {
  let text = "";
  const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
    text += String(chunk);
    return true;
  });
  try {
    return { code: fn(), text };
  } finally {
    spy.mockRestore();
  }
}

describe("internal errors", () => {
  afterEach(() => vi.restoreAllMocks());

  it("an internal error is exit 3 with the seed, the replay command and a hint to report it, never a stack", () => {
    const cause = new TypeError(
      "cannot read properties of undefined (reading 'epoch')\n    at Tally.add (tally.js:10:5)",
    );
    const { code, text } = stderrOf(() =>
      reportFatal(
        new InternalError(
          cause,
          1234,
          "eosfuzz run --scenario kip-1228 --seed-start 1234 --seeds 1",
          "out (eosfuzz run --resume out)",
        ),
      ),
    );
    expect(code).toBe(EXIT.internal);
    expect(text).toContain("internal error at seed 1234: cannot read properties of undefined (reading 'epoch')");
    expect(text).toContain("replay: eosfuzz run --scenario kip-1228 --seed-start 1234 --seeds 1");
    expect(text).toContain("results so far: out (eosfuzz run --resume out)");
    expect(text).toMatch(/bug in eosfuzz, not in Kafka: please report it/);
    expect(text).not.toMatch(/\bat .+:\d+:\d+/);
    expect(text.trim().split("\n").length).toBeLessThanOrEqual(4);
  });

  it("an error with no known seed still gets the command and the hint, and bad input stays exit 2 in one line", () => {
    const internal = stderrOf(() => reportFatal(new RangeError("boom\n    at x (y.js:1:2)")));
    expect(internal.code).toBe(3);
    expect(internal.text).toMatch(/^eosfuzz: internal error: boom\n {2}command: eosfuzz /);
    expect(internal.text).not.toMatch(/y\.js/);
    const input = stderrOf(() => reportFatal(new InputError("a.yaml", "seeds", "expected a number, found x")));
    expect(input).toEqual({ code: 2, text: "eosfuzz: a.yaml seeds: expected a number, found x\n" });
  });
});

describe("results.jsonl", () => {
  const loaded = resolveScenario("kip-1228-small");
  const config = runConfigFor(loaded);
  const outcomes = [0, 1, 2].map((seed) => executeJob(config, { index: seed, input: { seed } }));

  it("reads back what was appended, coverage points and all; a torn last line is ignored and cut off on resume", () => {
    const out = join(dir, "torn");
    mkdirSync(out, { recursive: true });
    const log = ResultsLog.create(out, {
      scenario: "kip-1228-small",
      scenarioHash: loaded.contentHash,
      args: { seeds: 3 },
    });
    for (const o of outcomes.slice(0, 2)) log.append(o);
    log.close();
    appendFileSync(resultsFile(out), '{"index":2,"seed":2,"traceHa'); // killed mid-write
    const read = readResultsLog(out);
    expect(read.outcomes.map((o) => o.seed)).toEqual([0, 1]);
    expect(read.outcomes[1]?.coverage.map((p) => p.key)).toEqual(outcomes[1]?.coverage.map((p) => p.key));
    expect(read.outcomes[1]?.violations).toEqual(outcomes[1]?.violations);
    const resumed = ResultsLog.resume(out, read);
    resumed.append(outcomes[2] as (typeof outcomes)[number]);
    resumed.close();
    const again = readResultsLog(out);
    expect(again.outcomes.map((o) => [o.seed, o.traceHash])).toEqual(outcomes.map((o) => [o.seed, o.traceHash]));
    expect(
      readFileSync(resultsFile(out), "utf8")
        .split("\n")
        .every((l) => l === "" || JSON.parse(l)),
    ).toBe(true);
  });

  it("a damaged line in the middle or a missing header is one InputError line naming the line", () => {
    const out = join(dir, "damaged");
    mkdirSync(out, { recursive: true });
    ResultsLog.create(out, { scenario: "s", scenarioHash: "h", args: {} }).close();
    appendFileSync(resultsFile(out), "not json\n{}\n");
    expect(() => readResultsLog(out)).toThrow(
      /results\.jsonl:2:1: expected one JSON object per line, found a damaged line$/,
    );
    writeFileSync(resultsFile(out), '{"index":0}\n');
    expect(() => readResultsLog(out)).toThrow(/results\.jsonl:1:1 format: expected a "eosfuzz-results" header/);
  });
});
