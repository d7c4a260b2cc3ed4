/** The I-th of N disjoint slices of a campaign's runs (0-based). */
export interface Shard {
  index: number;
  count: number;
}

/** The runs [start, end) of a campaign of `seeds` runs from seedStart that a shard owns. */
export function shardRange(seedStart: number, seeds: number, shard: Shard | null): { start: number; end: number } {
  if (!shard) return { start: seedStart, end: seedStart + seeds };
  return {
    start: seedStart + Math.floor((shard.index * seeds) / shard.count),
    end: seedStart + Math.floor(((shard.index + 1) * seeds) / shard.count),
  };
}
