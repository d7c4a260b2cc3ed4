import { describe, expect, it } from "vitest";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { drawMessage, type MessageChoice, type MessageEffects } from "../../src/sim/message-choices.js";
import { type InboundRequest, type LinkFaults, Network, type RpcResult } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";
import { canDuplicateLate, withLateDuplicate } from "../../src/sim/transmit-choices.js";

/**
 * The TCP network model (faults.network.model: tcp): the faults a TCP connection can make under
 * Kafka's clients and brokers, and none it cannot.
 */

const quiet: LinkFaults = {
  delay: { minMs: 1, maxMs: 5, slowPpm: 0, slowMinMs: 100, slowMaxMs: 400 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
  model: "tcp",
};

/** Every adversarial rate at its worst: under TCP none may show as a duplicate or a reorder. */
const hostile: LinkFaults = {
  ...quiet,
  delay: { ...quiet.delay, maxMs: 50, slowPpm: 300_000 },
  dropPpm: 300_000,
  duplicatePpm: 1_000_000,
  reorderPpm: 1_000_000,
};

function setup(faults: LinkFaults, seed = 1, choices = ChoiceSource.seeded(seed)) {
  const sim = new Simulation(new Trace({ record: true }));
  const net = new Network<string, string>(
    sim,
    choices,
    () => faults,
    (m) => m,
  );
  net.model = "tcp";
  const arrivals: { body: string; conn: number; atMs: number }[] = [];
  const waiting: InboundRequest<string, string>[] = [];
  net.registerServer("server", (req) => {
    arrivals.push({ body: req.body, conn: req.connectionId, atMs: sim.nowMs });
    if (req.body.startsWith("wait")) waiting.push(req);
    else req.respond(`re:${req.body}`);
  });
  return { sim, net, arrivals, waiting, choices };
}

const bounds = { maxEvents: 100_000, maxTimeMs: 1_000_000 };

const kinds = (sim: { trace: Trace }) => (sim.trace.events ?? []).map((e) => e.kind);

describe("Network, TCP model", () => {
  it("delivers every request of a connection once and in send order at any duplicate, reorder or drop rate (InFlightRequests.completeNext expects responses in send order)", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { sim, net, arrivals } = setup(hostile, seed);
      const conn = net.connect("client", "server");
      const results: RpcResult<string>[] = [];
      for (let i = 0; i < 12; i++) net.request(conn, `m${i}`, 1_000_000, (r) => results.push(r));
      sim.run(bounds);
      expect(arrivals.map((a) => a.body)).toEqual([...Array(12).keys()].map((i) => `m${i}`));
      // Responses come back in order too: each request gets its own answer.
      expect(results).toEqual([...Array(12).keys()].map((i) => ({ kind: "response", body: `re:m${i}` })));
      const seen = kinds(sim);
      expect(seen).not.toContain("net.duplicate");
      expect(seen).not.toContain("net.overtake");
      expect(seen).not.toContain("net.drop");
    }
  });

  it("retransmits a lost segment: the message arrives once, late (the slow range stands for the retransmission timeout)", () => {
    const lossy: LinkFaults = { ...quiet, dropPpm: 1_000_000 };
    const { sim, net, arrivals } = setup(lossy);
    net.request(net.connect("client", "server"), "x", 1_000_000, () => {});
    sim.run(bounds);
    expect(arrivals.map((a) => a.body)).toEqual(["x"]);
    expect(arrivals[0]?.atMs).toBeGreaterThanOrEqual(100);
    expect(kinds(sim)).toContain("net.retransmit");
  });

  it("holds the messages a partition cuts and delivers them, in order, when it heals (the adversarial model loses them)", () => {
    const { sim, net, arrivals } = setup(quiet);
    net.block("client", "server", 1_000);
    const conn = net.connect("client", "server");
    for (const body of ["a", "b", "c"]) net.request(conn, body, 1_000_000, () => {});
    sim.schedule(999, () => net.request(conn, "d", 1_000_000, () => {}));
    sim.run(bounds);
    expect(arrivals.map((a) => [a.body, a.atMs])).toEqual([
      ["a", 1_000],
      ["b", 1_000],
      ["c", 1_000],
      // Sent just before the heal: it crosses after it, behind the others.
      ["d", expect.toSatisfy((t: number) => t > 1_000)],
    ]);
    expect(kinds(sim).filter((k) => k === "net.partition-hold")).toHaveLength(3);
  });

  it("keeps a connection's order when a partition is extended while messages are held, and behind held ones", () => {
    const { sim, net, arrivals } = setup(quiet);
    net.block("client", "server", 500);
    const conn = net.connect("client", "server");
    net.request(conn, "a", 1_000_000, () => {});
    sim.schedule(400, () => net.block("client", "server", 900));
    // Sent so that it would arrive right as the first partition ends.
    sim.schedule(495, () => net.request(conn, "b", 1_000_000, () => {}));
    sim.schedule(950, () => net.request(conn, "c", 1_000_000, () => {}));
    sim.run(bounds);
    expect(arrivals.map((a) => a.body)).toEqual(["a", "b", "c"]);
    expect(arrivals[0]?.atMs).toBe(900);
  });

  it("processes a request the partition held past the client's timeout and drops its response; the re-send on a new connection gets the answer (NetworkClient.handleTimedOutRequests, SocketServer's Processor)", () => {
    const { sim, net, arrivals } = setup(quiet);
    net.block("client", "server", 1_000);
    const first = net.connect("client", "server");
    const results: RpcResult<string>[] = [];
    net.request(first, "produce", 300, (r) => {
      results.push(r);
      // The caller re-sends on a new connection, as the clients and the marker channel do.
      sim.schedule(800, () => net.request(net.connect("client", "server"), "produce", 10_000, (s) => results.push(s)));
    });
    sim.run(bounds);
    expect(results).toEqual([
      { kind: "disconnected", reason: expect.stringContaining("timed out") },
      { kind: "response", body: "re:produce" },
    ]);
    expect(first.open).toBe(false);
    // Both copies reach the broker: the late one on the closed connection first, at the heal.
    expect(arrivals.map((a) => [a.conn, a.atMs >= 1_000])).toEqual([
      [first.id, true],
      [first.id + 1, true],
    ]);
    expect(kinds(sim)).toContain("net.late-response");
  });

  it("loses what a partition held on a connection the server's restart reset", () => {
    const { sim, net, arrivals } = setup(quiet);
    net.block("client", "server", 1_000);
    const results: RpcResult<string>[] = [];
    net.request(net.connect("client", "server"), "x", 1_000_000, (r) => results.push(r));
    sim.schedule(500, () => net.resetConnectionsTo("server", "restart"));
    sim.run(bounds);
    expect(arrivals).toEqual([]);
    expect(results[0]).toMatchObject({ kind: "disconnected", reason: expect.stringContaining("restarted") });
  });

  it("holds a response the partition cuts; the client that is still waiting gets it after the heal", () => {
    const { sim, net } = setup(quiet);
    net.block("server", "client", 1_000);
    const results: { r: RpcResult<string>; atMs: number }[] = [];
    net.request(net.connect("client", "server"), "x", 1_000_000, (r) => results.push({ r, atMs: sim.nowMs }));
    sim.run(bounds);
    expect(results).toEqual([{ r: { kind: "response", body: "re:x" }, atMs: 1_000 }]);
  });

  it("replays a recorded tape to the same trace (the choice tape stays in step with the TCP draws)", () => {
    const run = (choices: ChoiceSource) => {
      const { sim, net } = setup(hostile, 0, choices);
      const conn = net.connect("client", "server");
      net.block("client", "server", 200);
      for (let i = 0; i < 8; i++) net.request(conn, `m${i}`, 1_000_000, () => {});
      sim.run(bounds);
      return JSON.stringify(sim.trace.events);
    };
    const recording = ChoiceSource.seeded(7, { record: true });
    const first = run(recording);
    expect(run(ChoiceSource.replaying(recording.tape()))).toBe(first);
  });

  it("never writes a network duplicate on a TCP link's tape: a late copy there is a sender's re-send", () => {
    expect(canDuplicateLate(hostile, 300)).toBe(false);
    expect(canDuplicateLate({ ...hostile, model: undefined }, 300)).toBe(true);
    expect(withLateDuplicate([0, 0, 0, 0, 0], 0, hostile, 300)).toBeNull();
  });

  it("draws drop, then slow and delay, or when dropped the delay from the slow range; never duplicate or overtake", () => {
    const log = (drop: boolean) => {
      const out: string[] = [];
      const source = {
        chance: (ppm: number, choice: MessageChoice) => {
          if (ppm > 0) out.push(choice);
          return choice === "drop" ? drop : false;
        },
        between: (min: number, max: number, choice: MessageChoice) => {
          out.push(`${choice} ${min}-${max}`);
          return min;
        },
      };
      const on: MessageEffects = {
        lost: () => out.push("lost"),
        retransmitted: () => out.push("retransmitted"),
        beforeCopy: () => null,
        delayed: (_c, slow) => out.push(slow ? "slow" : "fast"),
        sent: (_c, _d, mayOvertake) => out.push(mayOvertake ? "may overtake" : "sent"),
      };
      drawMessage(source, hostile, true, on);
      return out;
    };
    expect(log(false)).toEqual(["drop", "slow", "delay 1-50", "fast", "sent"]);
    expect(log(true)).toEqual(["drop", "retransmitted", "delay 100-400", "slow", "sent"]);
  });
});
