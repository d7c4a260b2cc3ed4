import type { SeededViolation } from "./seeded-violation.js";

/** The confidence level of every claim the statistics make. */
export const CONFIDENCE = 0.95;

/** Per-seed probabilities for which a report says how many seeds a 95 % detection needs. */
export const DEFAULT_BUG_PROBABILITIES = [0.01, 0.001, 0.0001] as const;

/**
 * Seeds needed to see, with probability `confidence`, a bug that each seed independently hits with
 * probability p: the smallest n with 1 - (1 - p)^n >= confidence.
 */
export function seedsForConfidence(p: number, confidence = CONFIDENCE): number {
  if (!(p > 0 && p <= 1)) throw new RangeError(`per-seed probability ${p}`);
  if (p === 1) return 1;
  return Math.ceil(Math.log(1 - confidence) / Math.log1p(-p));
}

/**
 * After n clean seeds, the largest per-seed probability a bug could have and still have been
 * missed with probability 1 - confidence: p = 1 - (1 - confidence)^(1/n) (about 3/n at 95 %).
 */
export function largestMissedProbability(n: number, confidence = CONFIDENCE): number {
  if (n <= 0) return 1;
  return -Math.expm1(Math.log(1 - confidence) / n);
}

/**
 * How a violation is grouped for statistics: its kind, where it showed (the leader's release), and
 * for a marker sent by a coordinator of another release, that release too.
 */
export function signatureOf(v: {
  kind: string;
  brokerRelease?: string | undefined;
  coordinatorRelease?: string | undefined;
}): string {
  if (!v.brokerRelease) return v.kind;
  const sender =
    v.coordinatorRelease && v.coordinatorRelease !== v.brokerRelease ? ` from ${v.coordinatorRelease}` : "";
  return `${v.kind} at ${v.brokerRelease}${sender}`;
}

export interface SignatureStats {
  signature: string;
  kind: string;
  brokerRelease: string | null;
  /** Seeds (runs) with at least one violation of this signature. */
  seeds: number;
  fractionOfSeeds: number;
  firstSeed: number;
  /** Runs from the start of the campaign (or shard set) up to and including the first hit. */
  seedsToFirstHit: number;
  /** Wall-clock ms from the start of the campaign until the first hit's result came in (timing). */
  wallMsToFirstHit: number | null;
}

export interface CleanRunClaim {
  seedsRun: number;
  confidence: number;
  /** A bug at least this likely per seed would have shown up with 95 % confidence. */
  largestMissedPerSeedProbability: number;
  seedsNeeded: { perSeedProbability: number; seeds: number }[];
}

export interface CampaignStatistics {
  signatures: SignatureStats[];
  clean: CleanRunClaim;
}

/**
 * What a sweep showed: per signature, how often and how soon it was hit; and what a clean result
 * would prove. `firstIndexOf` gives the position of a seed in the campaign (0 = first run), which
 * is not seed - seedStart for a shard of the range.
 */
export function campaignStatistics(
  violations: readonly SeededViolation[],
  seedsRun: number,
  seedsToFirstHit: (seed: number) => number,
  wallMsToFirstHit: ReadonlyMap<string, number>,
  bugProbabilities: readonly number[] = DEFAULT_BUG_PROBABILITIES,
): CampaignStatistics {
  const bySignature = new Map<string, { kind: string; brokerRelease: string | null; seeds: Set<number> }>();
  for (const v of violations) {
    const signature = signatureOf(v);
    let entry = bySignature.get(signature);
    if (!entry) {
      entry = { kind: v.kind, brokerRelease: v.brokerRelease ?? null, seeds: new Set() };
      bySignature.set(signature, entry);
    }
    entry.seeds.add(v.seed);
  }
  const signatures = [...bySignature]
    .map(([signature, e]): SignatureStats => {
      const firstSeed = Math.min(...e.seeds);
      return {
        signature,
        kind: e.kind,
        brokerRelease: e.brokerRelease,
        seeds: e.seeds.size,
        fractionOfSeeds: seedsRun > 0 ? round(e.seeds.size / seedsRun) : 0,
        firstSeed,
        seedsToFirstHit: seedsToFirstHit(firstSeed),
        wallMsToFirstHit: wallMsToFirstHit.get(signature) ?? null,
      };
    })
    .sort((a, b) => (a.signature < b.signature ? -1 : a.signature > b.signature ? 1 : 0));
  const probabilities = [...new Set(bugProbabilities)].sort((a, b) => b - a);
  return {
    signatures,
    clean: {
      seedsRun,
      confidence: CONFIDENCE,
      largestMissedPerSeedProbability: round(largestMissedProbability(seedsRun)),
      seedsNeeded: probabilities.map((p) => ({ perSeedProbability: p, seeds: seedsForConfidence(p) })),
    },
  };
}

/** Six significant digits: stable text in reports. */
function round(x: number): number {
  return Number(x.toPrecision(6));
}
