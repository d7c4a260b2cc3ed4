import { describe, expect, it } from "vitest";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import {
  type HeldMessage,
  type InterceptedMessage,
  type LinkFaults,
  Network,
  type RpcResult,
} from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const fixed: LinkFaults = {
  delay: { minMs: 2, maxMs: 2, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};
const bounds = { maxEvents: 10_000, maxTimeMs: 100_000 };

/** A server that answers every request; an interceptor that holds what `hold` matches. */
function setup(hold: (m: InterceptedMessage<string, string>) => boolean) {
  const sim = new Simulation(new Trace({ record: true }));
  const net = new Network<string, string>(
    sim,
    ChoiceSource.seeded(1),
    () => fixed,
    (m) => m.split(":")[0] as string,
  );
  const arrivals: { body: string; atMs: number }[] = [];
  net.registerServer("server", (req) => {
    arrivals.push({ body: req.body, atMs: sim.nowMs });
    req.respond(`re:${req.body}`);
  });
  const held: HeldMessage<string, string>[] = [];
  const seen: string[] = [];
  net.setInterceptor({
    inspect: (m) => {
      seen.push(`${m.direction} ${m.from}>${m.to} ${m.label}`);
      return hold(m);
    },
    onHeld: (h) => held.push(h),
  });
  return { sim, net, arrivals, held, seen };
}

describe("Network interception (scripted scenarios)", () => {
  it("holds a matching request until it is released; its sender may time out meanwhile", () => {
    const { sim, net, arrivals, held } = setup((m) => m.body === "slow" && m.direction === "request");
    const conn = net.connect("client", "server");
    const results: RpcResult<string>[] = [];
    net.request(conn, "slow", 100, (r) => results.push(r));
    sim.run(bounds);
    expect(arrivals).toEqual([]);
    expect(held).toHaveLength(1);
    expect(held[0]?.state).toBe("held");
    expect(results).toEqual([{ kind: "disconnected", reason: expect.stringMatching(/timed out after 100ms/) }]);
    net.deliverHeld(held[0] as HeldMessage<string, string>, { keepHeld: false });
    sim.run(bounds);
    expect(arrivals).toEqual([{ body: "slow", atMs: 100 }]);
    expect(held[0]?.state).toBe("released");
    // The answer reaches a closed connection: it is dropped as late, the sender already gave up.
    expect(sim.trace.events?.some((e) => e.kind === "net.late-response")).toBe(true);
  });

  it("duplicate delivers a copy now and keeps holding the original", () => {
    const { sim, net, arrivals, held } = setup((m) => m.body === "dup" && m.direction === "request");
    const conn = net.connect("client", "server");
    const results: RpcResult<string>[] = [];
    net.request(conn, "dup", 10_000, (r) => results.push(r));
    sim.run({ ...bounds, maxTimeMs: 10 });
    const h = held[0] as HeldMessage<string, string>;
    net.deliverHeld(h, { keepHeld: true });
    sim.run({ ...bounds, maxTimeMs: 50 });
    expect(arrivals.map((a) => a.body)).toEqual(["dup"]);
    expect(results).toEqual([{ kind: "response", body: "re:dup" }]);
    expect(h.state).toBe("held");
    expect(h.deliveries).toBe(1);
    net.deliverHeld(h, { keepHeld: false });
    sim.run({ ...bounds, maxTimeMs: 100 });
    expect(arrivals.map((a) => a.body)).toEqual(["dup", "dup"]);
    expect(h.deliveries).toBe(2);
    expect(() => net.deliverHeld(h, { keepHeld: false })).toThrow(/not held/);
  });

  it("a dropped message never arrives; other messages pass and every message is inspected", () => {
    const { sim, net, arrivals, held, seen } = setup((m) => m.body === "lost");
    const conn = net.connect("client", "server");
    net.request(conn, "lost", 10_000, () => {});
    net.request(conn, "kept", 10_000, () => {});
    sim.run({ ...bounds, maxTimeMs: 50 });
    net.dropHeld(held[0] as HeldMessage<string, string>);
    sim.run(bounds);
    expect(arrivals.map((a) => a.body)).toEqual(["kept"]);
    expect(held[0]?.state).toBe("dropped");
    expect(seen).toEqual(["request client>server lost", "request client>server kept", "response server>client re"]);
  });

  it("without an interceptor the network behaves as before (same trace hash as with one that holds nothing)", () => {
    const run = (withInterceptor: boolean) => {
      const sim = new Simulation(new Trace());
      const net = new Network<string, string>(
        sim,
        ChoiceSource.seeded(7),
        () => ({ ...fixed, delay: { ...fixed.delay, maxMs: 40 }, duplicatePpm: 100_000 }),
        (m) => m,
      );
      net.registerServer("server", (req) => req.respond(req.body));
      if (withInterceptor) net.setInterceptor({ inspect: () => false, onHeld: () => {} });
      const conn = net.connect("client", "server");
      for (let i = 0; i < 12; i++) net.request(conn, `m${i}`, 10_000, () => {});
      sim.run(bounds);
      return sim.trace.hash();
    };
    expect(run(true)).toBe(run(false));
  });
});
