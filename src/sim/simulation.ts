import { BoundExceeded, SIM_BOUNDS } from "./bounds.js";
import { EventQueue, type ScheduledEvent } from "./event-queue.js";
import type { EventMap, Trace, TraceFields } from "./trace.js";

export interface RunBounds {
  /** Hard cap on fired events (a run that needs more is reported, never looped forever). */
  maxEvents: number;
  /** Virtual time at which the loop stops even if events remain. */
  maxTimeMs: number;
}

export type StopReason = "drained" | "max-events" | "max-time" | "stopped";

/** A handle to cancel a scheduled action (request timeouts, backoffs). */
export interface Timer {
  cancel(): void;
}

/** Below this many cancelled events in the queue, they are left to be popped and skipped. */
const MIN_CANCELLED_TO_COMPACT = 32;

/**
 * Something the kernel fires at its time. Hot components subclass it so that the thing that
 * happens (a message arriving, a request timing out) is itself the queued event, with no closure
 * and no separate event object. An event is its own cancel handle.
 */
export abstract class SimEvent implements ScheduledEvent, Timer {
  timeMs = 0;
  seq = 0;
  cancelled = false;
  /** In the queue now (scheduled, not yet popped): cancelling it leaves a dead entry behind. */
  queued = false;
  private owner: Simulation | null = null;

  abstract fire(): void;

  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.queued && this.owner !== null) this.owner.noteCancelled();
  }

  /** Called by the kernel only. */
  place(owner: Simulation, timeMs: number, seq: number): void {
    if (this.queued) throw new Error("an event cannot be queued twice at once");
    this.owner = owner;
    this.timeMs = timeMs;
    this.seq = seq;
    this.queued = true;
  }
}

/** A cancelled event dropped from the queue by a compaction. */
function leftQueue(event: SimEvent): void {
  event.queued = false;
}

/** A scheduled closure (what `schedule` and `scheduleAt` queue). */
class ActionEvent extends SimEvent {
  constructor(private readonly action: () => void) {
    super();
  }

  fire(): void {
    this.action();
  }
}

/**
 * The discrete-event kernel: integer virtual time in milliseconds, a queue ordered by (time, seq),
 * and a bounded run loop. Nothing here knows about Kafka. E declares the trace events it emits
 * (see EventMap): each component holds the run's one simulation typed by the map of its own events
 * (a map is checked at emit sites only, so the same object passes between components of different
 * maps), and an emit of an undeclared kind, or with other fields, does not compile. With no map it
 * emits nothing.
 */
export class Simulation<E extends EventMap<E> = Record<never, never>> {
  private readonly queue = new EventQueue<SimEvent>();
  private seq = 0;
  /** Cancelled events still in the queue. */
  private cancelledQueued = 0;
  private time = 0;
  private fired = 0;
  readonly trace: Trace;

  constructor(trace: Trace) {
    this.trace = trace;
  }

  get nowMs(): number {
    return this.time;
  }

  get eventsFired(): number {
    return this.fired;
  }

  get pending(): number {
    return this.queue.size;
  }

  /**
   * How far ahead each pending event is due, sorted: with the trace so far, this is what a search
   * fingerprints as the state of a run at a choice point (event payloads are closures, not data).
   */
  pendingDelaysMs(): number[] {
    return this.queue
      .dueTimes()
      .map((t) => t - this.time)
      .sort((a, b) => a - b);
  }

  schedule(delayMs: number, action: () => void): Timer {
    return this.scheduleEvent(delayMs, new ActionEvent(action));
  }

  scheduleAt(timeMs: number, action: () => void): Timer {
    return this.scheduleEventAt(timeMs, new ActionEvent(action));
  }

  /** Queue `event` to fire `delayMs` from now (it must not be queued already). */
  scheduleEvent<E extends SimEvent>(delayMs: number, event: E): E {
    if (!(delayMs >= 0) || !Number.isInteger(delayMs)) throw new RangeError(`schedule: bad delay ${delayMs}`);
    return this.enqueue(this.time + delayMs, event);
  }

  /** Queue `event` to fire at `timeMs` (now if that is past). */
  scheduleEventAt<E extends SimEvent>(timeMs: number, event: E): E {
    return this.enqueue(Math.max(timeMs, this.time), event);
  }

  private enqueue<E extends SimEvent>(timeMs: number, event: E): E {
    if (this.queue.size >= SIM_BOUNDS.pendingEvents)
      throw new BoundExceeded("pending events of the simulation", SIM_BOUNDS.pendingEvents);
    event.place(this, timeMs, this.seq++);
    this.queue.push(event);
    return event;
  }

  /** A queued event was cancelled: when they are many, drop them all (the pop order is unchanged). */
  noteCancelled(): void {
    this.cancelledQueued++;
    if (this.cancelledQueued >= MIN_CANCELLED_TO_COMPACT && this.cancelledQueued * 2 >= this.queue.size) {
      this.queue.removeCancelled(leftQueue);
      this.cancelledQueued = 0;
    }
  }

  /**
   * Record a model event at the current virtual time. `annotate` adds display-only fields (labels
   * for diagrams): called only when the full trace is recorded, never hashed.
   */
  emit<K extends keyof E & string>(node: string, kind: K, fields: E[K], annotate?: () => TraceFields): void {
    this.trace.emit(this.time, node, kind, fields, annotate);
  }

  /** Fire events in order until the queue drains, a bound is hit, or `stop()` returns true. */
  run(bounds: RunBounds, stop?: () => boolean): StopReason {
    for (;;) {
      if (stop?.()) return "stopped";
      const next = this.queue.peek();
      if (!next) return "drained";
      if (next.timeMs > bounds.maxTimeMs) {
        this.time = bounds.maxTimeMs;
        return "max-time";
      }
      if (this.fired >= bounds.maxEvents) return "max-events";
      this.queue.pop();
      next.queued = false;
      if (next.cancelled) {
        this.cancelledQueued--;
        continue;
      }
      this.time = next.timeMs;
      this.fired++;
      next.fire();
    }
  }
}
