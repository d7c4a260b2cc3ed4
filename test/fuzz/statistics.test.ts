import { describe, expect, it } from "vitest";
import type { SeededViolation } from "../../src/fuzz/campaign/seeded-violation.js";
import {
  campaignStatistics,
  largestMissedProbability,
  seedsForConfidence,
  signatureOf,
} from "../../src/fuzz/campaign/statistics.js";

const v = (seed: number, kind: "stale-marker" | "hanging-transaction", brokerRelease?: string): SeededViolation => ({
  kind,
  seed,
  traceHash: "0",
  summary: "",
  explanation: [],
  atMs: 0,
  ...(brokerRelease ? { brokerRelease } : {}),
});

describe("campaign statistics", () => {
  it("gives the seeds needed for 95% confidence: ceil(ln 0.05 / ln(1 - p))", () => {
    expect(seedsForConfidence(0.01)).toBe(299);
    expect(seedsForConfidence(0.001)).toBe(2995);
    expect(seedsForConfidence(0.5)).toBe(5);
    expect(seedsForConfidence(1)).toBe(1);
    // The claim holds: with that many seeds the miss probability is at most 5%, with one fewer it is not.
    for (const p of [0.01, 0.003, 0.2]) {
      const n = seedsForConfidence(p);
      expect((1 - p) ** n).toBeLessThanOrEqual(0.05);
      expect((1 - p) ** (n - 1)).toBeGreaterThan(0.05);
    }
  });

  it("bounds what a clean run can have missed (about 3/n)", () => {
    expect(largestMissedProbability(200)).toBeCloseTo(0.01487, 4);
    expect((1 - largestMissedProbability(1000)) ** 1000).toBeCloseTo(0.05, 6);
    expect(largestMissedProbability(0)).toBe(1);
  });

  it("counts seeds, not violations, per signature, and runs to the first hit from the campaign start", () => {
    const violations = [
      v(12, "stale-marker", "4.1"),
      v(12, "stale-marker", "4.1"),
      v(30, "stale-marker", "4.1"),
      v(15, "hanging-transaction"),
    ];
    const stats = campaignStatistics(
      violations,
      100,
      (seed) => seed - 10 + 1,
      new Map([["stale-marker at 4.1", 1234]]),
      [0.01],
    );
    expect(
      stats.signatures.map((s) => [
        s.signature,
        s.seeds,
        s.fractionOfSeeds,
        s.firstSeed,
        s.seedsToFirstHit,
        s.wallMsToFirstHit,
      ]),
    ).toEqual([
      ["hanging-transaction", 1, 0.01, 15, 6, null],
      ["stale-marker at 4.1", 2, 0.02, 12, 3, 1234],
    ]);
    expect(stats.clean.seedsNeeded).toEqual([{ perSeedProbability: 0.01, seeds: 299 }]);
    expect(signatureOf({ kind: "stale-marker" })).toBe("stale-marker");
  });
});
