// The ceiling: a bare discrete-event loop of the same shape as eosfuzz's kernel (src/sim): a binary
// heap of event objects ordered by (time, seq), one seeded draw per event (the same Rng), and
// trivial handlers that only schedule their next event. No model, no trace, no network: what the
// kernel's shape can do at best on this machine.
import { Rng } from "../dist/sim/rng.js";

class BareEvent {
  constructor(
    readonly timeMs: number,
    readonly seq: number,
    readonly action: () => void,
  ) {}
}

function before(a: BareEvent, b: BareEvent): boolean {
  return a.timeMs < b.timeMs || (a.timeMs === b.timeMs && a.seq < b.seq);
}

class BareHeap {
  private readonly items: BareEvent[] = [];

  push(e: BareEvent): void {
    const a = this.items;
    let i = a.length;
    a.push(e);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p] as BareEvent;
      if (before(parent, e)) break;
      a[i] = parent;
      i = p;
    }
    a[i] = e;
  }

  pop(): BareEvent | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    const n = a.length;
    if (n > 0 && last) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && before(a[c + 1] as BareEvent, a[c] as BareEvent)) c++;
        const child = a[c] as BareEvent;
        if (before(last, child)) break;
        a[i] = child;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/** Largest delay a trivial handler draws (ms): spreads events so that ties are common but not the rule. */
const MAX_DELAY_MS = 50;

/**
 * One "seed" of the bare loop: a fresh queue and Rng, `pending` events in flight at all times, run
 * until `events` have fired. Returns a checksum so the work cannot be optimised away.
 */
export function bareRun(seed: number, pending: number, events: number): number {
  const rng = Rng.fromSeed(seed, "ceiling");
  const heap = new BareHeap();
  let seq = 0;
  let now = 0;
  let fired = 0;
  let checksum = 0;
  const handlers: (() => void)[] = [];
  for (let k = 0; k < pending; k++) {
    handlers.push(() => {
      checksum = (checksum + k) | 0;
      heap.push(new BareEvent(now + 1 + rng.intBelow(MAX_DELAY_MS), seq++, handlers[k] as () => void));
    });
  }
  for (let k = 0; k < pending; k++)
    heap.push(new BareEvent(rng.intBelow(MAX_DELAY_MS), seq++, handlers[k] as () => void));
  while (fired < events) {
    const e = heap.pop();
    if (!e) break;
    now = e.timeMs;
    fired++;
    e.action();
  }
  return checksum ^ fired;
}
