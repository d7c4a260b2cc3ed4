import { describe, expect, it } from "vitest";
import { firstFailureOfFastCheck } from "../../bench/fast-check-race.js";

// The fast-check baseline of `npm run bench:engine` is only a fair comparison if its minimal model is
// right: the late marker copy closes the next transaction under the legacy rule, never under KIP-1228's.
describe("fast-check baseline of the KIP-1228 gap race", () => {
  it("finds the stale marker under the legacy marker rule", async () => {
    for (let seed = 0; seed < 5; seed++) {
      const r = await firstFailureOfFastCheck(seed, 1_000);
      expect(r.failed).toBe(true);
      expect(r.runs).toBeGreaterThan(0);
    }
  });

  it("never finds it under the KIP-1228 strict rule", async () => {
    const r = await firstFailureOfFastCheck(0, 500, true);
    expect(r.failed).toBe(false);
    expect(r.runs).toBe(500);
  });
});
