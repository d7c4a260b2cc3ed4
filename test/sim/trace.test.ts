import { describe, expect, it } from "vitest";
import { hashIntegers, hashString, Trace } from "../../src/sim/trace.js";

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

  it("gives the same hash through beginEvent and field calls as through emit", () => {
    const viaEmit = new Trace();
    const viaFields = new Trace();
    const events: [number, string, string, Record<string, number | string>][] = [
      [3, "c0", "net.send", { conn: 7, corr: 11, to: "broker-0", msg: "Fetch" }],
      [9, "broker-0", "net.response", { conn: 7, corr: 2 ** 40 + 5, msg: "Produce" }],
      [12, "tc-0", "x", { a: -3, b: -(2 ** 35) }],
    ];
    for (const [timeMs, node, kind, fields] of events) {
      viaEmit.emit(timeMs, node, kind, fields);
      viaFields.beginEvent(timeMs, hashString(node), hashString(kind));
      for (const value of Object.values(fields)) {
        if (typeof value === "number") viaFields.fieldNumber(value);
        else viaFields.fieldStringHash(hashString(value));
      }
    }
    expect(viaFields.hash()).toBe(viaEmit.hash());
    expect(viaFields.count).toBe(viaEmit.count);
  });

  it("hashIntegers is the hash of the trace it describes (a search's fingerprints keep their values)", () => {
    const asTrace = (values: number[], seed: string) => {
      const t = new Trace();
      t.emit(values.length, seed, "ints", {});
      for (const v of values) t.emit(v, "", "", {});
      return t.hash();
    };
    for (const [values, seed] of [
      [[], ""],
      [[0, 5, 5, 120, -1, 1, -1, 3], "4c1f0e9a2b3d5e6f:net:p0>broker-0"],
      [[2 ** 31 - 1, -(2 ** 31), 7], "x"],
    ] as [number[], string][])
      expect(hashIntegers(values, seed)).toBe(asTrace(values, seed));
    expect(hashIntegers([1, 2], "a")).not.toBe(hashIntegers([2, 1], "a"));
    expect(hashIntegers([1, 2], "a")).not.toBe(hashIntegers([1, 2], "b"));
  });
});
