import { describe, expect, it } from "vitest";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { type LinkFaults, Network, type RpcResult } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const slow: LinkFaults = {
  delay: { minMs: 100, maxMs: 100, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};

describe("Network: a server restart", () => {
  it("loses the requests still travelling to it; a new connection reaches the new incarnation", () => {
    const sim = new Simulation(new Trace({ record: true }));
    const net = new Network<string, string>(
      sim,
      ChoiceSource.seeded(1),
      () => slow,
      (m) => m,
    );
    const arrivals: string[] = [];
    net.registerServer("broker", (req) => {
      arrivals.push(req.body);
      req.respond(`re:${req.body}`);
    });
    const results: RpcResult<string>[] = [];
    const old = net.connect("tc", "broker");
    net.request(old, "sent-before-restart", 10_000, (r) => results.push(r));
    sim.scheduleAt(50, () => net.resetConnectionsTo("broker", "upgraded"));
    sim.scheduleAt(60, () =>
      net.request(net.connect("tc", "broker"), "sent-after-restart", 10_000, (r) => results.push(r)),
    );
    sim.run({ maxEvents: 1_000, maxTimeMs: 10_000 });
    expect(arrivals).toEqual(["sent-after-restart"]);
    expect(results.map((r) => r.kind)).toEqual(["disconnected", "response"]);
    expect(sim.trace.events?.some((e) => e.kind === "net.drop" && e.fields.cause === "server-restarted")).toBe(true);
  });
});
