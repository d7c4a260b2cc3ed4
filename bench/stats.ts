/** Summary statistics of repeated measurements (the machine is noisy: never trust one run). */
export interface Spread {
  min: number;
  median: number;
  max: number;
  runs: number;
}

/** The q-quantile (0..1) by the nearest-rank method on a sorted copy. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) throw new Error("quantile of no values");
  if (!(q >= 0 && q <= 1)) throw new RangeError(`quantile ${q}`);
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1] as number;
}

/** Median of an odd count is the middle value; of an even count, the mean of the two middle ones. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function spread(values: readonly number[]): Spread {
  return { min: Math.min(...values), median: median(values), max: Math.max(...values), runs: values.length };
}
