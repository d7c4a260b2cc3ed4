import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createProgress, formatDuration, heartbeatLine } from "../../src/report/progress.js";
import { readRunReport } from "../../src/report/read-run-report.js";
import { deterministicPart, WALL_CLOCK_FIELDS } from "../../src/report/run-report.js";
import { runReportJsonSchema, runReportSchema } from "../../src/report/run-report-schema.js";
import { InputError } from "../../src/common/input-error.js";
import { ROOT } from "../cli/cli-helpers.js";
import { campaignReport, firstGapFailure, withExpectation } from "./report-fixtures.js";

const { loaded, trace } = firstGapFailure();

describe("run report", () => {
  it("is sorted by seed, judges each violation, and splits the expectation into checks", () => {
    // The scenario's own allow list: what consumers see when a stale marker lands.
    const strict = withExpectation(loaded, { find: ["stale-marker"], within: 2, allow: loaded.scenario.expect.allow });
    const { report } = campaignReport(strict, trace.seed, 3);
    expect(report.violations.map((v) => v.seed)).toEqual(
      [...report.violations.map((v) => v.seed)].sort((a, b) => a - b),
    );
    expect(report.violations.every((v) => v.unexpected === false)).toBe(true);
    expect(report.expectationChecks).toEqual([
      {
        clause: "find",
        name: "finds stale-marker within 2 seeds",
        met: true,
        detail: `first found at seed ${trace.seed} (1 seeds in)`,
      },
      {
        clause: "nothing-unexpected",
        name: "no violation the expectation does not allow",
        met: true,
        detail: "none in 3 seeds",
      },
    ]);
  });

  it("has a deterministic part that equal runs share, and wall-clock fields apart from it", () => {
    const a = campaignReport(loaded, trace.seed, 2).report;
    const b = {
      ...campaignReport(loaded, trace.seed, 2).report,
      wallMs: 5,
      eventsPerSecond: 7,
      seedsPerSecond: 9,
      startedAt: "2030-01-01T00:00:00.000Z",
    };
    expect(JSON.stringify(deterministicPart(a))).toBe(JSON.stringify(deterministicPart(b)));
    for (const field of WALL_CLOCK_FIELDS) expect(deterministicPart(a)).not.toHaveProperty(field);
  });

  it("matches its schema, and the JSON Schema file in the repository is up to date (npm run schema:report)", () => {
    const { report } = campaignReport(loaded, trace.seed, 2);
    expect(runReportSchema.safeParse(JSON.parse(JSON.stringify(report))).success).toBe(true);
    expect(readFileSync(join(ROOT, "schema/run-report.schema.json"), "utf8")).toBe(runReportJsonSchema());
  });

  it("reads back a report, keeping fields it does not know; bad input is one line naming file, field and what was found", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-read-"));
    const { report } = campaignReport(loaded, trace.seed, 1);
    const good = join(dir, "run.json");
    writeFileSync(good, JSON.stringify({ ...report, fieldOfALaterVersion: { reached: 3 } }));
    expect(readRunReport(good)).toMatchObject({ scenario: "kip-1228-gap", fieldOfALaterVersion: { reached: 3 } });
    const cases: [string, RegExp][] = [
      ["{ not json", /^.*bad\.json:1:3: expected a JSON run report \(run\.json or the output of run --json\), found /],
      ["[1, 2]", /bad\.json: expected a JSON object \(a run report\), found a list of 2$/],
      [
        JSON.stringify({ ...report, violations: [{ ...report.violations[0], seed: "27" }] }),
        /bad\.json violations\[0\]\.seed: expected number, found "27"$/,
      ],
      [JSON.stringify({ ...report, schemaVersion: 99 }), /bad\.json schemaVersion: .*found 99$/],
    ];
    for (const [text, message] of cases) {
      writeFileSync(join(dir, "bad.json"), text);
      let error: unknown = null;
      try {
        readRunReport(join(dir, "bad.json"));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(InputError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain("\n");
    }
    expect(() => readRunReport(join(dir, "missing.json"))).toThrow(
      /missing\.json: expected a run report, found no such file/,
    );
  });
});

describe("progress", () => {
  function fakeStream(isTTY: boolean): NodeJS.WriteStream & { text: string } {
    const s = {
      isTTY,
      text: "",
      columns: 100,
      write(chunk: string) {
        s.text += chunk;
        return true;
      },
      cursorTo() {
        return true;
      },
      clearLine() {
        return true;
      },
      moveCursor() {
        return true;
      },
      on() {
        return s;
      },
      removeListener() {
        return s;
      },
    };
    return s as unknown as NodeJS.WriteStream & { text: string };
  }

  it("prints a heartbeat line at most once per interval when stderr is not a terminal", () => {
    let now = 0;
    const stream = fakeStream(false);
    const p = createProgress({ scenario: "kip-1228-gap", total: 100, stream, heartbeatMs: 1000, now: () => now });
    for (let done = 1; done <= 100; done++) {
      now += 100;
      p.update(done, done >= 50 ? 1 : 0);
    }
    p.stop();
    const lines = stream.text.trim().split("\n");
    expect(lines).toHaveLength(9);
    expect(lines[4]).toBe("eosfuzz kip-1228-gap: 50/100 seeds (50%), 10.0 seeds/s, 1 violation, ETA 5s");
  });

  it("draws a bar with seeds/s, violations and ETA on a terminal, and nothing when disabled", () => {
    const tty = fakeStream(true);
    const p = createProgress({ scenario: "s", total: 10, stream: tty, env: {} });
    p.update(5, 2);
    p.stop();
    expect(tty.text).toMatch(/5\/10 seeds \| [\d.]+ seeds\/s \| 2 violations \| ETA/);
    const quiet = fakeStream(false);
    createProgress({ scenario: "s", total: 10, stream: quiet, enabled: false }).update(10, 0);
    expect(quiet.text).toBe("");
    expect(heartbeatLine("s", 0, 10, 0, 0)).toContain("ETA ?");
    expect(formatDuration(3_725_000)).toBe("1h02m");
  });
});
