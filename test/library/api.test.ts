// Uses eosfuzz exactly as a team's own test suite would: by package name, from the built package.
import { join } from "node:path";
import { loadScenario, replay, runCampaign, runCampaignAsync, runSeed, TOOL_VERSION, VIOLATION_KINDS } from "eosfuzz";
import { expectScenario, expectScenarioAsync, expectSeedReproduces, testSeedFiles } from "eosfuzz/vitest";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");

describe("the eosfuzz library API", () => {
  it("loadScenario takes a built-in name; runSeed is a pure function of (scenario, seed)", () => {
    const scenario = loadScenario("kip-1228-gap");
    expect(scenario.scenario.name).toBe("kip-1228-gap");
    const a = runSeed(scenario, { seed: 15 }, { recordTape: true });
    const b = runSeed("kip-1228-gap", { seed: 15 });
    expect(b.traceHash).toBe(a.traceHash);
    expect(a.violations.map((v) => v.kind)).toContain("stale-marker");
    // The recorded tape replays the same run.
    expect(runSeed(scenario, { tape: a.tape as Record<string, number[]> }).traceHash).toBe(a.traceHash);
    expect(VIOLATION_KINDS).toContain("stale-marker");
    expect(TOOL_VERSION).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("loadScenario also takes YAML text; runCampaign judges the expectation", () => {
    const yaml = `name: inline-check
cluster:
  brokers: [{ id: broker-1, release: "4.2.1" }]
  transactionState: { minInsyncReplicas: 1 }
  topics: [{ name: orders, partitions: 1 }]
workload: { producers: 1, transactions: 3 }
seeds: 3
`;
    const result = runCampaign(loadScenario(yaml));
    expect(result.seedsRun).toBe(3);
    expect(result.verdict.met).toBe(true);
    expect(() => loadScenario(yaml.replace("producers: 1", "producers: 0"))).toThrow(
      /\(inline scenario\):6:\d+ workload\.producers: expected >= 1, found 0/,
    );
  });

  it("replay reproduces a committed seed file", () => {
    const r = replay(join(ROOT, "seeds", "kip-1228-race.seed-0.json"));
    expect(r).toMatchObject({ reproduced: true, status: "reproduced", scenario: "kip-1228-race" });
    expect(r.traceHash).toBe(r.recordedTraceHash);
    expect(r.scriptSteps?.every((s) => s.ok)).toBe(true);
  });
});

describe("the vitest helper (eosfuzz/vitest)", () => {
  it("expectScenario passes when the expectation holds", () => {
    const result = expectScenario("kafka-17754-tv2-race");
    expect(result.verdict.met).toBe(true);
  });

  it("expectScenario fails with the causal chain when it does not", () => {
    const broken = loadScenario("kip-1228-race");
    broken.scenario.expect = { clean: true, find: [], findAny: [], allow: [] };
    expect(() => expectScenario(broken)).toThrow(
      /did not meet its expectation[\s\S]*unexpected stale-marker[\s\S]*legacy rule/,
    );
  });

  it("expectScenarioAsync runs on workers without blocking the test's thread, and gives the same result", async () => {
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    try {
      const result = await expectScenarioAsync("kafka-17754-tv2-race", { workers: 2 });
      const inThread = expectScenario("kafka-17754-tv2-race");
      expect([result.seedsRun, result.events, result.violations]).toEqual([
        inThread.seedsRun,
        inThread.events,
        inThread.violations,
      ]);
    } finally {
      clearInterval(ticker);
    }
    expect(ticks).toBeGreaterThan(0);
    const other = await expectScenarioAsync("kip-1228", { workers: 2, seeds: 30, strategy: "swarm" });
    expect(other.strategy.name).toBe("swarm");
  });

  it("expectScenarioAsync fails with the causal chain, and with how far it got when its timeout runs out", async () => {
    const broken = loadScenario("kip-1228-race");
    broken.scenario.expect = { clean: true, find: [], findAny: [], allow: [] };
    await expect(expectScenarioAsync(broken, { workers: 1 })).rejects.toThrow(
      /did not meet its expectation[\s\S]*unexpected stale-marker[\s\S]*legacy rule/,
    );
    await expect(expectScenarioAsync("kip-1228", { workers: 1, seeds: 100_000, timeoutMs: 300 })).rejects.toThrow(
      /^scenario kip-1228 did not finish within 300 ms: \d+ of 100000 seeds run; give it more time, fewer seeds or more workers$/,
    );
    const { timedOut, result } = await runCampaignAsync("kip-1228", { workers: 1, seeds: 100_000, timeoutMs: 300 });
    expect(timedOut).toBe(true);
    expect(result.interrupted).toBe(true);
  });

  it("expectSeedReproduces checks one seed file", () => {
    expect(expectSeedReproduces(join(ROOT, "seeds", "tv1-race.seed-0.json")).reproduced).toBe(true);
  });

  // One test per committed seed file, registered by the helper.
  testSeedFiles(join(ROOT, "seeds"));
});
