#!/usr/bin/env node
// Runs every built-in scenario with --check-determinism (each seed twice, trace hashes compared
// event by event) and prints one line per scenario. Uses the built CLI; exit 1 on any mismatch.
//   node scripts/determinism-sweep.mjs [--seeds 1000] [--workers 1]
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { flagReader } from "../bench/flags.mjs";

const flag = flagReader();
const seeds = flag("seeds", "1000");
const workers = flag("workers", "1");
const root = join(import.meta.dirname, "..");
const cli = join(root, "dist/cli/main.js");
const scenarios = readdirSync(join(root, "scenarios"))
  .filter((f) => f.endsWith(".yaml"))
  .map((f) => f.slice(0, -".yaml".length))
  .sort();

let failed = 0;
for (const scenario of scenarios) {
  const argv = [cli, "run", "--scenario", scenario, "--seeds", seeds, "--check-determinism"];
  argv.push("--no-shrink", "--no-progress", "--json", "--workers", workers);
  const started = process.hrtime.bigint();
  const run = spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 1 << 30 });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // Exit 1 only says the scenario's expectation was not met; determinism is judged on its own.
  const report = run.status === 0 || run.status === 1 ? JSON.parse(run.stdout) : undefined;
  const check = report?.determinism;
  const ok = check !== undefined && check.checked === Number(seeds) && check.mismatches.length === 0;
  if (!ok) failed++;
  const what = check === undefined ? `exit ${run.status}: ${run.stderr.trim().split("\n")[0]}` : `${check.checked} seeds checked, ${check.mismatches.length} mismatches`;
  console.log(`${ok ? "ok  " : "FAIL"} ${scenario.padEnd(26)} ${what} (${seconds.toFixed(1)} s)`);
}
console.log(`${scenarios.length - failed} of ${scenarios.length} scenarios replay identically over ${seeds} seeds`);
process.exitCode = failed === 0 ? 0 : 1;
