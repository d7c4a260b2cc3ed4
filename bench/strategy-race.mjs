#!/usr/bin/env node
// Per strategy, on kip-1228-gap: the median number of runs to the first stale-marker over 20
// campaign seeds, and the fraction of runs that hit it over --rate-runs runs of --rate-campaigns
// campaigns (how productive a strategy stays once it has learned). Uses the built CLI.
//   node bench/strategy-race.mjs [--campaigns 20] [--strategies random,swarm,pct,coverage] [--workers 2] [--limit 400]
//                                [--rate-campaigns 5] [--rate-runs 300] [--warm-runs 200]
//                                [--offset-base 0] [--offset-step 1000000] [--warm-dir DIR]
// Campaign c starts at seed offset-base + c * offset-step (issue 31 measures 0, 1000, ..., 19000:
// --offset-step 1000; and 20000, 21000, ...: --offset-base 20000 --offset-step 1000).
// Strategy "coverage+corpus": each campaign starts from the corpus (--corpus) that a cold coverage
// campaign of --warm-runs runs left on its own seeds (900,000,000 + c * 1,000,000, disjoint from
// every offset above): what a nightly CI job that keeps its corpus gets. Those warm-up runs are not
// counted. With --warm-dir the warm-up corpora are kept there (warm-C-RUNS.json) and reused by a
// later invocation (each campaign starts from a copy: a campaign writes its corpus back).
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flagReader } from "./flags.mjs";

const flag = flagReader();
const campaigns = Number(flag("campaigns", "20"));
const strategies = flag("strategies", "random,swarm,pct,coverage").split(",");
const workers = flag("workers", "2");
const limit = Number(flag("limit", "400"));
const scenario = flag("scenario", "kip-1228-gap");
const kind = flag("kind", "stale-marker");
const rateCampaigns = Number(flag("rate-campaigns", "5"));
const rateRuns = Number(flag("rate-runs", "300"));
const warmRuns = Number(flag("warm-runs", "200"));
const offsetBase = Number(flag("offset-base", "0"));
const offsetStep = Number(flag("offset-step", "1000000"));
const warmDir = flag("warm-dir", null);
const WARM = "coverage+corpus";
const cli = join(import.meta.dirname, "../dist/cli/main.js");

/** A copy of the corpus file a cold coverage campaign of warmRuns runs left on seeds of its own. */
function warmCorpus(c) {
  const file = join(mkdtempSync(join(tmpdir(), "eosfuzz-warm-")), "corpus.json");
  const kept = warmDir ? join(warmDir, `warm-${c}-${warmRuns}.json`) : null;
  if (kept && existsSync(kept)) {
    copyFileSync(kept, file);
    return file;
  }
  campaign("coverage", 900_000_000 + c * 1_000_000, warmRuns, ["--corpus", file]);
  if (kept) {
    mkdirSync(warmDir, { recursive: true });
    copyFileSync(file, kept);
  }
  return file;
}

function campaign(strategy, seedStart, seeds, given, c = 0) {
  const warm = strategy === WARM;
  const corpus = warm ? warmCorpus(c) : null;
  const extra = corpus ? [...given, "--corpus", corpus] : given;
  const r = spawnSync(
    process.execPath,
    [
      cli,
      "run",
      "--scenario",
      scenario,
      "--strategy",
      warm ? "coverage" : strategy,
      "--seed-start",
      String(seedStart),
      "--seeds",
      String(seeds),
      "--no-shrink",
      "--no-progress",
      "--workers",
      workers,
      "--json",
      ...extra,
    ],
    { encoding: "utf8", maxBuffer: 1 << 28 },
  );
  if (r.status !== 0 && r.status !== 1)
    throw new Error(`${strategy} campaign from ${seedStart}: exit ${r.status}: ${r.stderr}`);
  if (corpus) rmSync(join(corpus, ".."), { recursive: true, force: true });
  const report = JSON.parse(r.stdout);
  return { hit: report.statistics.signatures.find((s) => s.kind === kind) ?? null, wallMs: report.wallMs };
}

/** Campaign c uses seeds from offsetBase + c * offsetStep: disjoint ranges, the same for every strategy. */
function runsToFirstHit(strategy, c) {
  const { hit, wallMs } = campaign(strategy, offsetBase + c * offsetStep, limit, ["--stop-on-first"], c);
  return { runs: hit ? hit.seedsToFirstHit : null, wallMs };
}

/** Rate campaigns use seeds from 500,000,000 + c * 1,000,000 (apart from the race's). */
function hitFraction(strategy, c) {
  const { hit } = campaign(strategy, 500_000_000 + c * 1_000_000, rateRuns, [], c);
  return hit ? hit.fractionOfSeeds : 0;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(
  `${scenario}: runs to the first ${kind}, ${campaigns} campaigns per strategy from seeds ${offsetBase} + c x ${offsetStep} (a miss within ${limit} runs counts as ${limit + 1})`,
);
for (const strategy of strategies) {
  const runs = [];
  let wall = 0;
  for (let c = 0; c < campaigns; c++) {
    const r = runsToFirstHit(strategy, c);
    runs.push(r.runs ?? limit + 1);
    wall += r.wallMs;
  }
  const fractions = [];
  for (let c = 0; c < rateCampaigns; c++) fractions.push(hitFraction(strategy, c));
  const mean = fractions.reduce((a, b) => a + b, 0) / Math.max(1, fractions.length);
  console.log(
    `${strategy.padEnd(9)} median ${String(median(runs)).padStart(5)}   mean ${(runs.reduce((a, b) => a + b, 0) / runs.length).toFixed(2)}   runs: ${runs.join(" ")}   (${(wall / 1000).toFixed(0)} s)`,
  );
  if (rateCampaigns > 0)
    console.log(
      `${"".padEnd(9)} hit rate ${(mean * 100).toFixed(1)}% of runs (${rateCampaigns} x ${rateRuns} runs: ${fractions.map((f) => (f * 100).toFixed(1)).join(" ")})`,
    );
}
