import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { resolveScenario } from "../../src/scenario/loader.js";

describe("findings at a partition an unclean election rewrote are that election's (PartitionChangeBuilder unclean election)", () => {
  const config = runConfigFor(resolveScenario("unclean-election"));

  it("are reported as unclean-election, naming the election and the truncations that followed", () => {
    const found = [];
    for (let seed = 0; seed < 20 && found.length === 0; seed++)
      found.push(...runSeed(config, { seed }).violations.filter((v) => v.kind === "unclean-election"));
    const v = found[0];
    expect(v).toBeDefined();
    expect(v?.summary).toMatch(/^after the unclean election at orders-\d \(broker-\d, leader epoch \d+\): /);
    expect(v?.explanation.join("\n")).toMatch(/\(not in the ISR\) became leader at epoch \d+/);
  });

  it("without unclean election the same faults lose nothing acknowledged and find nothing", () => {
    const clean = resolveScenario("unclean-election");
    for (const t of clean.scenario.cluster.topics) t.uncleanLeaderElection = false;
    const cleanConfig = runConfigFor(clean);
    // Measured: nothing in 200 seeds; offline partitions come back when their last in-sync replica does.
    for (let seed = 0; seed < 20; seed++) expect(runSeed(cleanConfig, { seed }).violations).toEqual([]);
  });
});
