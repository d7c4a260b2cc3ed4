import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EventQueue, type ScheduledEvent } from "../../src/sim/event-queue.js";

const ev = (timeMs: number, seq: number): ScheduledEvent => ({ timeMs, seq, cancelled: false });

describe("EventQueue", () => {
  it("pops in (time, seq) order: ties are FIFO by insertion", () => {
    const q = new EventQueue();
    q.push(ev(5, 0));
    q.push(ev(1, 1));
    q.push(ev(5, 2));
    q.push(ev(1, 3));
    const order: [number, number][] = [];
    for (let e = q.pop(); e; e = q.pop()) order.push([e.timeMs, e.seq]);
    expect(order).toEqual([
      [1, 1],
      [1, 3],
      [5, 0],
      [5, 2],
    ]);
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

  it("pops the same sequence after cancelled events are removed at any point", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ timeMs: fc.integer({ min: 0, max: 20 }), cancel: fc.boolean(), compactAfter: fc.boolean() }),
          { maxLength: 200 },
        ),
        (items) => {
          const plain = new EventQueue();
          const compacted = new EventQueue();
          items.forEach((item, seq) => {
            const a = ev(item.timeMs, seq);
            const b = ev(item.timeMs, seq);
            a.cancelled = b.cancelled = item.cancel;
            plain.push(a);
            compacted.push(b);
            if (item.compactAfter) compacted.removeCancelled();
          });
          const live = (q: EventQueue) => {
            const out: number[] = [];
            for (let e = q.pop(); e; e = q.pop()) if (!e.cancelled) out.push(e.seq);
            return out;
          };
          const expected = live(plain);
          expect(live(compacted)).toEqual(expected);
          expect(expected).toEqual(
            items
              .map((item, seq) => ({ ...item, seq }))
              .filter((i) => !i.cancel)
              .sort((x, y) => x.timeMs - y.timeMs || x.seq - y.seq)
              .map((i) => i.seq),
          );
        },
      ),
      { seed: 7, numRuns: 200 },
    );
  });
});
