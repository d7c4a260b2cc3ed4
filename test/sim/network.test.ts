import { describe, expect, it } from "vitest";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { type InboundRequest, type LinkFaults, Network, type RpcResult } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const quiet: LinkFaults = {
  delay: { minMs: 1, maxMs: 50, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};

function setup(faults: LinkFaults = quiet, seed = 1) {
  const sim = new Simulation(new Trace({ record: true }));
  const net = new Network<string, string>(
    sim,
    ChoiceSource.seeded(seed),
    () => faults,
    (m) => m,
  );
  const arrivals: { body: string; atMs: number }[] = [];
  const held: InboundRequest<string, string>[] = [];
  net.registerServer("server", (req) => {
    arrivals.push({ body: req.body, atMs: sim.nowMs });
    if (req.body.startsWith("hold")) held.push(req);
    else if (req.body === "refuse") req.closeConnection("cannot parse");
    else req.respond(`re:${req.body}`);
  });
  return { sim, net, arrivals, held };
}

const bounds = { maxEvents: 10_000, maxTimeMs: 100_000 };

describe("Network", () => {
  it("delivers the messages of one connection in order despite random delays", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { sim, net, arrivals } = setup(quiet, seed);
      const conn = net.connect("client", "server");
      for (let i = 0; i < 10; i++) net.request(conn, `m${i}`, 10_000, () => {});
      sim.run(bounds);
      expect(arrivals.map((a) => a.body)).toEqual([...Array(10).keys()].map((i) => `m${i}`));
    }
  });

  it("lets messages of different connections overtake each other", () => {
    let overtook = false;
    for (let seed = 1; seed <= 30 && !overtook; seed++) {
      const { sim, net, arrivals } = setup(quiet, seed);
      net.request(net.connect("client", "server"), "first", 10_000, () => {});
      net.request(net.connect("client", "server"), "second", 10_000, () => {});
      sim.run(bounds);
      overtook = arrivals[0]?.body === "second";
    }
    expect(overtook).toBe(true);
  });

  it("on a request timeout closes the connection; the request still reaches the server, its response is dropped", () => {
    const slow: LinkFaults = { ...quiet, delay: { minMs: 500, maxMs: 500, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 } };
    const { sim, net, arrivals } = setup(slow);
    const conn = net.connect("client", "server");
    const results: RpcResult<string>[] = [];
    net.request(conn, "late", 100, (r) => results.push(r));
    sim.run(bounds);
    expect(results).toEqual([{ kind: "disconnected", reason: expect.stringContaining("timed out") }]);
    expect(conn.open).toBe(false);
    expect(arrivals.map((a) => a.body)).toEqual(["late"]);
    expect(sim.trace.events?.some((e) => e.kind === "net.late-response")).toBe(true);
  });

  it("reports a server-side close as a disconnect", () => {
    const { sim, net } = setup();
    const results: RpcResult<string>[] = [];
    net.request(net.connect("client", "server"), "refuse", 10_000, (r) => results.push(r));
    sim.run(bounds);
    expect(results[0]).toMatchObject({ kind: "disconnected", reason: expect.stringContaining("cannot parse") });
  });

  it("holds messages to a stalled node until the stall ends", () => {
    const { sim, net, arrivals } = setup();
    net.stall("server", 1_000);
    net.request(net.connect("client", "server"), "x", 10_000, () => {});
    sim.run(bounds);
    expect(arrivals[0]?.atMs).toBe(1_000);
  });

  it("drops messages on a blocked link, one way only", () => {
    const { sim, net, arrivals } = setup();
    net.block("client", "server", 1_000);
    const results: RpcResult<string>[] = [];
    net.request(net.connect("client", "server"), "lost", 200, (r) => results.push(r));
    sim.run(bounds);
    expect(arrivals).toEqual([]);
    expect(results[0]?.kind).toBe("disconnected");
  });

  it("delivers a duplicated request twice; the second response is ignored", () => {
    const dup: LinkFaults = { ...quiet, duplicatePpm: 1_000_000 };
    const { sim, net, arrivals } = setup(dup);
    const results: RpcResult<string>[] = [];
    net.request(net.connect("client", "server"), "twice", 10_000, (r) => results.push(r));
    sim.run(bounds);
    expect(arrivals.filter((a) => a.body === "twice").length).toBeGreaterThanOrEqual(2);
    expect(results).toEqual([{ kind: "response", body: "re:twice" }]);
  });
});
