import seedrandom from "seedrandom";

export type RngState = seedrandom.State.Tychei;

const TWO_32 = 0x1_0000_0000;

/**
 * The only source of randomness in a run. tychei: fast, small JSON state, no systematic BigCrush
 * failures. Seeds are always explicit strings (seedrandom auto-seeds from entropy when given none).
 */
export class Rng {
  private constructor(private readonly prng: seedrandom.StatefulPRNG<RngState>) {}

  static fromSeed(root: number | string, stream = "main"): Rng {
    return new Rng(seedrandom.tychei(`eosfuzz:${root}:${stream}`, { state: true }));
  }

  static fromState(state: RngState): Rng {
    return new Rng(seedrandom.tychei("", { state }));
  }

  state(): RngState {
    return this.prng.state();
  }

  /** Unbiased integer in [0, n), n <= 2^32, by rejection sampling on the 32-bit output. */
  intBelow(n: number): number {
    if (!(n >= 1 && n <= TWO_32 && Number.isInteger(n))) throw new RangeError(`intBelow(${n})`);
    const limit = TWO_32 - remainder(TWO_32, n);
    for (let attempt = 0; attempt < 64; attempt++) {
      const x = this.prng.int32() >>> 0;
      if (x < limit) return asInt32IfItFits(remainder(x, n));
    }
    // 64 rejections in a row has probability < 2^-64; fall back to a biased draw rather than loop.
    return asInt32IfItFits(remainder(this.prng.int32() >>> 0, n));
  }
}

/**
 * x % n for integers 0 <= x <= 2^32 and 1 <= n <= 2^32, without the floating-point remainder (`%`
 * on values beyond int32 is a slow library call). Exact: x/n is at least 1/x away from the next
 * integer, far more than a double's rounding error at this size, so the floor is the true quotient.
 */
export function remainder(x: number, n: number): number {
  return x - Math.floor(x / n) * n;
}

/**
 * The same integer, as an int32 when it is one. `remainder` computes in doubles, and V8 keeps its
 * result as a heap number even when it is a small integer; every delay drawn, and every virtual
 * time computed from one, would then be a heap number too (boxed in each event and field that
 * holds it) instead of a small integer.
 */
function asInt32IfItFits(x: number): number {
  return x <= 0x7fff_ffff ? x | 0 : x;
}
