import { Rng } from "./rng.js";

/** Upper bound on the number of choices one run may make; a run that needs more is a model bug. */
export const MAX_TAPE_LENGTH = 2_000_000;

/**
 * Every random decision of a run goes through a ChoiceSource. Each decision is an option index in
 * [0, n) where 0 is always the simplest behaviour (no fault, shortest delay, first option).
 *
 * - Seeded: options are drawn from per-stream Rngs (so a new component's draws do not shift the
 *   others') and, when recording, appended to the tape.
 * - Replayed: options are read from a given tape in order; a value >= n is reduced modulo n and a
 *   read past the end gives 0. A shrinker can therefore delete or lower any entry and still get a
 *   valid (simpler) run.
 */
export class ChoiceSource {
  private readonly rngs = new Map<string, Rng>();
  private readonly replayTape: readonly number[] | null;
  private readonly recorded: number[] | null;
  private position = 0;

  private constructor(
    private readonly seed: number | string,
    replayTape: readonly number[] | null,
    record: boolean,
  ) {
    this.replayTape = replayTape;
    this.recorded = record ? [] : null;
  }

  static seeded(seed: number | string, options: { record?: boolean } = {}): ChoiceSource {
    return new ChoiceSource(seed, null, options.record ?? false);
  }

  static replaying(tape: readonly number[], options: { record?: boolean } = {}): ChoiceSource {
    return new ChoiceSource("tape", tape, options.record ?? false);
  }

  get isReplay(): boolean {
    return this.replayTape !== null;
  }

  /** Number of choices made so far. */
  get count(): number {
    return this.position;
  }

  /** The options chosen so far (only when recording). */
  tape(): number[] {
    if (!this.recorded) throw new Error("ChoiceSource was not recording");
    return this.recorded.slice();
  }

  /** An option in [0, n). */
  pick(stream: string, n: number): number {
    if (n <= 1) return 0;
    if (this.position >= MAX_TAPE_LENGTH) throw new Error(`choice tape exceeded ${MAX_TAPE_LENGTH} entries`);
    let option: number;
    if (this.replayTape) {
      const raw = this.position < this.replayTape.length ? (this.replayTape[this.position] as number) : 0;
      option = raw < n ? raw : raw % n;
    } else {
      option = this.rng(stream).intBelow(n);
    }
    this.position++;
    this.recorded?.push(option);
    return option;
  }

  /** True with probability ppm / 1e6 when seeded; "true" is option 1, so the simplest choice is false. */
  chance(stream: string, ppm: number): boolean {
    if (ppm <= 0) return false;
    if (this.replayTape) return this.pick(stream, 2) === 1;
    if (this.position >= MAX_TAPE_LENGTH) throw new Error(`choice tape exceeded ${MAX_TAPE_LENGTH} entries`);
    const hit = ppm >= 1_000_000 || this.rng(stream).intBelow(1_000_000) < ppm;
    this.position++;
    this.recorded?.push(hit ? 1 : 0);
    return hit;
  }

  /** An integer in [min, max], min being the simplest. */
  between(stream: string, min: number, max: number): number {
    return max <= min ? min : min + this.pick(stream, max - min + 1);
  }

  private rng(stream: string): Rng {
    let rng = this.rngs.get(stream);
    if (!rng) {
      rng = Rng.fromSeed(this.seed, stream);
      this.rngs.set(stream, rng);
    }
    return rng;
  }
}
