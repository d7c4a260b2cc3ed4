#!/usr/bin/env node
// One measurement in a fresh process, against one build of eosfuzz (its dist/ folder): runs seeds
// [start, start + seeds) of a built-in scenario with the engine's own runSeed, and prints one JSON
// line: CPU and wall time, events, virtual time and the violations found per kind (and the first
// seed of each). Used by compare.mjs to put two builds side by side.
//
//   node bench/compare-runner.mjs DIST SCENARIO SEEDS [START] [--until KIND]
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [dist, scenario, seedsText, startText = "0", ...rest] = process.argv.slice(2);
if (!dist || !scenario || !seedsText) {
  process.stderr.write("usage: compare-runner.mjs DIST SCENARIO SEEDS [START] [--until KIND]\n");
  process.exit(2);
}
const untilIndex = rest.indexOf("--until");
const until = untilIndex >= 0 ? rest[untilIndex + 1] : null;
const load = (file) => import(pathToFileURL(join(dist, file)).href);
const { runConfigFor } = await load("fuzz/campaign/campaign.js");
const { runSeed } = await load("fuzz/run/run-seed.js");
const { resolveScenario } = await load("scenario/loader.js");

const config = runConfigFor(resolveScenario(scenario));
const seeds = Number(seedsText);
const start = Number(startText);
const cpu0 = process.cpuUsage();
const wall0 = process.hrtime.bigint();
let events = 0;
let virtualMs = 0;
let ran = 0;
const kinds = {};
for (let seed = start; seed < start + seeds; seed++) {
  const r = runSeed(config, { seed });
  ran++;
  events += r.stats.events;
  virtualMs += r.stats.virtualTimeMs;
  for (const v of r.violations) {
    const k = kinds[v.kind] ?? { seeds: 0, firstSeed: seed, lastSeed: -1 };
    if (k.lastSeed !== seed) k.seeds++;
    k.lastSeed = seed;
    kinds[v.kind] = k;
  }
  if (until !== null && kinds[until]) break;
}
const cpu = process.cpuUsage(cpu0);
const wallMs = Number(process.hrtime.bigint() - wall0) / 1e6;
const cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(`${JSON.stringify({ scenario, seeds: ran, start, cpuMs, wallMs, events, virtualMs, kinds })}\n`);
