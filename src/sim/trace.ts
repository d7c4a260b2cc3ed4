/** A value a trace event may carry. Numbers must be integers (they are hashed as integers). */
export type TraceValue = number | string | boolean | null;
export type TraceFields = Readonly<Record<string, TraceValue>>;

/**
 * The events one component emits, as kind -> fields (the network's are in net-events.ts; each model
 * built on the kernel declares its own): a `Simulation<E>` emits only these kinds, each with exactly
 * its fields. Declare the fields in the order the emit writes them: the trace hash absorbs them in
 * that order.
 */
export type EventMap<E> = { [K in keyof E]: TraceFields };

export interface TraceEvent {
  /** Position in the trace, from 0. */
  index: number;
  timeMs: number;
  node: string;
  kind: string;
  fields: TraceFields;
  /** Rolling hash of the trace up to and including this event. */
  hash: string;
}

/** A recorded event of one of map E's kinds (K: all of them by default), its fields as E declares them. */
export type EventOf<E extends EventMap<E>, K extends keyof E & string = keyof E & string> = K extends unknown
  ? Omit<TraceEvent, "kind" | "fields"> & { readonly kind: K; readonly fields: E[K] }
  : never;

const stringHashes = new Map<string, number>();

/** FNV-1a over UTF-16 code units; cached because kinds and node names repeat constantly. */
export function hashString(s: string): number {
  let h = stringHashes.get(s);
  if (h !== undefined) return h;
  h = fnv1a(s);
  if (stringHashes.size < 100_000) stringHashes.set(s, h);
  return h;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h;
}

export function hex64(hi: number, lo: number): string {
  return (hi >>> 0).toString(16).padStart(8, "0") + (lo >>> 0).toString(16).padStart(8, "0");
}

/**
 * The trace of a run: a 64-bit rolling hash (two 32-bit lanes) over every event, and optionally the
 * full list of events. Fuzz runs keep only the hash and the count; replays keep everything.
 */
export class Trace {
  private hi = 0x6a09e667 | 0;
  private lo = 0xbb67ae85 | 0;
  private eventCount = 0;
  readonly events: TraceEvent[] | null;

  constructor(options: { record?: boolean; maxRecorded?: number } = {}) {
    this.events = options.record ? [] : null;
    this.maxRecorded = options.maxRecorded ?? 1_000_000;
  }

  private readonly maxRecorded: number;

  get count(): number {
    return this.eventCount;
  }

  get recording(): boolean {
    return this.events !== null;
  }

  hash(): string {
    return hex64(this.hi, this.lo);
  }

  private absorb(word: number): void {
    const w = word | 0;
    this.lo = Math.imul(this.lo ^ w, 0x01000193);
    this.hi = Math.imul(this.hi ^ ((w + 0x9e3779b9) | 0) ^ (this.lo >>> 15), 0x5bd1e995);
  }

  private absorbValue(v: TraceValue): void {
    if (typeof v === "number") {
      this.fieldNumber(v);
    } else if (typeof v === "string") {
      this.absorb(hashString(v));
    } else if (typeof v === "boolean") {
      this.absorb(v ? 0x7f4a7c15 : 0x2545f491);
    } else {
      this.absorb(0x1b873593);
    }
  }

  /**
   * The hash-only form of `emit` for hot paths that run when nothing is recorded (check `recording`
   * first and call `emit` when it is set): the event's header from pre-hashed node and kind names,
   * then one `field*` call per field value, in the order in which `emit` would visit the keys of
   * the equivalent fields object. The hash is the same as `emit`'s, bit for bit.
   */
  beginEvent(timeMs: number, nodeHash: number, kindHash: number): void {
    this.absorb(timeMs);
    this.absorb(nodeHash);
    this.absorb(kindHash);
    this.eventCount++;
  }

  /** An integer field of an event begun with `beginEvent`. */
  fieldNumber(v: number): void {
    this.absorb(v);
    if (v > 0x7fffffff || v < -0x80000000) this.absorb(Math.floor(v / 0x1_0000_0000));
  }

  /** A string field of an event begun with `beginEvent`, given its `hashString`. */
  fieldStringHash(h: number): void {
    this.absorb(h);
  }

  /**
   * Add one event to the hash (and to the record when recording). Fields from `annotate` are
   * recorded after the hashed ones but never hashed: they are display text derived from hashed
   * state (a message's key fields), so formatting changes do not change trace hashes, and a fuzz run
   * that records nothing never builds them.
   */
  emit(timeMs: number, node: string, kind: string, fields: TraceFields, annotate?: () => TraceFields): void {
    this.absorb(timeMs);
    this.absorb(hashString(node));
    this.absorb(hashString(kind));
    for (const key in fields) this.absorbValue(fields[key] as TraceValue);
    const index = this.eventCount++;
    if (this.events && index < this.maxRecorded) {
      const recorded = annotate ? { ...fields, ...annotate() } : fields;
      this.events.push({ index, timeMs, node, kind, fields: recorded, hash: hex64(this.hi, this.lo) });
    }
  }
}

const EMPTY_HASH = fnv1a("");
const INTS_HASH = fnv1a("ints");

/**
 * 64-bit hash of a list of integers (for state fingerprints built from numbers): the hash of a trace
 * of one event (time: the count, node: `seed`, kind "ints") and one empty event per value (time:
 * the value). The seed is hashed without the string cache: a search passes a new one at every
 * choice point (the trace hash so far), and caching them filled the cache with strings seen once.
 */
export function hashIntegers(values: readonly number[], seed = ""): string {
  const t = new Trace();
  t.beginEvent(values.length, fnv1a(seed), INTS_HASH);
  for (let i = 0; i < values.length; i++) t.beginEvent(values[i] as number, EMPTY_HASH, EMPTY_HASH);
  return t.hash();
}
