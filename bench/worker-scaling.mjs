#!/usr/bin/env node
// Seeds per second with 1 and 2 (or more) workers over the same seeds, and a check that every
// worker count reports the same violations (seeds, kinds, trace hashes). Uses the built CLI.
//   node bench/worker-scaling.mjs [--seeds 5000] [--scenario kip-1228-gap] [--workers 1,2] [--repeat 1]
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { flagReader } from "./flags.mjs";

const flag = flagReader();
const seeds = flag("seeds", "5000");
const scenario = flag("scenario", "kip-1228-gap");
const counts = flag("workers", "1,2").split(",");
const repeat = Number(flag("repeat", "1"));
const cli = join(import.meta.dirname, "../dist/cli/main.js");

const results = new Map(counts.map((w) => [w, []]));
const lists = new Map();
for (let r = 0; r < repeat; r++) {
  for (const w of counts) {
    const run = spawnSync(
      process.execPath,
      [cli, "run", "--scenario", scenario, "--seeds", seeds, "--workers", w, "--no-shrink", "--no-progress", "--json"],
      { encoding: "utf8", maxBuffer: 1 << 30 },
    );
    if (run.status !== 0 && run.status !== 1) throw new Error(`--workers ${w}: exit ${run.status}: ${run.stderr}`);
    const report = JSON.parse(run.stdout);
    results.get(w).push(report.seedsPerSecond);
    lists.set(w, JSON.stringify(report.violations.map((v) => [v.seed, v.kind, v.traceHash])));
    console.log(
      `--workers ${w}: ${report.seedsRun} seeds in ${(report.wallMs / 1000).toFixed(1)} s, ${report.seedsPerSecond} seeds/s, ${report.violations.length} violations`,
    );
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const base = median(results.get(counts[0]));
for (const w of counts)
  console.log(
    `workers ${w}: median ${median(results.get(w))} seeds/s (x${(median(results.get(w)) / base).toFixed(2)} of ${counts[0]} worker)`,
  );
const same = new Set(lists.values()).size === 1;
console.log(
  same ? "violation lists (seed, kind, trace hash) identical for every worker count" : "VIOLATION LISTS DIFFER",
);
process.exitCode = same ? 0 : 1;
