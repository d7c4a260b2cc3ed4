#!/usr/bin/env node
// Median runs to the first stale-marker on kip-1228-gap, per strategy, over 20 campaign seeds.
// Uses the built CLI (npm run build first). Usage:
//   node bench/strategy-race.mjs [--campaigns 20] [--strategies random,swarm,pct,coverage] [--workers 2] [--limit 400]
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : fallback;
};
const campaigns = Number(flag("campaigns", "20"));
const strategies = flag("strategies", "random,swarm,pct,coverage").split(",");
const workers = flag("workers", "2");
const limit = Number(flag("limit", "400"));
const scenario = flag("scenario", "kip-1228-gap");
const kind = flag("kind", "stale-marker");
const cli = join(import.meta.dirname, "../dist/cli/main.js");

/** Campaign c uses seeds from c * 1,000,000: disjoint ranges, the same for every strategy. */
function runsToFirstHit(strategy, c) {
  const r = spawnSync(
    process.execPath,
    [cli, "run", "--scenario", scenario, "--strategy", strategy, "--seed-start", String(c * 1_000_000), "--seeds", String(limit), "--stop-on-first", "--workers", workers, "--json"],
    { encoding: "utf8", maxBuffer: 1 << 28 },
  );
  if (r.status !== 0 && r.status !== 1) throw new Error(`${strategy} campaign ${c}: exit ${r.status}: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  const hit = report.statistics.signatures.find((s) => s.kind === kind);
  return { runs: hit ? hit.seedsToFirstHit : null, wallMs: report.wallMs };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

console.log(`${scenario}: runs to the first ${kind}, ${campaigns} campaigns per strategy (a miss within ${limit} runs counts as ${limit + 1})`);
for (const strategy of strategies) {
  const runs = [];
  let wall = 0;
  for (let c = 0; c < campaigns; c++) {
    const r = runsToFirstHit(strategy, c);
    runs.push(r.runs ?? limit + 1);
    wall += r.wallMs;
  }
  console.log(`${strategy.padEnd(9)} median ${String(median(runs)).padStart(5)}   runs: ${runs.join(" ")}   (${(wall / 1000).toFixed(0)} s)`);
}
