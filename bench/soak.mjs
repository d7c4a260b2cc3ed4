#!/usr/bin/env node
// Soak test of a long run (npm run soak; not in the default suite). Starts the built CLI on a clean
// scenario over many seeds with --out, and every window reads how far results.jsonl got (seeds done,
// so also the run's own streaming is soaked), the process's resident memory and its CPU time
// (/proc, Linux; the worker threads live in the same process). At the end it checks that memory
// stayed flat and that throughput at the end is within --tolerance of the start, prints one JSON
// summary line, exits 1 when a check fails. Throughput is judged in seeds per CPU-second, which a
// machine shared with other work does not move (seeds per wall-clock second is printed beside it):
// a slowdown of the tool itself (a growing structure, a leak making GC work harder) shows in both.
//   node bench/soak.mjs [--seeds 1000000] [--workers 2] [--scenario kip-1228] [--window 60] [--tolerance 0.10]
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { flagReader } from "./flags.mjs";

const flag = flagReader();
const seeds = Number(flag("seeds", "1000000"));
const workers = flag("workers", "2");
const scenario = flag("scenario", "kip-1228");
const windowMs = Number(flag("window", "60")) * 1000;
const tolerance = Number(flag("tolerance", "0.10"));
// Memory counts as flat when the late samples sit within this much of the early ones.
const memorySlackMb = Number(flag("memory-slack-mb", "64"));
const memorySlackRatio = 0.15;

const cli = join(import.meta.dirname, "../dist/cli/main.js");
const out = mkdtempSync(join(tmpdir(), "eosfuzz-soak-"));
const results = join(out, "results.jsonl");
const command = [
  "run",
  "--scenario",
  scenario,
  "--seeds",
  String(seeds),
  "--workers",
  workers,
  "--no-shrink",
  "--no-progress",
  "--json",
  "--out",
  out,
];
console.log(`soak: node dist/cli/main.js ${command.join(" ")}`);
const child = spawn(process.execPath, [cli, ...command], { stdio: ["ignore", "pipe", "inherit"] });
let stdout = "";
child.stdout.on("data", (d) => (stdout += d));

/** Resident set size of the run (main thread and its workers), in MB. */
function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : null;
  } catch {
    return null;
  }
}

const CLOCK_TICKS_PER_SECOND = 100;

/** CPU seconds (user + system, all threads) the run has used, from /proc/PID/stat. */
function cpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Runs logged so far: lines of results.jsonl that are runs (not the header, not coverage keys); read incrementally. */
let offset = 0;
let runsLogged = 0;
let partial = "";
function countRuns() {
  if (!existsSync(results)) return 0;
  const size = statSync(results).size;
  if (size <= offset) return runsLogged;
  const fd = openSync(results, "r");
  const buffer = Buffer.alloc(size - offset);
  readSync(fd, buffer, 0, buffer.length, offset);
  closeSync(fd);
  offset = size;
  const lines = (partial + buffer.toString("utf8")).split("\n");
  partial = lines.pop() ?? "";
  for (const line of lines) if (line.startsWith('{"index"')) runsLogged++;
  return runsLogged;
}

const started = Date.now();
const samples = [];
let last = { atMs: 0, runs: 0, cpuS: 0 };
const timer = setInterval(() => {
  const atMs = Date.now() - started;
  const runs = countRuns();
  const rss = rssMb(child.pid);
  const cpuS = cpuSeconds(child.pid) ?? last.cpuS;
  const seedsPerSecond = ((runs - last.runs) * 1000) / (atMs - last.atMs);
  const seedsPerCpuSecond = cpuS > last.cpuS ? (runs - last.runs) / (cpuS - last.cpuS) : 0;
  const round = (x) => Math.round(x * 10) / 10;
  samples.push({
    atS: Math.round(atMs / 1000),
    runs,
    seedsPerSecond: round(seedsPerSecond),
    seedsPerCpuSecond: round(seedsPerCpuSecond),
    rssMb: rss === null ? null : Math.round(rss),
  });
  console.log(
    `  ${String(Math.round(atMs / 1000)).padStart(6)} s  ${String(runs).padStart(8)} seeds  ${seedsPerSecond.toFixed(1).padStart(7)} seeds/s  ${seedsPerCpuSecond.toFixed(1).padStart(7)} seeds/cpu-s  rss ${rss === null ? "?" : rss.toFixed(0)} MB`,
  );
  last = { atMs, runs, cpuS };
}, windowMs);

const code = await new Promise((resolve) => child.on("close", (c) => resolve(c)));
clearInterval(timer);
const report = stdout.trim() ? JSON.parse(stdout) : null;
rmSync(out, { recursive: true, force: true });

// Windows after the first (start-up, JIT warm-up) and before the last partial one.
const full = samples.slice(1).filter((s) => s.runs < seeds);
const median = (xs) => (xs.length === 0 ? null : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
const third = Math.max(1, Math.floor(full.length / 3));
const startRate = median(full.slice(0, third).map((s) => s.seedsPerCpuSecond));
const endRate = median(full.slice(-third).map((s) => s.seedsPerCpuSecond));
const startWallRate = median(full.slice(0, third).map((s) => s.seedsPerSecond));
const endWallRate = median(full.slice(-third).map((s) => s.seedsPerSecond));
const startRss = median(
  full
    .slice(0, third)
    .map((s) => s.rssMb)
    .filter((x) => x !== null),
);
const endRss = median(
  full
    .slice(-third)
    .map((s) => s.rssMb)
    .filter((x) => x !== null),
);
const maxRss = Math.max(...samples.map((s) => s.rssMb ?? 0));
const enough = full.length >= 3;
const throughputOk = enough && endRate >= startRate * (1 - tolerance);
const memoryOk = enough && endRss <= startRss + Math.max(memorySlackMb, startRss * memorySlackRatio);
const runOk = code === 0 && report?.seedsRun === seeds && report.expectationMet === true;
const summary = {
  scenario,
  seeds,
  workers: Number(workers),
  exitCode: code,
  seedsRun: report?.seedsRun ?? null,
  wallS: report ? Math.round(report.wallMs / 1000) : null,
  seedsPerSecond: report?.seedsPerSecond ?? null,
  windowS: windowMs / 1000,
  windows: full.length,
  startSeedsPerCpuSecond: startRate,
  endSeedsPerCpuSecond: endRate,
  endVsStart: startRate ? Math.round((endRate / startRate) * 1000) / 1000 : null,
  startSeedsPerSecond: startWallRate,
  endSeedsPerSecond: endWallRate,
  startRssMb: startRss,
  endRssMb: endRss,
  maxRssMb: maxRss,
  checks: { run: runOk, throughput: throughputOk, memory: memoryOk, enoughWindows: enough },
};
console.log(JSON.stringify(summary));
if (!enough)
  console.log(
    `too short to judge: ${full.length} full windows of ${windowMs / 1000} s (need 3); use more --seeds or a shorter --window`,
  );
process.exitCode = runOk && throughputOk && memoryOk ? 0 : 1;
