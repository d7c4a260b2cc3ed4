/** A scheduled action. Order is (timeMs, seq): ties never depend on anything but insertion order. */
export interface ScheduledEvent {
  timeMs: number;
  seq: number;
  action: () => void;
  cancelled: boolean;
}

function before(a: ScheduledEvent, b: ScheduledEvent): boolean {
  return a.timeMs < b.timeMs || (a.timeMs === b.timeMs && a.seq < b.seq);
}

/** Binary min-heap on (timeMs, seq), hand-written: no comparator callback, FIFO among equal times. */
export class EventQueue {
  private readonly heap: ScheduledEvent[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(event: ScheduledEvent): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = heap[parentIndex] as ScheduledEvent;
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

  peek(): ScheduledEvent | undefined {
    return this.heap[0];
  }

  pop(): ScheduledEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    const n = heap.length;
    if (n > 0 && last) {
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= n) break;
        const right = child + 1;
        if (right < n && before(heap[right] as ScheduledEvent, heap[child] as ScheduledEvent)) child = right;
        const c = heap[child] as ScheduledEvent;
        if (before(last, c)) break;
        heap[i] = c;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}
