#!/usr/bin/env node
// `npm run bench`: this tree's engine against an earlier commit's (2242ca7, the last before issue 20's
// work, unless --base names another), side by side in one run.
// Builds the earlier commit in a temporary git worktree (node_modules shared), then measures both
// in fresh processes, interleaved (the order alternates each round, so a change in the machine's
// load hits both alike): seeds per CPU-second and per wall second, simulated time per wall second,
// the stale-marker rate per seed of kip-1228-gap, and the seeds and CPU to its first stale marker.
// With --cold, also the CPU time of whole CLI processes, cold (Node start, module loading, a cold
// JIT): `eosfuzz --version`, a `run --stop-on-first` of kip-1228-gap, and an exhaustive search of
// kip-1228-small to --exhaustive-depth deviations, each beside `node -e 0`.
// Prints medians and the ratio current/base; writes bench/compare.json.
//
//   npm run bench [-- --base 2242ca7] [-- --rounds 5] [-- --seeds 300] [-- --campaigns 10]
//                 [-- --cold] [-- --exhaustive-depth 5]
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { flagReader } from "./flags.mjs";

const flag = flagReader();
const base = flag("base", "2242ca7");
const rounds = Number(flag("rounds", "5"));
const seeds = Number(flag("seeds", "300"));
const campaigns = Number(flag("campaigns", "10"));
const cold = process.argv.includes("--cold");
const exhaustiveDepth = Number(flag("exhaustive-depth", "5"));
const root = join(import.meta.dirname, "..");
const runner = join(import.meta.dirname, "compare-runner.mjs");
const SCENARIOS = ["kip-1228", "kip-1228-gap"];
/** A first-failure campaign that has not found the stale marker by then counts as not found. */
const FIRST_FAILURE_CAP = 2_000;

function buildBase() {
  const dir = mkdtempSync(join(tmpdir(), "eosfuzz-base-"));
  execFileSync("git", ["-C", root, "worktree", "add", "--detach", dir, base], { stdio: "ignore" });
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"));
  execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json")], {
    stdio: "inherit",
  });
  return dir;
}

function removeBase(dir) {
  spawnSync("git", ["-C", root, "worktree", "remove", "--force", dir], { stdio: "ignore" });
  if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

function measure(dist, scenario, count, start = 0, until = null) {
  const argv = [runner, dist, scenario, String(count), String(start), ...(until ? ["--until", until] : [])];
  const r = spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${scenario} on ${dist}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** CPU seconds of this process's waited-for children so far (cutime + cstime of proc(5), 100 ticks a second). */
function childrenCpuSeconds() {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

/** CPU ms of one whole process (`node ARGS`), cold. */
function processCpuMs(args) {
  const before = childrenCpuSeconds();
  const r = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
  if (r.status !== 0 && r.status !== 1) throw new Error(`node ${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
  return (childrenCpuSeconds() - before) * 1000;
}

/** The cold-start figures of one build, once each (the caller interleaves builds). */
function measureCold(dist, build) {
  const cli = join(dist, "cli/main.js");
  for (let i = 0; i < 3; i++) {
    add("cold: eosfuzz --version, CPU ms", build, processCpuMs([cli, "--version"]));
    add(
      "cold: run --stop-on-first kip-1228-gap, CPU ms",
      build,
      processCpuMs([
        cli,
        "run",
        "--scenario",
        "kip-1228-gap",
        "--stop-on-first",
        "--no-shrink",
        "--workers",
        "0",
        "--json",
      ]),
    );
  }
  const exhaustive = ["run", "--scenario", "kip-1228-small", "--strategy", "exhaustive", "--workers", "0"];
  add(
    `cold: exhaustive kip-1228-small to depth ${exhaustiveDepth}, CPU ms`,
    build,
    processCpuMs([
      cli,
      ...exhaustive,
      "--depth",
      String(exhaustiveDepth),
      "--seeds",
      "1000000",
      "--no-progress",
      "--json",
    ]),
  );
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** CPU ms of `node -e 0`, the floor of any process (--cold). */
const nodeAlone = [];
const baseDir = buildBase();
const builds = { base: join(baseDir, "dist"), current: join(root, "dist") };
const rows = {};
const add = (metric, build, value) => {
  rows[metric] ??= { base: [], current: [] };
  rows[metric][build].push(value);
};
try {
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["base", "current"] : ["current", "base"];
    for (const scenario of SCENARIOS) {
      for (const build of order) {
        const m = measure(builds[build], scenario, seeds, round * seeds);
        add(`${scenario}: seeds per CPU-second`, build, m.seeds / (m.cpuMs / 1000));
        add(`${scenario}: seeds per wall second`, build, m.seeds / (m.wallMs / 1000));
        add(`${scenario}: simulated seconds per wall second`, build, m.virtualMs / m.wallMs);
        if (scenario === "kip-1228-gap")
          add(
            "kip-1228-gap: stale-marker in % of seeds",
            build,
            (100 * (m.kinds["stale-marker"]?.seeds ?? 0)) / m.seeds,
          );
      }
    }
    if (cold) {
      for (let i = 0; i < 3; i++) nodeAlone.push(processCpuMs(["-e", "0"]));
      for (const build of order) measureCold(builds[build], build);
    }
    process.stderr.write(`round ${round + 1} of ${rounds} done (load ${loadavg()[0].toFixed(1)})\n`);
  }
  for (let c = 0; c < campaigns; c++) {
    for (const build of c % 2 === 0 ? ["base", "current"] : ["current", "base"]) {
      const m = measure(builds[build], "kip-1228-gap", FIRST_FAILURE_CAP, c * 1_000_000, "stale-marker");
      const found = m.kinds["stale-marker"] !== undefined;
      add("kip-1228-gap: seeds to the first stale-marker", build, found ? m.seeds : Number.POSITIVE_INFINITY);
      add("kip-1228-gap: CPU ms to the first stale-marker", build, found ? m.cpuMs : Number.POSITIVE_INFINITY);
    }
  }
} finally {
  removeBase(baseDir);
}

const table = Object.entries(rows).map(([metric, v]) => {
  const b = median(v.base);
  const c = median(v.current);
  return { metric, base: b, current: c, ratio: c / b };
});
const fmt = (x) => (Number.isFinite(x) ? (Math.abs(x) >= 100 ? x.toFixed(0) : x.toFixed(2)) : "not found");
process.stdout.write(
  `eosfuzz: this tree against ${base}, medians of ${rounds} interleaved rounds (${campaigns} campaigns for first failures)\n`,
);
process.stdout.write(
  `${"metric".padEnd(52)} ${"base".padStart(10)} ${"current".padStart(10)} ${"current/base".padStart(13)}\n`,
);
for (const r of table)
  process.stdout.write(
    `${r.metric.padEnd(52)} ${fmt(r.base).padStart(10)} ${fmt(r.current).padStart(10)} ${fmt(r.ratio).padStart(13)}\n`,
  );
if (cold)
  process.stdout.write(`${"cold: node -e 0, CPU ms (the floor)".padEnd(52)} ${fmt(median(nodeAlone)).padStart(10)}\n`);
writeFileSync(
  join(import.meta.dirname, "compare.json"),
  `${JSON.stringify({ base, rounds, seeds, campaigns, rows, table, ...(cold ? { nodeAloneCpuMs: nodeAlone } : {}) }, null, 2)}\n`,
);
