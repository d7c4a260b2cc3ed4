import { describe, expect, it } from "vitest";
import { discoveryCurve, kindByRelease } from "../../src/report/html/campaign-charts.js";
import { renderExtraField } from "../../src/report/html/extra-fields.js";
import { renderReplayHtml, renderRunHtml } from "../../src/report/html/page.js";
import type { ReportedViolation, RunReport } from "../../src/report/run-report.js";
import { campaignReport, firstGapFailure } from "./report-fixtures.js";

const { loaded, trace } = firstGapFailure();

function violation(
  seed: number,
  kind: string,
  brokerRelease: string | undefined,
  unexpected = false,
): ReportedViolation {
  return {
    kind,
    seed,
    traceHash: "0".repeat(16),
    summary: "s",
    explanation: "s",
    steps: [],
    atMs: 1,
    replay: "r",
    unexpected,
    ...(brokerRelease ? { brokerRelease, broker: "b" } : {}),
  };
}

describe("campaign charts", () => {
  const base = campaignReport(loaded, 0, 1).report;
  const report: RunReport = {
    ...base,
    seedStart: 100,
    seedsRun: 50,
    violations: [
      violation(103, "stale-marker", "4.1"),
      violation(103, "aborted-read", "4.1", true),
      violation(120, "stale-marker", "4.1"),
      violation(130, "stale-marker", "3.x"),
      violation(140, "hanging-transaction", undefined, true),
    ],
  };

  it("counts violations by kind and broker release, with distinct seeds", () => {
    const m = kindByRelease(report);
    expect(m.kinds).toEqual(["aborted-read", "hanging-transaction", "stale-marker"]);
    expect(m.releases).toEqual(["(no broker)", "3.x", "4.1"]);
    expect(m.count["stale-marker"]).toEqual({ "4.1": 2, "3.x": 1 });
    expect(m.seeds["stale-marker"]).toBe(3);
    expect(m.unexpected).toEqual({ "aborted-read": true, "hanging-transaction": true, "stale-marker": false });
  });

  it("draws the seeds-to-first-violation curve as a step function of seeds run", () => {
    const stale = discoveryCurve(report).find((c) => c.kind === "stale-marker");
    expect(stale?.firstSeed).toBe(103);
    expect(stale?.points).toEqual([
      [0, 0],
      [3, 0],
      [4, 1],
      [20, 1],
      [21, 2],
      [30, 2],
      [31, 3],
      [50, 3],
    ]);
  });

  it("renders sections of a shape it does not know (another version's coverage, strategy, new fields) generically, under headings in words", () => {
    const html = renderRunHtml({
      report: {
        ...report,
        coverage: {
          states: [
            { state: "marker@4.2.1 while txn open", seeds: 12 },
            { state: "marker@4.1 after bump", seeds: 0 },
          ],
        },
        strategy: "swarm",
        someNewField: { answer: 42 },
      } as unknown as RunReport,
      traces: [],
    });
    expect(html).toContain(
      "<h2>Protocol-state coverage</h2><table><tr><th>states</th><td><table><tr><th>state</th><th>seeds</th></tr><tr><td>marker@4.2.1 while txn open</td>",
    );
    expect(html).toContain("<h2>Search</h2>swarm");
    expect(html).toContain('<h2>Some new field</h2><table><tr><th>answer</th><td><span class="mono">42</span>');
    expect(renderExtraField([1, "a<b"])).toBe('<span class="mono">1</span>, a&lt;b');
  });
});

describe("pages", () => {
  it("a replay page holds one diagram, says whether the trace matches the recording, and escapes text", () => {
    const html = renderReplayHtml({
      trace: { ...trace, scenario: "<x>" },
      replayCommand: "eosfuzz replay seeds/x.json",
    });
    expect(html.match(/class="diagram"/g)).toHaveLength(1);
    expect(html).toContain("reproduced: trace hash matches the recording");
    expect(html).toContain("eosfuzz · &lt;x&gt; · seed");
    expect(renderReplayHtml({ trace: { ...trace, recordedTraceHash: "ffffffffffffffff" } })).toContain(
      "trace differs from the recording",
    );
  });

  it("a run page says why a failure has no diagram", () => {
    const { report } = campaignReport(loaded, trace.seed, 1);
    const html = renderRunHtml({ report, traces: [], notes: ["No diagrams: scenario gone"] });
    expect(html).toContain("No diagrams: scenario gone");
    expect(html).not.toContain('class="diagram"');
  });
});
