import { describe, expect, it } from "vitest";
import { SHIVIZ_DEFAULT_REGEX, shivizLog } from "../../src/report/shiviz.js";
import { firstGapFailure } from "./report-fixtures.js";

type Clock = Record<string, number>;
interface Parsed {
  event: string;
  host: string;
  clock: Clock;
}

/**
 * Parse a log as ShiViz does with its default expression (flags g and m), and insist that the
 * matches cover every line: nothing between or after them is skipped.
 */
function parseLikeShiviz(body: string): Parsed[] {
  const re = new RegExp(SHIVIZ_DEFAULT_REGEX, "gm");
  const parsed: Parsed[] = [];
  let covered = 0;
  for (let m = re.exec(body); m; m = re.exec(body)) {
    expect(m.index, `text skipped before offset ${m.index}`).toBe(covered);
    const groups = m.groups as Record<string, string>;
    parsed.push({
      event: groups.event as string,
      host: groups.host as string,
      clock: JSON.parse(groups.clock as string) as Clock,
    });
    covered = m.index + m[0].length + 1;
  }
  expect(covered).toBe(body.length);
  return parsed;
}

describe("the ShiViz log of a failure", () => {
  const { trace } = firstGapFailure();
  const log = shivizLog(trace.events);
  const lines = log.split("\n");
  const parsed = parseLikeShiviz(lines.slice(2).join("\n"));

  it("starts with the parsing expression and an empty delimiter line, then two lines per event", () => {
    expect(lines[0]).toBe(SHIVIZ_DEFAULT_REGEX);
    expect(lines[1]).toBe("");
    expect(parsed).toHaveLength(trace.events.length);
    expect(parsed.map((p) => p.host)).toEqual(trace.events.map((e) => e.node));
  });

  it("gives each host a clock that starts at 1 and grows by one per event, naming only hosts of the log", () => {
    const counts = new Map<string, number>();
    const problems: string[] = [];
    for (const p of parsed) {
      const own = (counts.get(p.host) ?? 0) + 1;
      counts.set(p.host, own);
      if (p.clock[p.host] !== own) problems.push(`${p.event}: own clock ${p.clock[p.host]}, expected ${own}`);
    }
    for (const p of parsed) {
      for (const [host, time] of Object.entries(p.clock)) {
        if (!counts.has(host) || time < 1 || time > (counts.get(host) as number))
          problems.push(`${p.event}: ${host}=${time} out of bounds`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("has the clocks ShiViz computes back from the happens-before edges (no impermissible clock)", () => {
    const byHost = new Map<string, Clock[]>();
    const problems: string[] = [];
    let remoteEdges = 0;
    for (const p of parsed) {
      const history = byHost.get(p.host) ?? [];
      const prev: Clock = history.at(-1) ?? {};
      const expected: Clock = { ...prev };
      for (const [host, time] of Object.entries(p.clock)) {
        if (host === p.host || time <= (prev[host] ?? 0)) continue;
        remoteEdges++;
        const parent = byHost.get(host)?.[time - 1] as Clock;
        for (const [h, t] of Object.entries(parent)) expected[h] = Math.max(expected[h] ?? 0, t);
      }
      expected[p.host] = (prev[p.host] ?? 0) + 1;
      if (JSON.stringify(Object.entries(p.clock).sort()) !== JSON.stringify(Object.entries(expected).sort()))
        problems.push(`${p.event}: ${JSON.stringify(p.clock)}, expected ${JSON.stringify(expected)}`);
      history.push(p.clock);
      byHost.set(p.host, history);
    }
    expect(problems).toEqual([]);
    expect(remoteEdges).toBeGreaterThan(1000);
  });

  it("puts the stale marker's application causally after the coordinator sent it", () => {
    const violation = trace.violations.find((v) => v.kind === "stale-marker");
    const applied = parsed.find(
      (p) =>
        p.host === violation?.broker &&
        p.event.includes("marker.append") &&
        p.event.startsWith(`t=${violation?.atMs}ms`) &&
        p.event.includes(`txn=${violation?.markerIssuedFor}`),
    );
    const corr = /corr=(\d+)/.exec(applied?.event ?? "")?.[1];
    const sendIndex = parsed.findIndex((p) => p.event.includes("markers.send") && p.event.includes(` corr=${corr} `));
    expect(sendIndex).toBeGreaterThanOrEqual(0);
    const send = parsed[sendIndex] as Parsed;
    expect(applied?.clock[send.host]).toBeGreaterThanOrEqual(send.clock[send.host] as number);
  });
});
