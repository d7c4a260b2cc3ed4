import { type CampaignResult, runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runCampaign } from "../../src/fuzz/search/run-campaign.js";
import { type SeedTrace, traceSeed } from "../../src/fuzz/seeds/failure-traces.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { buildRunReport, type RunReport } from "../../src/report/run-report.js";
import { type LoadedScenario, resolveScenario } from "../../src/scenario/loader.js";
import type { Expectation } from "../../src/scenario/schema.js";

/** Upper bound on the seeds searched for a failure (kip-1228-gap fails in several percent of seeds). */
const SEARCH_SEEDS = 300;

let cachedFailure: { loaded: LoadedScenario; trace: SeedTrace } | null = null;

/** The first kip-1228-gap seed with a stale marker, traced (found at test time, so model changes don't break it). */
export function firstGapFailure(): { loaded: LoadedScenario; trace: SeedTrace } {
  if (cachedFailure) return cachedFailure;
  const loaded = resolveScenario("kip-1228-gap");
  const config = runConfigFor(loaded);
  for (let seed = 0; seed < SEARCH_SEEDS; seed++) {
    const r = runSeed(config, { seed });
    if (r.violations.some((v) => v.kind === "stale-marker")) {
      cachedFailure = { loaded, trace: traceSeed(config, seed, r.traceHash) };
      return cachedFailure;
    }
  }
  throw new Error(`no stale-marker in ${SEARCH_SEEDS} seeds of kip-1228-gap`);
}

/** A scenario with its expectation replaced (to make the same violations expected or not). */
export function withExpectation(loaded: LoadedScenario, expect: Partial<Expectation>): LoadedScenario {
  return { ...loaded, scenario: { ...loaded.scenario, expect: { find: [], findAny: [], allow: [], ...expect } } };
}

export function campaignReport(
  loaded: LoadedScenario,
  seedStart: number,
  seeds: number,
): { result: CampaignResult; report: RunReport } {
  const result = runCampaign(loaded, { seeds, seedStart });
  return { result, report: buildRunReport(result, 1000, null, new Date("2026-01-02T03:04:05.000Z")) };
}
