/** A scheduled action. Order is (timeMs, seq): ties never depend on anything but insertion order. */
export interface ScheduledEvent {
  timeMs: number;
  seq: number;
  cancelled: boolean;
}

function before(a: ScheduledEvent, b: ScheduledEvent): boolean {
  return a.timeMs < b.timeMs || (a.timeMs === b.timeMs && a.seq < b.seq);
}

/**
 * Binary min-heap on (timeMs, seq), hand-written: no comparator callback, FIFO among equal times.
 * (timeMs, seq) is a total order, so the pop order is the same whatever the heap's internal layout:
 * `removeCancelled` may rebuild the heap without changing what is popped when.
 */
export class EventQueue<E extends ScheduledEvent = ScheduledEvent> {
  private heap: E[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(event: E): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = heap[parentIndex] as E;
      if (before(parent, event)) break;
      heap[i] = parent;
      i = parentIndex;
    }
    heap[i] = event;
  }

  /** Due times of the events still to fire (cancelled ones left out), in no particular order. */
  dueTimes(): number[] {
    const out: number[] = [];
    for (const event of this.heap) if (!event.cancelled) out.push(event.timeMs);
    return out;
  }

  peek(): E | undefined {
    return this.heap[0];
  }

  pop(): E | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    const n = heap.length;
    if (n > 0 && last) this.siftDown(last, 0, n);
    return top;
  }

  /** Place `item` at hole `i` and move it down until both children come after it. */
  private siftDown(item: E, start: number, n: number): void {
    const heap = this.heap;
    let i = start;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      const right = child + 1;
      if (right < n && before(heap[right] as E, heap[child] as E)) child = right;
      const c = heap[child] as E;
      if (before(item, c)) break;
      heap[i] = c;
      i = child;
    }
    heap[i] = item;
  }

  /**
   * Drop cancelled events (returned) and rebuild the heap (Floyd's bottom-up heapify, O(n)). Cancelled request
   * timeouts otherwise stay queued until their time and make every push and pop deeper.
   */
  removeCancelled(): E[] {
    const live: E[] = [];
    const dropped: E[] = [];
    for (const e of this.heap) (e.cancelled ? dropped : live).push(e);
    this.heap = live;
    for (let i = (live.length >> 1) - 1; i >= 0; i--) this.siftDown(live[i] as E, i, live.length);
    return dropped;
  }
}
