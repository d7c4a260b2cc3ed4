import { describe, expect, it } from "vitest";
import { raceBugs } from "../../bench/bug-race.js";

// npm run bench:bugs counts a bug found only as `eosfuzz bugs run --generic` does: its symptom with
// the bug on, none with it off over the same runs.
describe("the bug race of the strategies (npm run bench:bugs)", () => {
  it("counts a bug the first run shows (Z05 on everything), with its CPU time", async () => {
    const [row] = await raceBugs({ budget: 3, strategies: ["random"], bugs: ["Z05"] });
    expect(row).toMatchObject({ strategy: "random", found: 1, bugs: ["Z05"] });
    expect(row?.cpuSeconds).toBeGreaterThanOrEqual(0);
    expect(row?.runs).toBeGreaterThan(1);
  });

  it("does not count a bug its budget does not reach (Z18 in one run)", async () => {
    const [row] = await raceBugs({ budget: 1, strategies: ["random"], bugs: ["Z18"] });
    expect(row).toMatchObject({ found: 0, bugs: [], runs: 1 });
  });
});
