import { signatureOf } from "../../src/fuzz/campaign/statistics.js";
import { afterAll, describe, expect, it } from "vitest";
import { type CampaignResult, runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { InProcessExecutor } from "../../src/fuzz/executor/executor.js";
import { PoolExecutor } from "../../src/fuzz/executor/worker-pool.js";
import { pctBound } from "../../src/fuzz/run-shaping/pct.js";
import { standaloneRun } from "../../src/fuzz/seeds/failure-recipe.js";
import { decodeSwarm, encodeSwarm } from "../../src/fuzz/run-shaping/swarm.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { pctConfig } from "../../src/fuzz/search/pct-setup.js";
import { runSearch } from "../../src/fuzz/search/run-search.js";
import type { SearchOptions } from "../../src/fuzz/search/search-options.js";
import { replaySeed } from "../../src/fuzz/seeds/replay.js";
import { failingSeedFiles } from "../../src/fuzz/seeds/save-failures.js";
import { parseSeedFile } from "../../src/fuzz/seeds/seed-file.js";
import { shrinkFirstFailure } from "../../src/fuzz/shrink/shrink-first-failure.js";
import { mergeShardReports } from "../../src/report/merge-reports.js";
import { buildRunReport, deterministicPart } from "../../src/report/run-report.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { adversarialGap } from "./adversarial-gap.js";

const gap = resolveScenario("kip-1228-gap");
/** The late-copy finder writes network duplicates: the coverage strategy aims them under the adversarial model. */
const adversarial = adversarialGap();
const here = new InProcessExecutor();
const pool = new PoolExecutor({ workers: 2, seedTimeoutMs: 60_000 });
afterAll(() => pool.close());

const search = (options: Partial<SearchOptions>, executor = here, loaded = gap) =>
  runSearch(loaded, { strategy: "random", seeds: 40, seedStart: 0, shard: null, ...options }, executor, () => 0);

const report = (r: CampaignResult) => deterministicPart(buildRunReport(r, 1));
const found = (r: CampaignResult) => r.violations.map((v) => `${v.seed}:${v.kind}:${v.traceHash}`);

describe("search strategies", () => {
  it("random: the same report in this thread and on 2 workers", async () => {
    const a = await search({ seeds: 16, seedStart: 20 });
    const b = await search({ seeds: 16, seedStart: 20 }, pool);
    expect(found(a).length).toBeGreaterThan(0);
    expect(found(b)).toEqual(found(a));
    expect(report(b)).toEqual(report(a));
    expect(a.coverage.reached.length).toBeGreaterThan(5);
    const first = a.violations.find((v) => v.kind === "stale-marker");
    const signature = signatureOf(first ?? { kind: "stale-marker" });
    expect(signature).toMatch(/^stale-marker at (4\.1( from 4\.2\.1)?|4\.2\.1 from 4\.1)$/);
    expect(a.statistics.signatures.find((s) => s.signature === signature)).toMatchObject({
      firstSeed: first?.seed,
      seedsToFirstHit: (first?.seed ?? 0) - 20 + 1,
    });
  });

  it("shards: merging the shard reports gives the unsharded report", async () => {
    const whole = report(await search({ seeds: 45 }));
    const shards = [];
    for (let index = 0; index < 3; index++) {
      const r = buildRunReport(await search({ seeds: 45, shard: { index, count: 3 } }), 5);
      expect(r.seedsRun).toBe(15);
      shards.push({ file: `shard-${index}.json`, report: r });
    }
    const merged = mergeShardReports(shards.reverse(), gap);
    expect(deterministicPart(buildRunReport(merged.result, merged.wallMs))).toEqual(whole);
  });

  it("swarm: each seed draws a fault mix first; the tape replays it, and so does the scenario with the mix's rates", () => {
    const config = { ...runConfigFor(gap), shaping: { swarm: true } };
    const run = runSeed(config, { seed: 4 }, { recordTape: true });
    expect(run.shaping).toMatch(/^swarm: network slow (off|x)/);
    const draws = run.tape?.swarm ?? [];
    const settings = decodeSwarm(config.spec, draws);
    expect(settings).toHaveLength(4); // the four fault rates kip-1228-gap sets
    expect(encodeSwarm(settings)).toEqual(draws);
    expect(runSeed(config, { tape: run.tape ?? {} }).traceHash).toBe(run.traceHash);
    expect(runSeed(runConfigFor(gap), { seed: 4 }).traceHash).not.toBe(run.traceHash);
    const plain = standaloneRun(gap, {}, config.shaping, run.tape ?? {});
    expect(plain?.tape.swarm).toBeUndefined();
    expect(runSeed(runConfigFor(plain?.loaded ?? gap), { tape: plain?.tape ?? {} }).traceHash).toBe(run.traceHash);
    // The simplest swarm tape switches every fault kind off: the run draws "off" for each of the four.
    const simplest = runSeed(config, { tape: {} }, { recordTape: true });
    expect(simplest.tape?.swarm).toEqual(encodeSwarm(settings.map(() => ({ on: false }))));
  });

  it("pct: measures m on pilot runs, demotes d - 1 scoped messages, and states its bound", async () => {
    const config = pctConfig(runConfigFor(gap), 3, "markers");
    const pct = config.shaping?.pct;
    expect(pct?.messagesPerRun).toBeGreaterThan(10);
    expect(pct?.chains).toBeGreaterThanOrEqual(3);
    const run = runSeed(config, { seed: 1 }, { recordTape: true });
    expect(run.shaping).toMatch(/^pct: change points at scoped messages \d+, \d+/);
    expect(runSeed(config, { tape: run.tape ?? {} }).traceHash).toBe(run.traceHash);
    expect(standaloneRun(gap, {}, config.shaping, run.tape ?? {})).toBeNull(); // PCT is no scenario property
    expect(pctBound(3, 50, 4)).toBeCloseTo(1 / (4 * 2500), 12);
    const r = await search({ strategy: "pct", seeds: 10 });
    expect(r.strategy.summary).toMatch(/probability >= 1\/\(c\*m\^2\)/);
    expect(r.strategy.pct?.missProbabilityBound).toBeLessThan(1);
    expect(r.violations.every((v) => v.replay?.includes("--strategy pct --pct-depth 3 --pct-scope markers"))).toBe(
      true,
    );
  });

  it("coverage: a campaign is the same in this thread and on 2 workers, and its findings replay from their tapes", async () => {
    const a = await search({ strategy: "coverage", seeds: 32, seedStart: 1_000_000 }, here, adversarial);
    const b = await search({ strategy: "coverage", seeds: 32, seedStart: 1_000_000 }, pool, adversarial);
    expect(report(b)).toEqual(report(a));
    const { freshRuns = 0, mutatedRuns = 0, generations = 0 } = a.strategy.coverage ?? {};
    expect(freshRuns).toBeGreaterThanOrEqual(1); // the first run has no corpus to learn from
    expect(freshRuns + mutatedRuns).toBe(32);
    expect(generations).toBe(9); // 1, 1, 2, 2, 4, 4 (14 runs), then 8, 8 and the last 2
    const scopes = /from a kept state: (\d+) whole runs, (\d+) clients only, (\d+) marker links only/.exec(
      a.strategy.summary,
    );
    const rerolled = (scopes?.slice(1) ?? []).map(Number);
    expect(rerolled).toHaveLength(3);
    expect(rerolled.reduce((x, y) => x + y, 0)).toBeGreaterThan(0);
    const aimed = Number(/; (\d+) aimed a late marker copy/.exec(a.strategy.summary)?.[1]);
    expect(aimed).toBeGreaterThan(0);
    expect(a.strategy.coverage?.aimedRuns).toBe(aimed);
    expect(rerolled.reduce((x, y) => x + y, 0) + aimed).toBeLessThanOrEqual(mutatedRuns);
    expect(a.violations.length).toBeGreaterThan(0); // this campaign reaches a stale marker
    const config = { ...runConfigFor(adversarial), shaping: { swarm: true } };
    for (const v of a.violations.slice(0, 3))
      expect(runSeed(config, { tape: v.tape ?? {} }).traceHash).toBe(v.traceHash);
  });

  it("coverage: aimed late marker copies find kip-1228-gap's stale marker (adversarial model) within 5 runs in each of these campaigns (random needs 1, 1, 3 and 1)", async () => {
    // Campaigns 2, 4, 6 and 8 (seed starts c x 1,000,000): coverage needed 1, 1, 5 and 1 runs.
    for (const c of [2, 4, 6, 8]) {
      const r = await search({ strategy: "coverage", seeds: 5, seedStart: c * 1_000_000 }, here, adversarial);
      expect(r.violations.some((v) => v.kind === "stale-marker")).toBe(true);
    }
  });

  it("coverage under TCP: its first run, with marker requests slow at x4, finds the stale marker where random's first run does not", async () => {
    // Campaigns from seeds 0, 2000 and 4000 (bench:strategies --offset-step 1000): random needs 7,
    // 12 and 5 runs. The first run of coverage is random's run of the same seed with one change, the
    // marker link's slow rate at x4 (lateFirstCopyMix): a late first copy is likeliest there.
    for (const seedStart of [0, 2000, 4000]) {
      expect((await search({ seeds: 1, seedStart })).violations.some((v) => v.kind === "stale-marker")).toBe(false);
      const r = await search({ strategy: "coverage", seeds: 1, seedStart });
      expect(r.strategy.summary).toContain("1 of them with marker slow x4");
      expect(r.violations.some((v) => v.kind === "stale-marker")).toBe(true);
    }
  });

  it("--stop-on-first ends right after the run that settles the expectation; a time budget after a contiguous prefix", async () => {
    const all = await search({ seeds: 30 });
    const firstHit = all.failingSeeds[0] ?? -1;
    const first = await search({ seeds: 200, stopOnFirst: true }, pool);
    expect(first.stoppedBy).toBe("stop-on-first");
    expect(first.seedsRun).toBe(firstHit + 1);
    expect(first.verdict.met).toBe(true);
    let t = 0;
    const budget = await runSearch(
      gap,
      { strategy: "random", seeds: 200, seedStart: 0, shard: null, timeBudgetMs: 3 },
      here,
      () => t++,
    );
    expect(budget.stoppedBy).toBe("time-budget");
    expect(budget.seedsRun).toBeLessThan(200);
    expect(budget.seedsRun).toBeGreaterThan(0);
  });
});

describe("findings of shaped runs outside the campaign", () => {
  it("a swarm finding is shrunk and saved as a plain run of the scenario with its fault rates; a pct finding keeps its shaping", async () => {
    const swarm = await search({ strategy: "swarm", seeds: 200, stopOnFirst: true });
    expect(swarm.violations.length).toBeGreaterThan(0);
    const shrunk = shrinkFirstFailure(swarm, { budgetMs: 5_000, saveDir: null });
    expect(shrunk?.summary.deterministic).toBe(true);
    expect(shrunk?.summary.kind).toBe(swarm.violations[0]?.kind);
    const [file] = failingSeedFiles(swarm, "/tmp/unused");
    const replayed = replaySeed(parseSeedFile(file?.content ?? "", "swarm.json"));
    expect(replayed.status).toBe("reproduced");
    expect(JSON.parse(file?.content ?? "{}").shaping).toBeUndefined();

    const pct = await search({ strategy: "pct", seeds: 400, stopOnFirst: true });
    expect(pct.violations.length).toBeGreaterThan(0);
    expect(shrinkFirstFailure(pct, { budgetMs: 5_000, saveDir: null })).toBeNull();
    const [pctFile] = failingSeedFiles(pct, "/tmp/unused");
    expect(JSON.parse(pctFile?.content ?? "{}").shaping.pct.depth).toBe(3);
    expect(replaySeed(parseSeedFile(pctFile?.content ?? "", "pct.json")).status).toBe("reproduced");
  });
});

describe("exhaustive search", () => {
  it("finds kip-1228-gap-small's stale marker at 3 deviations; pruning repeats changes no reachable state or verdict", async () => {
    const small = resolveScenario("kip-1228-gap-small");
    const pruned = await search({ strategy: "exhaustive", seeds: 100_000, depth: 3 }, pool, small);
    const full = await search({ strategy: "exhaustive", seeds: 100_000, depth: 3, pruneRepeats: false }, pool, small);
    expect(pruned.strategy.exhaustive).toMatchObject({
      exhaustive: false,
      depth: 3,
      depthCompleted: 2,
      counterexampleDeviations: 3,
    });
    expect(full.strategy.exhaustive).toMatchObject({ depthCompleted: 2, counterexampleDeviations: 3 });
    expect(pruned.strategy.exhaustive?.prunedBranches).toBeGreaterThan(0);
    expect(pruned.strategy.exhaustive?.schedules).toBeLessThan(full.strategy.exhaustive?.schedules ?? 0);
    expect(new Set(pruned.violations.map((v) => v.kind))).toEqual(new Set(full.violations.map((v) => v.kind)));
    expect(pruned.coverage.reached.map((p) => p.point)).toEqual(full.coverage.reached.map((p) => p.point));
    expect(pruned.verdict.met).toBe(true);
    expect(full.verdict.met).toBe(true);
  });
});
