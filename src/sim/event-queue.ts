/** A scheduled action. Order is (timeMs, seq): ties never depend on anything but insertion order. */
export interface ScheduledEvent {
  timeMs: number;
  seq: number;
  cancelled: boolean;
}

/** (t1, q1) fires before (t2, q2): earlier time, then earlier sequence number (a total order). */
function precedes(t1: number, q1: number, t2: number, q2: number): boolean {
  return t1 < t2 || (t1 === t2 && q1 < q2);
}

/**
 * Binary min-heap on (timeMs, seq), hand-written: no comparator callback, FIFO among equal times.
 * Times and sequence numbers are kept in arrays of their own beside the events: comparisons read
 * plain numbers, not properties of events of several classes (which makes property reads slower).
 * (timeMs, seq) is a total order, so the pop order is the same whatever the heap's internal layout:
 * `removeCancelled` may rebuild the heap without changing what is popped when.
 */
export class EventQueue<E extends ScheduledEvent = ScheduledEvent> {
  private readonly events: E[] = [];
  private readonly times: number[] = [];
  private readonly seqs: number[] = [];

  get size(): number {
    return this.events.length;
  }

  push(event: E): void {
    const times = this.times;
    const seqs = this.seqs;
    const t = event.timeMs;
    const q = event.seq;
    let i = this.events.length;
    this.events.push(event);
    times.push(t);
    seqs.push(q);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent] as number;
      const pq = seqs[parent] as number;
      if (precedes(pt, pq, t, q)) break;
      this.put(i, this.events[parent] as E, pt, pq);
      i = parent;
    }
    this.put(i, event, t, q);
  }

  /** Due times of the events still to fire (cancelled ones left out), in no particular order. */
  dueTimes(): number[] {
    const out: number[] = [];
    for (const event of this.events) if (!event.cancelled) out.push(event.timeMs);
    return out;
  }

  peek(): E | undefined {
    return this.events[0];
  }

  pop(): E | undefined {
    const events = this.events;
    const top = events[0];
    const last = events.pop();
    const lastTime = this.times.pop() as number;
    const lastSeq = this.seqs.pop() as number;
    const n = events.length;
    if (n > 0 && last) this.siftDown(last, lastTime, lastSeq, 0, n);
    return top;
  }

  /** Place `item` (time t, seq q) at hole `start` and move it down until both children come after it. */
  private siftDown(item: E, t: number, q: number, start: number, n: number): void {
    const times = this.times;
    const seqs = this.seqs;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      let ct = times[child] as number;
      let cq = seqs[child] as number;
      const right = child + 1;
      if (right < n && precedes(times[right] as number, seqs[right] as number, ct, cq)) {
        child = right;
        ct = times[right] as number;
        cq = seqs[right] as number;
      }
      if (precedes(t, q, ct, cq)) break;
      this.put(i, this.events[child] as E, ct, cq);
      i = child;
    }
    this.put(i, item, t, q);
  }

  /** Slot `i` holds `event` (due at t, sequence q): the three arrays always change together. */
  private put(i: number, event: E, t: number, q: number): void {
    this.events[i] = event;
    this.times[i] = t;
    this.seqs[i] = q;
  }

  /**
   * Drop cancelled events (each told to `onDropped`) and rebuild the heap (Floyd's bottom-up
   * heapify, O(n)), in place: cancelled request timeouts otherwise stay queued until their time and
   * make every push and pop deeper.
   */
  removeCancelled(onDropped?: (event: E) => void): void {
    const { events, times, seqs } = this;
    let live = 0;
    for (let i = 0; i < events.length; i++) {
      const e = events[i] as E;
      if (e.cancelled) onDropped?.(e);
      else this.put(live++, e, times[i] as number, seqs[i] as number);
    }
    events.length = times.length = seqs.length = live;
    for (let i = (live >> 1) - 1; i >= 0; i--)
      this.siftDown(events[i] as E, times[i] as number, seqs[i] as number, i, live);
  }
}
