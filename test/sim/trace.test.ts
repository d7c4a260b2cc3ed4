import { describe, expect, it } from "vitest";
import { Trace } from "../../src/sim/trace.js";

describe("Trace", () => {
  it("hashes equal event sequences equally and records when asked", () => {
    const a = new Trace();
    const b = new Trace({ record: true });
    for (const t of [a, b]) {
      t.emit(1, "n", "k", { x: 1, y: "s", z: true, w: null });
      t.emit(2, "n", "k", { x: 2 ** 40 });
    }
    expect(a.hash()).toBe(b.hash());
    expect(a.hash()).toMatch(/^[0-9a-f]{16}$/);
    expect(b.events?.length).toBe(2);
    expect(b.events?.[1]?.hash).toBe(b.hash());
  });

  it("changes when any field, time, node or kind changes", () => {
    const base = () => {
      const t = new Trace();
      t.emit(1, "n", "k", { x: 1 });
      return t;
    };
    const h = base().hash();
    const variants = [
      (t: Trace) => t.emit(1, "n", "k", { x: 2 }),
      (t: Trace) => t.emit(2, "n", "k", { x: 1 }),
      (t: Trace) => t.emit(1, "m", "k", { x: 1 }),
      (t: Trace) => t.emit(1, "n", "j", { x: 1 }),
    ];
    const hashes = variants.map((v) => {
      const t = new Trace();
      v(t);
      return t.hash();
    });
    for (const other of hashes) expect(other).not.toBe(h);
    expect(new Set(hashes).size).toBe(hashes.length);
  });
});
