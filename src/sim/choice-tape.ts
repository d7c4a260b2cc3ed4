import { Rng } from "./rng.js";
import { BoundExceeded } from "./bounds.js";

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

/**
 * The tape with each stream that `which` names cut where it stood at `positions` (a stream the
 * positions do not name was not used yet: cut to nothing); the other streams are kept whole.
 * Replayed, the cut streams make exactly the choices they had made by then.
 */
export function cutStreams(
  tape: Readonly<Tape>,
  positions: Readonly<Record<string, number>>,
  which: (stream: string) => boolean = () => true,
): Tape {
  const out: Tape = {};
  for (const [stream, choices] of Object.entries(tape))
    out[stream] = which(stream) ? choices.slice(0, positions[stream] ?? 0) : choices.slice();
  return out;
}

export function tapeLength(tape: Tape): number {
  let n = 0;
  for (const name in tape) n += (tape[name] as number[]).length;
  return n;
}

/**
 * Told before each choice of its stream, its position in that stream and its option count
 * (exhaustive search fingerprints the run's state there).
 *
 * An object with a method rather than a closure: with a closure of each run called here, V8 kept
 * the runs alive past the young generation (3.5 MB promoted per scavenge on kip-1228-small, against
 * 50 KB with one function shared by all runs), so every run of an exhaustive search was copied to
 * old space and swept from there. A method is one function for all runs; the run is its receiver.
 */
export interface ChoicePointObserver {
  choicePoint(stream: string, position: number, options: number): void;
}

export interface ChoiceSourceOptions {
  /** Keep the tape (and each choice's option count) for saving, shrinking and search. */
  record?: boolean;
  /** Told of each choice before it is made. Zero cost when absent. */
  observer?: ChoicePointObserver;
}

export interface ReplayOptions extends ChoiceSourceOptions {
  /** Past the end of a stream's tape, draw from this seed instead of reading 0 (tape mutation). */
  continueSeed?: number | string;
}

/**
 * Every random decision of a run goes through a ChoiceSource. Each decision is an option index in
 * [0, n) where 0 is always the simplest behaviour (no fault, shortest delay, first option).
 *
 * - Seeded: options are drawn from one Rng per stream (seeded from the run seed and the stream
 *   name) and, when recording, appended to that stream's tape.
 * - Replayed: options are read from the stream's tape in order; a value >= n is reduced modulo n
 *   and a read past the end of a stream gives 0 (or, with a continuation seed, a seeded draw).
 */
export class ChoiceSource {
  private readonly streams = new Map<string, StreamState>();
  private readonly replayTape: Readonly<Tape> | null;
  private readonly record: boolean;
  /** Seed of the per-stream Rngs, or null when choices past a replayed tape read 0. */
  private readonly seed: number | string | null;
  readonly observer: ChoicePointObserver | null;
  private total = 0;
  private last = -1;

  private constructor(seed: number | string | null, replayTape: Readonly<Tape> | null, options: ChoiceSourceOptions) {
    this.seed = seed;
    this.replayTape = replayTape;
    this.record = options.record ?? false;
    this.observer = options.observer ?? null;
  }

  static seeded(seed: number | string, options: ChoiceSourceOptions = {}): ChoiceSource {
    return new ChoiceSource(seed, null, options);
  }

  static replaying(tape: Readonly<Tape>, options: ReplayOptions = {}): ChoiceSource {
    return new ChoiceSource(options.continueSeed ?? null, tape, options);
  }

  /** True when draws past a stream's replayed tape come from a seed (else they read 0). */
  get drawsPastTape(): boolean {
    return this.seed !== null;
  }

  /** The option chosen by the latest choice over all streams (-1 before the first). */
  get lastOption(): number {
    return this.last;
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

  /** The option count of each recorded choice, per stream, aligned with tape(). */
  optionCounts(): Record<string, number[]> {
    if (!this.record) throw new Error("ChoiceSource was not recording");
    const out: Record<string, number[]> = {};
    for (const [name, s] of this.streams) out[name] = (s.recordedOptions as number[]).slice();
    return out;
  }

  /** How many choices each stream has made so far (a tape cut there replays to this point). */
  positions(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, s] of this.streams) out[name] = s.position;
    return out;
  }

  /** How many choices one stream has made so far (0 before its first). */
  positionOf(name: string): number {
    return this.streams.get(name)?.position ?? 0;
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

  /** Called by streams: the global bound on choices per run, and the last option chosen. */
  countOne(option: number): void {
    if (this.total >= MAX_TAPE_LENGTH) throw new BoundExceeded("choices of the run (the choice tape)", MAX_TAPE_LENGTH);
    this.total++;
    this.last = option;
  }

  rngFor(stream: string): Rng {
    if (this.seed === null) throw new Error(`stream ${stream}: no seed to draw from`);
    return Rng.fromSeed(this.seed, stream);
  }
}

class StreamState implements Stream {
  position = 0;
  readonly recorded: number[] | null;
  readonly recordedOptions: number[] | null;
  private rng: Rng | null = null;

  constructor(
    private readonly source: ChoiceSource,
    readonly name: string,
    private readonly replay: readonly number[] | null,
    record: boolean,
  ) {
    this.recorded = record ? [] : null;
    this.recordedOptions = record ? [] : null;
  }

  private seededRng(): Rng {
    if (!this.rng) this.rng = this.source.rngFor(this.name);
    return this.rng;
  }

  private enter(options: number): void {
    this.source.observer?.choicePoint(this.name, this.position, options);
  }

  private take(option: number, options: number): number {
    this.position++;
    this.source.countOne(option);
    this.recorded?.push(option);
    this.recordedOptions?.push(options);
    return option;
  }

  /** The replayed value at this position, or null when past the tape (or not replaying). */
  private replayed(): number | null {
    if (!this.replay) return null;
    if (this.position < this.replay.length) return this.replay[this.position] as number;
    return this.source.drawsPastTape ? null : 0;
  }

  pick(n: number): number {
    if (n <= 1) return 0;
    this.enter(n);
    const raw = this.replayed();
    if (raw !== null) return this.take(raw < n ? raw : raw % n, n);
    return this.take(this.seededRng().intBelow(n), n);
  }

  chance(ppm: number): boolean {
    if (ppm <= 0) return false;
    this.enter(2);
    const raw = this.replayed();
    if (raw !== null) return this.take(raw % 2, 2) === 1;
    const hit = ppm >= 1_000_000 || this.seededRng().intBelow(1_000_000) < ppm;
    return this.take(hit ? 1 : 0, 2) === 1;
  }

  between(min: number, max: number): number {
    return max <= min ? min : min + this.pick(max - min + 1);
  }
}
