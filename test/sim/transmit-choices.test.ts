import { describe, expect, it } from "vitest";
import { ChoiceSource, type Tape } from "../../src/sim/choice-tape.js";
import { type LinkFaults, linkStreamName, Network } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";
import { canDuplicateLate, withLateDuplicate } from "../../src/sim/transmit-choices.js";

/** Every fault kind on, so every optional choice of transmit's layout is drawn. */
const faulty: LinkFaults = {
  delay: { minMs: 1, maxMs: 5, slowPpm: 200_000, slowMinMs: 250, slowMaxMs: 1_500 },
  dropPpm: 50_000,
  duplicatePpm: 100_000,
  reorderPpm: 100_000,
};
const STREAM = linkStreamName("client", "server");
const MESSAGES = 40;

/**
 * Sends MESSAGES requests, 10 ms apart, each on a connection of its own (so connection order never
 * holds one back), and records when each copy of each arrived and where the link stream stood
 * before each send.
 */
function sendAll(choices: ChoiceSource, faults: LinkFaults = faulty) {
  const sim = new Simulation(new Trace());
  const net = new Network<string, string>(
    sim,
    choices,
    () => faults,
    (m) => m,
  );
  const arrivals = new Map<string, number[]>();
  net.registerServer("server", (req) => arrivals.set(req.body, [...(arrivals.get(req.body) ?? []), sim.nowMs]));
  const sentAt: { atMs: number; position: number }[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    sim.schedule(10 * i, () => {
      sentAt.push({ atMs: sim.nowMs, position: choices.positions()[STREAM] ?? 0 });
      net.request(net.connect("client", "server"), `m${i}`, 60_000, () => {});
    });
  }
  sim.run({ maxEvents: 100_000, maxTimeMs: 100_000 });
  return { arrivals, sentAt };
}

function recorded(seed: number) {
  const choices = ChoiceSource.seeded(seed, { record: true });
  return { ...sendAll(choices), tape: choices.tape() };
}

const replay = (tape: Tape, faults: LinkFaults = faulty) => sendAll(ChoiceSource.replaying(tape), faults).arrivals;

describe("withLateDuplicate (transmit's choices rewritten on a tape)", () => {
  it("delivers the chosen message a second time exactly delayMs after its send, and every other message as before", () => {
    let rewritten = 0;
    for (let seed = 1; seed <= 5; seed++) {
      const base = recorded(seed);
      for (let i = 0; i < MESSAGES; i++) {
        const { atMs, position } = base.sentAt[i] as { atMs: number; position: number };
        const before = base.arrivals.get(`m${i}`);
        const delayMs = 300 + 29 * i; // in the slow range (250 to 1,500)
        const choices = withLateDuplicate(base.tape[STREAM] as number[], position, faulty, delayMs);
        if (before === undefined) {
          expect(choices).toBeNull(); // lost: nothing to duplicate
          continue;
        }
        expect(choices).not.toBeNull();
        rewritten++;
        const after = replay({ ...base.tape, [STREAM]: choices as number[] });
        // The first copy as before (an existing duplicate gives way to the late one); the late copy
        // keeps its connection's order, so it never lands before the first.
        const got = after.get(`m${i}`) as number[];
        expect(got).toHaveLength(2);
        const first = Math.min(...got);
        expect(before).toContain(first);
        expect(Math.max(...got)).toBe(Math.max(first, atMs + delayMs));
        for (let j = 0; j < MESSAGES; j++) if (j !== i) expect(after.get(`m${j}`)).toEqual(base.arrivals.get(`m${j}`));
      }
    }
    expect(rewritten).toBeGreaterThan(150); // most of the 200 messages were delivered, so rewritten
  });

  it("reaches a delay in the link's normal range too, drawing it as not slow", () => {
    const base = recorded(7);
    // A message delivered once, not slow: its duplicate at the top of the normal range lands after it.
    const i = [...Array(MESSAGES).keys()].find((k) => {
      const got = base.arrivals.get(`m${k}`);
      return got?.length === 1 && (got[0] as number) - (base.sentAt[k]?.atMs as number) <= 5;
    }) as number;
    const { atMs, position } = base.sentAt[i] as { atMs: number; position: number };
    const after = replay({
      ...base.tape,
      [STREAM]: withLateDuplicate(base.tape[STREAM] as number[], position, faulty, 5) as number[],
    });
    expect(after.get(`m${i}`)).toEqual([...(base.arrivals.get(`m${i}`) as number[]), atMs + 5]);
  });

  it("refuses what the link's faults could not do: no duplicates, or a delay out of every range", () => {
    const base = recorded(3);
    const tape = base.tape[STREAM] as number[];
    expect(withLateDuplicate(tape, 0, { ...faulty, duplicatePpm: 0 }, 300)).toBeNull();
    expect(withLateDuplicate(tape, 0, faulty, 100)).toBeNull(); // between the normal and the slow range
    expect(withLateDuplicate(tape, 0, faulty, 1_501)).toBeNull();
    expect(withLateDuplicate(tape, 0, { ...faulty, delay: { ...faulty.delay, slowPpm: 0 } }, 300)).toBeNull();
    expect(canDuplicateLate(faulty, 1_500)).toBe(true);
    expect(canDuplicateLate(faulty, 6)).toBe(false);
    expect(withLateDuplicate([], 0, faulty, 300)).toBeNull(); // the tape ends before the message's choices
  });
});
