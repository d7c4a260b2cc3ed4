import fc from "fast-check";
import seedrandom from "seedrandom";
import { describe, expect, it } from "vitest";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { remainder, Rng } from "../../src/sim/rng.js";

function draw(source: ChoiceSource): number[] {
  const out: number[] = [];
  for (let i = 0; i < 50; i++) {
    out.push(source.pick("a", 7));
    out.push(source.chance("b", 300_000) ? 1 : 0);
    out.push(source.between("c", 10, 20));
  }
  return out;
}

describe("ChoiceSource", () => {
  it("gives the same choices for the same seed and different ones for another seed", () => {
    expect(draw(ChoiceSource.seeded(1))).toEqual(draw(ChoiceSource.seeded(1)));
    expect(draw(ChoiceSource.seeded(1))).not.toEqual(draw(ChoiceSource.seeded(2)));
  });

  it("records a tape that replays to the same choices", () => {
    const seeded = ChoiceSource.seeded(7, { record: true });
    const values = draw(seeded);
    const replay = ChoiceSource.replaying(seeded.tape());
    expect(draw(replay)).toEqual(values);
  });

  it("reads past the end of a stream as 0, the simplest choice", () => {
    const replay = ChoiceSource.replaying({ x: [3] });
    expect(replay.pick("x", 5)).toBe(3);
    expect(replay.pick("x", 5)).toBe(0);
    expect(replay.chance("x", 999_999)).toBe(false);
    expect(replay.between("x", 4, 9)).toBe(4);
    expect(replay.pick("never-recorded", 9)).toBe(0);
  });

  it("reduces an out-of-range tape value modulo the option count", () => {
    expect(ChoiceSource.replaying({ x: [12] }).pick("x", 5)).toBe(2);
  });

  it("keeps each stream's tape separate: changing one stream does not shift another", () => {
    const seeded = ChoiceSource.seeded(11, { record: true });
    const a = [seeded.pick("a", 100), seeded.pick("b", 100), seeded.pick("a", 100), seeded.pick("b", 100)];
    const tape = seeded.tape();
    expect(Object.keys(tape)).toEqual(["a", "b"]);
    const edited = ChoiceSource.replaying({ ...tape, a: [0] });
    const b = [edited.pick("a", 100), edited.pick("b", 100), edited.pick("a", 100), edited.pick("b", 100)];
    expect([b[1], b[3]]).toEqual([a[1], a[3]]);
    expect([b[0], b[2]]).toEqual([0, 0]);
  });

  it("reports per-stream positions (a tape cut there replays to the same point)", () => {
    const s = ChoiceSource.seeded(1);
    s.pick("a", 3);
    s.pick("b", 3);
    s.pick("a", 3);
    expect(s.positions()).toEqual({ a: 2, b: 1 });
  });

  it("keeps named streams independent: a new stream does not shift another's draws", () => {
    const a = ChoiceSource.seeded(3);
    const b = ChoiceSource.seeded(3);
    const fromA = [a.pick("net", 1000), a.pick("net", 1000)];
    b.pick("other", 1000);
    expect([b.pick("net", 1000), b.pick("net", 1000)]).toEqual(fromA);
  });

  it("never consumes a draw for a certain outcome (ppm 0, n <= 1, empty range)", () => {
    const s = ChoiceSource.seeded(1);
    s.chance("x", 0);
    s.pick("x", 1);
    s.between("x", 5, 5);
    expect(s.count).toBe(0);
  });
});

describe("Rng", () => {
  it("is unbiased enough: 60k draws of intBelow(6) are near uniform", () => {
    const rng = Rng.fromSeed("uniform");
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 60_000; i++) counts[rng.intBelow(6)]!++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });

  it("exports and restores its state", () => {
    const a = Rng.fromSeed("s");
    a.intBelow(10);
    const b = Rng.fromState(JSON.parse(JSON.stringify(a.state())));
    expect([a.intBelow(1e9), a.intBelow(1e9)]).toEqual([b.intBelow(1e9), b.intBelow(1e9)]);
  });

  it("remainder equals % for every integer pair up to 2^32 (edges and random pairs)", () => {
    const edges = [0, 1, 2, 3, 5, 1_000_000, 0x7fffffff, 0x80000000, 0x80000001, 0xfffffffe, 0xffffffff, 0x1_0000_0000];
    for (const x of edges) for (const n of edges) if (n >= 1) expect(remainder(x, n)).toBe(x % n);
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0x1_0000_0000 }),
        fc.integer({ min: 1, max: 0x1_0000_0000 }),
        (x, n) => remainder(x, n) === x % n,
      ),
      { seed: 5, numRuns: 20_000 },
    );
  });

  it("draws the same sequence as the rejection sampler written with %", () => {
    const TWO_32 = 0x1_0000_0000;
    const a = Rng.fromSeed("same");
    const b = seedrandom.tychei("eosfuzz:same:main", { state: true });
    const reference = (n: number): number => {
      const limit = TWO_32 - (TWO_32 % n);
      for (;;) {
        const x = b.int32() >>> 0;
        if (x < limit) return x % n;
      }
    };
    for (let i = 0; i < 5_000; i++) {
      const n = [2, 6, 1_000_000, 0x80000001, 0xffffffff, 1 + ((i * 7919) % 100_000)][i % 6] as number;
      expect(a.intBelow(n)).toBe(reference(n));
    }
  });
});

describe("ChoiceSource for search", () => {
  it("continues a replayed tape with seeded draws past each stream's end, and records option counts", () => {
    const original = ChoiceSource.seeded(3, { record: true });
    draw(original);
    const full = original.tape();
    const prefix = { a: (full.a ?? []).slice(0, 4), b: (full.b ?? []).slice(0, 2) };
    const a = ChoiceSource.replaying(prefix, { continueSeed: 99, record: true });
    const b = ChoiceSource.replaying(prefix, { continueSeed: 99, record: true });
    const valuesA = draw(a);
    expect(draw(b)).toEqual(valuesA);
    expect(a.tape().a?.slice(0, 4)).toEqual(prefix.a);
    expect(a.tape().c?.some((v) => v !== 0)).toBe(true); // a stream absent from the tape: seeded, not zeros
    expect(a.optionCounts().a?.slice(0, 2)).toEqual([7, 7]);
    expect(a.optionCounts().c?.[0]).toBe(11);
    expect(draw(ChoiceSource.replaying(a.tape()))).toEqual(valuesA);
    expect(draw(ChoiceSource.replaying(prefix))).not.toEqual(valuesA); // without the seed: zeros past the ends
  });

  it("reports each choice point before it is made, with its stream, position in the stream and option count", () => {
    const seen: [string, number, number][] = [];
    const source = ChoiceSource.seeded(1, {
      observer: { choicePoint: (stream, position, options) => seen.push([stream, position, options]) },
    });
    source.pick("a", 5);
    source.chance("b", 0); // no choice: probability 0
    source.chance("b", 10);
    source.between("c", 3, 3); // no choice: one option
    source.pick("a", 2);
    expect(seen).toEqual([
      ["a", 0, 5],
      ["b", 0, 2],
      ["a", 1, 2],
    ]);
    expect(source.lastOption).toBeGreaterThanOrEqual(0);
  });
});
