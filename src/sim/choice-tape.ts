import { Rng } from "./rng.js";

/** Upper bound on the number of choices one run may make; a run that needs more is a model bug. */
export const MAX_TAPE_LENGTH = 2_000_000;

/**
 * A choice tape: for every named stream, the options chosen in order. Streams are independent, so
 * changing one decision (say, a fault on one link) does not shift the decisions of other streams
 * (another link, a producer's workload): this is what lets a shrinker delete or zero choices and
 * still get a run that means what it meant.
 */
export type Tape = Record<string, number[]>;

/** A handle on one stream, resolved once by a component so the hot path does no map lookups by name. */
export interface Stream {
  readonly name: string;
  /** An option in [0, n). */
  pick(n: number): number;
  /** True with probability ppm / 1e6 when seeded; "true" is option 1, so the simplest choice is false. */
  chance(ppm: number): boolean;
  /** An integer in [min, max], min being the simplest. */
  between(min: number, max: number): number;
}

export function tapeLength(tape: Tape): number {
  let n = 0;
  for (const name in tape) n += (tape[name] as number[]).length;
  return n;
}

/**
 * Every random decision of a run goes through a ChoiceSource. Each decision is an option index in
 * [0, n) where 0 is always the simplest behaviour (no fault, shortest delay, first option).
 *
 * - Seeded: options are drawn from one Rng per stream (seeded from the run seed and the stream
 *   name) and, when recording, appended to that stream's tape.
 * - Replayed: options are read from the stream's tape in order; a value >= n is reduced modulo n
 *   and a read past the end of a stream gives 0.
 */
export class ChoiceSource {
  private readonly streams = new Map<string, StreamState>();
  private readonly replayTape: Readonly<Tape> | null;
  private readonly record: boolean;
  private total = 0;

  private constructor(
    private readonly seed: number | string,
    replayTape: Readonly<Tape> | null,
    record: boolean,
  ) {
    this.replayTape = replayTape;
    this.record = record;
  }

  static seeded(seed: number | string, options: { record?: boolean } = {}): ChoiceSource {
    return new ChoiceSource(seed, null, options.record ?? false);
  }

  static replaying(tape: Readonly<Tape>, options: { record?: boolean } = {}): ChoiceSource {
    return new ChoiceSource("tape", tape, options.record ?? false);
  }

  get isReplay(): boolean {
    return this.replayTape !== null;
  }

  /** Number of choices made so far, over all streams. */
  get count(): number {
    return this.total;
  }

  /** The choices made so far, per stream (streams in order of first use). */
  tape(): Tape {
    if (!this.record) throw new Error("ChoiceSource was not recording");
    const out: Tape = {};
    for (const [name, s] of this.streams) out[name] = (s.recorded as number[]).slice();
    return out;
  }

  /** How many choices each stream has made so far (a tape cut there replays to this point). */
  positions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, s] of this.streams) out[name] = s.position;
    return out;
  }

  stream(name: string): Stream {
    let s = this.streams.get(name);
    if (!s) {
      s = new StreamState(this, name, this.replayTape ? (this.replayTape[name] ?? []) : null, this.record);
      this.streams.set(name, s);
    }
    return s;
  }

  pick(stream: string, n: number): number {
    return this.stream(stream).pick(n);
  }

  chance(stream: string, ppm: number): boolean {
    return this.stream(stream).chance(ppm);
  }

  between(stream: string, min: number, max: number): number {
    return this.stream(stream).between(min, max);
  }

  /** Called by streams: the global bound on choices per run. */
  countOne(): void {
    if (++this.total > MAX_TAPE_LENGTH) throw new Error(`choice tape exceeded ${MAX_TAPE_LENGTH} entries`);
  }

  rngFor(stream: string): Rng {
    return Rng.fromSeed(this.seed, stream);
  }
}

class StreamState implements Stream {
  position = 0;
  readonly recorded: number[] | null;
  private rng: Rng | null = null;

  constructor(
    private readonly source: ChoiceSource,
    readonly name: string,
    private readonly replay: readonly number[] | null,
    record: boolean,
  ) {
    this.recorded = record ? [] : null;
  }

  private seededRng(): Rng {
    if (!this.rng) this.rng = this.source.rngFor(this.name);
    return this.rng;
  }

  private take(option: number): number {
    this.position++;
    this.source.countOne();
    this.recorded?.push(option);
    return option;
  }

  pick(n: number): number {
    if (n <= 1) return 0;
    if (this.replay) {
      const raw = this.position < this.replay.length ? (this.replay[this.position] as number) : 0;
      return this.take(raw < n ? raw : raw % n);
    }
    return this.take(this.seededRng().intBelow(n));
  }

  chance(ppm: number): boolean {
    if (ppm <= 0) return false;
    if (this.replay) return this.pick(2) === 1;
    const hit = ppm >= 1_000_000 || this.seededRng().intBelow(1_000_000) < ppm;
    return this.take(hit ? 1 : 0) === 1;
  }

  between(min: number, max: number): number {
    return max <= min ? min : min + this.pick(max - min + 1);
  }
}
