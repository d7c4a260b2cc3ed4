import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventQueue, type ScheduledEvent } from "../../src/sim/event-queue.js";

const ev = (timeMs: number, seq: number): ScheduledEvent => ({ timeMs, seq, action: () => {}, cancelled: false });

describe("EventQueue", () => {
  it("pops in (time, seq) order: ties are FIFO by insertion", () => {
    const q = new EventQueue();
    q.push(ev(5, 0));
    q.push(ev(1, 1));
    q.push(ev(5, 2));
    q.push(ev(1, 3));
    const order: [number, number][] = [];
    for (let e = q.pop(); e; e = q.pop()) order.push([e.timeMs, e.seq]);
    expect(order).toEqual([[1, 1], [1, 3], [5, 0], [5, 2]]);
  });

  it("agrees with a stable sort on any interleaving of pushes and pops", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(-1)), { maxLength: 300 }), (ops) => {
        const q = new EventQueue();
        const model: ScheduledEvent[] = [];
        let seq = 0;
        for (const op of ops) {
          if (op >= 0) {
            const e = ev(op, seq++);
            q.push(e);
            model.push(e);
          } else {
            model.sort((a, b) => a.timeMs - b.timeMs || a.seq - b.seq);
            expect(q.pop()).toBe(model.shift());
          }
        }
        expect(q.size).toBe(model.length);
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});
