import { describe, expect, it } from "vitest";
import type { SeedTrace } from "../../src/fuzz/seeds/failure-traces.js";
import { renderSpaceTimeSvg } from "../../src/report/html/svg-diagram.js";
import { buildSpaceTime } from "../../src/report/space-time.js";
import { linkMessages } from "../../src/report/trace-links.js";
import type { ClusterEvents } from "../../src/kafka/trace-events.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import { firstGapFailure } from "./report-fixtures.js";

/** One event of a hand-made trace: [timeMs, node, kind, fields], the fields as the kind declares them. */
type Row = { [K in keyof ClusterEvents]: [number, string, K, ClusterEvents[K]] }[keyof ClusterEvents];

/** A hand-made trace, in order. */
function trace(rows: Row[]): TraceEvent[] {
  return rows.map(([timeMs, node, kind, fields], index) => ({ index, timeMs, node, kind, fields, hash: "0" }));
}

const servers: SeedTrace["servers"] = [
  { id: "tc-0", role: "coordinator", release: "4.2.1", roles: "coordinator of __transaction_state-0" },
  { id: "broker-0", role: "broker", release: "4.1", roles: "leader of orders-0" },
];

describe("message links", () => {
  const events = trace([
    [0, "tc-0", "net.send", { conn: 1, corr: 7, to: "broker-0", msg: "WriteTxnMarkers" }],
    [0, "tc-0", "net.duplicate", { conn: 1, corr: 7, dir: "request" }],
    [2, "broker-0", "net.deliver", { conn: 1, corr: 7, from: "tc-0", msg: "WriteTxnMarkers" }],
    [2, "broker-0", "net.reply", { conn: 1, corr: 7, to: "tc-0", msg: "WriteTxnMarkers" }],
    [3, "p0", "net.send", { conn: 2, corr: 8, to: "broker-0", msg: "Produce" }],
    [3, "p0", "net.drop", { conn: 2, corr: 8, cause: "loss", dir: "request" }],
    [5, "tc-0", "net.close", { conn: 1, reason: "request 7 timed out after 4ms" }],
    [9, "broker-0", "net.deliver", { conn: 1, corr: 7, from: "tc-0", msg: "WriteTxnMarkers" }],
    [9, "tc-0", "net.late-response", { conn: 1, corr: 7, msg: "WriteTxnMarkers" }],
  ]);

  it("pairs sends with arrivals by (connection, correlation id), with duplicates, drops and late responses", () => {
    const links = linkMessages(events);
    expect(links.map((l) => [l.direction, l.api, l.sendIndex, l.arriveIndex, l.fate, l.duplicate])).toEqual([
      ["request", "WriteTxnMarkers", 0, 2, "delivered", false],
      ["response", "WriteTxnMarkers", 3, 8, "late", false],
      ["request", "Produce", 4, null, "dropped", false],
      ["request", "WriteTxnMarkers", 0, 7, "delivered", true],
    ]);
  });

  it("draws one arrow per link between lanes, a cross for the dropped one", () => {
    const st = buildSpaceTime(
      {
        scenario: "hand-made",
        seed: 1,
        traceHash: "0",
        recordedTraceHash: null,
        events,
        eventCount: events.length,
        violations: [],
        servers,
      },
      null,
    );
    expect(st.lanes.map((l) => l.id)).toEqual(["tc-0", "broker-0", "p0"]);
    expect(st.arrows).toHaveLength(4);
    const svg = renderSpaceTimeSvg(st, "t");
    expect(svg.match(/class="msg /g)).toHaveLength(4);
    expect(svg).toMatch(/fate-dropped[^>]*data-i="4"/);
    expect(svg).toContain('class="cross"');
    expect(svg).toMatch(/fate-late[^>]*data-i="3" data-j="8"/);
  });

  it("turns stalls, cut links, pauses and failovers into bands on the time axis", () => {
    const faults = trace([
      [10, "broker-0", "fault.stall", { untilMs: 40 }],
      [12, "tc-0", "fault.partition", { to: "broker-0", untilMs: 30 }],
      [15, "p0", "producer.pause", { untilMs: 50 }],
      [
        20,
        "controller",
        "controller.leader",
        {
          partition: "__transaction_state-0",
          leader: "broker-0",
          from: "tc-0",
          leaderEpoch: 2,
          isr: "tc-0,broker-0",
          cause: "reassign",
        },
      ],
      [60, "cluster", "quiet-period", { untilMs: 90 }],
      [90, "broker-0", "coordinator.elected", { partition: 0, ce: 2 }],
    ]);
    const st = buildSpaceTime(
      {
        scenario: "hand-made",
        seed: 1,
        traceHash: "0",
        recordedTraceHash: null,
        events: faults,
        eventCount: faults.length,
        violations: [],
        servers,
      },
      null,
    );
    expect(st.bands.map((b) => [b.kind, b.lanes, b.fromMs, b.toMs])).toEqual([
      ["stall", ["broker-0"], 10, 40],
      ["partition", ["tc-0", "broker-0"], 12, 30],
      ["pause", ["p0"], 15, 50],
      ["failover", ["tc-0", "broker-0"], 20, 20],
      ["quiet", [], 60, 90],
    ]);
    const svg = renderSpaceTimeSvg(st, "t");
    for (const kind of ["stall", "partition", "pause", "failover", "quiet"]) expect(svg).toContain(`band band-${kind}`);
  });
});

describe("the diagram of a kip-1228-gap failure", () => {
  const { trace: failure } = firstGapFailure();
  const violation = failure.violations.find((v) => v.kind === "stale-marker");
  const st = buildSpaceTime(failure, violation);

  it("has one lane per node, coordinators first, with the brokers' releases", () => {
    expect(st.lanes.map((l) => l.role)).toEqual(
      [...st.lanes.map((l) => l.role)].sort(
        (a, b) =>
          ["coordinator", "broker", "producer", "consumer"].indexOf(a) -
          ["coordinator", "broker", "producer", "consumer"].indexOf(b),
      ),
    );
    expect(st.lanes.find((l) => l.id === "broker-2")).toMatchObject({ role: "broker", release: "4.1" });
    expect(st.lanes.filter((l) => l.role === "producer").length).toBeGreaterThanOrEqual(1);
  });

  it("highlights the stale marker where it was applied, and the records it closed", () => {
    const stale = st.events.filter((e) => e.emphasis === "stale");
    const applied = stale.find((e) => e.kind === "marker.append");
    expect(applied).toMatchObject({ lane: violation?.broker, timeMs: violation?.atMs });
    expect(stale.some((e) => e.kind === "markers.send")).toBe(true);
    const victims = st.events.filter((e) => e.emphasis === "victim");
    expect(victims.length).toBeGreaterThan(0);
    expect(victims.every((e) => e.kind === "produce.append" && e.text.includes(`txn=${violation?.transaction}`))).toBe(
      true,
    );
    const staleArrow = st.arrows.find((a) => a.emphasis === "stale" && a.direction === "request");
    expect(staleArrow).toMatchObject({ api: "WriteTxnMarkers", to: violation?.broker, arriveMs: violation?.atMs });
    expect(staleArrow?.label).toMatch(/ABORT|COMMIT/);
    expect(staleArrow?.label).toContain("dropped (v1)");
    expect(st.violation?.index).toBe(applied?.index);
  });

  it("shows how long the stale copy was in the network as a band", () => {
    expect(st.bands.some((b) => b.kind === "slow" && b.lanes.includes(violation?.broker ?? "?"))).toBe(true);
  });

  it("labels every WriteTxnMarkers arrow with its key fields", () => {
    const requests = st.arrows.filter((a) => a.api === "WriteTxnMarkers" && a.direction === "request");
    expect(requests.length).toBeGreaterThan(0);
    for (const a of requests)
      expect(a.label).toMatch(/^WriteTxnMarkers #\d+\.\d+ (COMMIT|ABORT) p\d\.t\d+ pid \d+ e\d+ ce\d+ TV\d/);
  });
});
