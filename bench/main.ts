// `npm run bench:engine`: the engine's own figures of BENCHMARKS.md (the ceiling, events and seeds per
// second, first failures, the fast-check baseline, workers, memory, shrink) in one run on this machine. Each measurement runs
// in a fresh process (figure.ts) so that none inherits another's JIT state or heap; runs of
// figures that are compared (the ceiling and the engine, one worker and two) are interleaved so
// that a change in the machine's load hits both alike. Prints a table, writes bench/results.json.
//
//   npm run bench:engine [-- --quick] [-- --out FILE]
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import Table from "cli-table3";
import {
  CAMPAIGN_SEED_STRIDE,
  type CeilingFigure,
  type FirstFailure,
  type MemoryFigure,
  type ShrinkFigure,
  type ThroughputFigure,
} from "./engine-figures.js";
import type { FastCheckCampaigns } from "./fast-check-race.js";
import { quantile, type Spread, spread } from "./stats.js";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const outIndex = args.indexOf("--out");
const outFile = outIndex >= 0 ? (args[outIndex + 1] as string) : join(import.meta.dirname, "../bench/results.json");

/** How much each figure runs. `--quick` checks the harness end to end in well under a minute. */
const PLAN = quick
  ? {
      repeats: 2,
      ceilingRuns: 5,
      throughputSeeds: 100,
      campaigns: 4,
      workerSeeds: 100,
      memorySeeds: 2_000,
      memoryWindow: 500,
      fastCheckStrictRuns: 200,
    }
  : {
      repeats: 5,
      ceilingRuns: 40,
      throughputSeeds: 600,
      campaigns: 20,
      workerSeeds: 1_000,
      memorySeeds: 20_000,
      memoryWindow: 2_000,
      fastCheckStrictRuns: 2_000,
    };
/** Events per ceiling run (one "seed" of the bare loop). */
const CEILING_EVENTS_PER_RUN = 200_000;
/** Seeds a first-failure campaign may run before it counts as not found. */
const FIRST_FAILURE_CAP = 2_000;
/** fast-check runs a campaign may make before it counts as not found. */
const FAST_CHECK_CAP = 10_000;
const MEMORY_SAMPLE_EVERY = 500;
const THROUGHPUT_SCENARIOS = ["kip-1228", "kip-1228-gap"] as const;
const RACE_SCENARIOS = ["kip-1228-gap", "tv1-legacy"] as const;
const WORKERS_SCENARIO = "kip-1228";

const root = join(import.meta.dirname, "..");
const CLOCK_TICKS_PER_SECOND = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;
const figureJs = join(root, "dist-bench/figure.js");
const cliJs = join(root, "dist/cli/main.js");

interface CliReport {
  seedsRun: number;
  wallMs: number;
  seedsPerSecond: number;
  violations: { seed: number; kind: string; traceHash: string }[];
}

function spawnJson<T>(argv: string[], what: string): T {
  const r = spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 1 << 28, cwd: root });
  // `eosfuzz run` exits 1 when it finds violations: still a complete report.
  if (r.status !== 0 && !(r.status === 1 && r.stdout.trim().startsWith("{")))
    throw new Error(`${what}: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

function figure<T>(name: string, ...rest: (string | number)[]): T {
  return spawnJson<T>([figureJs, name, ...rest.map(String)], `figure ${name}`);
}

function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function roundSpread(s: Spread, digits = 3): Spread {
  return { min: round(s.min, digits), median: round(s.median, digits), max: round(s.max, digits), runs: s.runs };
}

function times<T>(n: number, f: (i: number) => T): T[] {
  return Array.from({ length: n }, (_, i) => f(i));
}

const loadBefore = loadavg();
const t0 = performance.now();

// 1. The ceiling and the engine's throughput, interleaved run by run.
const pending = Math.round(figure<{ meanDepth: number }>("queue-depth", "kip-1228", 200).meanDepth);
note(`mean kernel queue depth on kip-1228: ${pending} (the ceiling keeps as many events pending)`);
const ceilingRuns: CeilingFigure[] = [];
const throughputRuns = new Map<string, ThroughputFigure[]>(THROUGHPUT_SCENARIOS.map((s) => [s, []]));
for (let r = 0; r < PLAN.repeats; r++) {
  ceilingRuns.push(figure<CeilingFigure>("ceiling", pending, CEILING_EVENTS_PER_RUN, PLAN.ceilingRuns));
  for (const s of THROUGHPUT_SCENARIOS)
    throughputRuns.get(s)?.push(figure<ThroughputFigure>("throughput", s, PLAN.throughputSeeds));
  note(`throughput repetition ${r + 1}/${PLAN.repeats} done`);
}
const ceiling = spread(ceilingRuns.map((c) => c.eventsPerSecond));
const ceilingCpu = spread(ceilingRuns.map((c) => c.eventsPerCpuSecond));
const throughput = Object.fromEntries(
  THROUGHPUT_SCENARIOS.map((s) => {
    const runs = throughputRuns.get(s) ?? [];
    const first = runs[0] as ThroughputFigure;
    return [
      s,
      {
        seedsPerRun: PLAN.throughputSeeds,
        eventsPerSeed: round(first.events / first.seeds, 1),
        traceEventsPerSeed: round(first.traceEvents / first.seeds, 1),
        eventsPerSecond: roundSpread(spread(runs.map((t) => t.eventsPerSecond)), 0),
        eventsPerCpuSecond: roundSpread(spread(runs.map((t) => t.eventsPerCpuSecond)), 0),
        seedsPerSecond: roundSpread(spread(runs.map((t) => t.seedsPerSecond)), 1),
        seedsPerCpuSecond: roundSpread(spread(runs.map((t) => t.seedsPerCpuSecond)), 1),
        // Each repetition's engine run against the ceiling run just before it, in wall-clock and in CPU time.
        ratioToCeiling: roundSpread(
          spread(runs.map((t, i) => t.eventsPerSecond / (ceilingRuns[i] as CeilingFigure).eventsPerSecond)),
        ),
        ratioToCeilingCpu: roundSpread(
          spread(runs.map((t, i) => t.eventsPerCpuSecond / (ceilingRuns[i] as CeilingFigure).eventsPerCpuSecond)),
        ),
      },
    ];
  }),
);

// 2. Time and seeds to the first stale-marker: 20 campaigns, repeated for the timings.
const races = Object.fromEntries(
  RACE_SCENARIOS.map((s) => {
    const reps = times(PLAN.repeats, () =>
      figure<FirstFailure[]>("first-failure", s, "stale-marker", PLAN.campaigns, FIRST_FAILURE_CAP),
    );
    note(`first failures on ${s} done`);
    return [
      s,
      campaignSummary(
        reps.map((rep) => rep.map((c) => ({ count: c.seeds, timeMs: c.timeMs }))),
        FIRST_FAILURE_CAP,
      ),
    ];
  }),
);

// 2b. The same from a user's shell: one `eosfuzz run --stop-on-first` process per campaign, from
// process start to exit (module loading and a cold JIT included), in this thread (--workers 0: a
// worker pool would add its threads' start-up). One pass: each campaign is itself one sample.
const cliCampaigns = times(PLAN.campaigns, (c) => {
  const argv = [
    cliJs,
    "run",
    "--scenario",
    "kip-1228-gap",
    "--seed-start",
    String(c * CAMPAIGN_SEED_STRIDE),
    "--seeds",
    String(FIRST_FAILURE_CAP),
  ];
  const t = performance.now();
  const report = spawnJson<CliReport>(
    [...argv, "--stop-on-first", "--no-shrink", "--no-progress", "--workers", "0", "--json"],
    "run --stop-on-first",
  );
  const processMs = performance.now() - t;
  const first = report.violations.find((v) => v.kind === "stale-marker");
  return { seeds: first ? first.seed - c * CAMPAIGN_SEED_STRIDE + 1 : null, processMs, reportWallMs: report.wallMs };
});
const cliFirstStaleMarker = {
  scenario: "kip-1228-gap",
  command:
    "eosfuzz run --scenario kip-1228-gap --seed-start <c x 1,000,000> --seeds 2000 --stop-on-first --no-shrink --workers 0 --json",
  campaigns: cliCampaigns.length,
  perCampaignSeeds: cliCampaigns.map((c) => c.seeds),
  // The CLI tallies seeds in order and stops at the first: it must agree with the engine's campaigns.
  sameSeedsAsEngineCampaigns:
    JSON.stringify(cliCampaigns.map((c) => c.seeds)) === JSON.stringify(races["kip-1228-gap"]?.perCampaign),
  processMs: roundSpread(spread(cliCampaigns.map((c) => c.processMs)), 0),
  processMsP90: round(
    quantile(
      cliCampaigns.map((c) => c.processMs),
      0.9,
    ),
    0,
  ),
  campaignWallMs: roundSpread(spread(cliCampaigns.map((c) => c.reportWallMs)), 0),
};
note("CLI campaigns done");

// 3. The fast-check baseline over the same race, the same way.
const fastCheckReps = times(PLAN.repeats, () =>
  figure<FastCheckCampaigns>("fast-check", PLAN.campaigns, FAST_CHECK_CAP, PLAN.fastCheckStrictRuns),
);
const fastCheck = {
  ...campaignSummary(
    fastCheckReps.map((rep) => rep.campaigns.map((c) => ({ count: c.failed ? c.runs : null, timeMs: c.timeMs }))),
    FAST_CHECK_CAP,
  ),
  strictRuleHolds: fastCheckReps.every((rep) => !rep.strictRule.failed),
  strictRuleRuns: PLAN.fastCheckStrictRuns,
};
note("fast-check baseline done");

// 4. Two workers against one, through the CLI as a user runs it.
const workerRuns: Record<"1" | "2", CliReport[]> = { "1": [], "2": [] };
/** Cores the CLI process kept busy on average (its CPU time over its wall time): what the machine let it have. */
const coresUsed: Record<"1" | "2", number[]> = { "1": [], "2": [] };
for (let r = 0; r < PLAN.repeats; r++) {
  for (const w of ["1", "2"] as const) {
    const argv = [
      cliJs,
      "run",
      "--scenario",
      WORKERS_SCENARIO,
      "--seeds",
      String(PLAN.workerSeeds),
      "--workers",
      w,
      "--no-shrink",
      "--no-progress",
      "--json",
    ];
    const cpu0 = childrenCpuSeconds();
    const t = performance.now();
    workerRuns[w].push(spawnJson<CliReport>(argv, `run --workers ${w}`));
    coresUsed[w].push((childrenCpuSeconds() - cpu0) / ((performance.now() - t) / 1000));
  }
}
const violationList = (r: CliReport) => JSON.stringify(r.violations.map((v) => [v.seed, v.kind, v.traceHash]));
const workers = {
  scenario: WORKERS_SCENARIO,
  seeds: PLAN.workerSeeds,
  oneWorkerSeedsPerSecond: roundSpread(spread(workerRuns["1"].map((r) => r.seedsRun / (r.wallMs / 1000))), 1),
  twoWorkersSeedsPerSecond: roundSpread(spread(workerRuns["2"].map((r) => r.seedsRun / (r.wallMs / 1000))), 1),
  speedup: roundSpread(spread(workerRuns["2"].map((r, i) => (workerRuns["1"][i] as CliReport).wallMs / r.wallMs))),
  oneWorkerCoresUsed: roundSpread(spread(coresUsed["1"]), 2),
  twoWorkersCoresUsed: roundSpread(spread(coresUsed["2"]), 2),
  sameViolations: new Set([...workerRuns["1"], ...workerRuns["2"]].map(violationList)).size === 1,
};
note("workers done");

// 5. Memory over one long campaign (one run: it is long, and what it measures is a trend within it).
const memoryRun = spawnJson<MemoryFigure>(
  [
    "--expose-gc",
    figureJs,
    "memory",
    "kip-1228",
    ...[PLAN.memorySeeds, PLAN.memoryWindow, MEMORY_SAMPLE_EVERY].map(String),
  ],
  "memory",
);
const memory = {
  ...memoryRun,
  samples: memoryRun.samples.map((s) => ({
    seeds: s.seeds,
    rssMb: round(s.rssMb, 1),
    heapAfterGcMb: round(s.heapAfterGcMb, 2),
  })),
};
note("memory done");

// 6. Shrinking the first failure of kip-1228-gap (its size reduction is the same every time when the shrink reaches its fixpoint).
const shrinkRuns = times(PLAN.repeats, () => figure<ShrinkFigure>("shrink", "kip-1228-gap", FIRST_FAILURE_CAP));
const firstShrink = shrinkRuns[0] as ShrinkFigure;
const reduction = (k: keyof ShrinkFigure["before"]) =>
  round(100 * (1 - firstShrink.after[k] / Math.max(1, firstShrink.before[k])), 1);
const shrink = {
  scenario: firstShrink.scenario,
  seed: firstShrink.seed,
  kind: firstShrink.kind,
  timeMs: roundSpread(spread(shrinkRuns.map((s) => s.timeMs)), 0),
  runs: spread(shrinkRuns.map((s) => s.runs)),
  stoppedBy: [...new Set(shrinkRuns.map((s) => s.stoppedBy))],
  sameResultEveryRun: new Set(shrinkRuns.map((s) => JSON.stringify(s.after))).size === 1,
  before: firstShrink.before,
  after: firstShrink.after,
  reductionPercent: {
    events: reduction("events"),
    tapeLength: reduction("tapeLength"),
    nonZeroChoices: reduction("nonZeroChoices"),
    messages: reduction("messages"),
    faults: reduction("faults"),
  },
};
note("shrink done");

const results = {
  generatedBy: quick
    ? "npm run bench:engine -- --quick (harness check, too few runs to quote)"
    : "npm run bench:engine",
  machine: machine(),
  loadAverage: { before: loadBefore.map((x) => round(x, 2)), after: loadavg().map((x) => round(x, 2)) },
  wallSeconds: round((performance.now() - t0) / 1000, 1),
  plan: PLAN,
  ceiling: {
    pending,
    eventsPerRun: CEILING_EVENTS_PER_RUN,
    runsPerRepetition: PLAN.ceilingRuns,
    eventsPerSecond: roundSpread(ceiling, 0),
    eventsPerCpuSecond: roundSpread(ceilingCpu, 0),
  },
  throughput,
  firstStaleMarker: races,
  cliFirstStaleMarker,
  fastCheckBaseline: { scenario: "kip-1228-gap race, bench/fast-check-race.ts", ...fastCheck },
  workers,
  memory,
  shrink,
};
writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${table(results)}\n`);
note(`wrote ${outFile} in ${results.wallSeconds} s`);

interface CampaignRun {
  /** Seeds (or runs) to the first failure, null when not found within the cap. */
  count: number | null;
  timeMs: number;
}

/**
 * Campaigns repeated: the counts are the same in every repetition (deterministic; checked), the
 * times are not. Per repetition, median and p90 over the campaigns; then their spread.
 */
function campaignSummary(reps: CampaignRun[][], cap: number) {
  const counts = (reps[0] as CampaignRun[]).map((c) => c.count);
  for (const rep of reps)
    if (JSON.stringify(rep.map((c) => c.count)) !== JSON.stringify(counts))
      throw new Error("counts to first failure differ between repetitions");
  const found = counts.filter((c): c is number => c !== null);
  // A campaign that found nothing counts as the cap (a lower bound) in the quantiles.
  const asNumbers = counts.map((c) => c ?? cap);
  return {
    campaigns: counts.length,
    notFound: counts.length - found.length,
    perCampaign: counts,
    median: quantile(asNumbers, 0.5),
    p90: quantile(asNumbers, 0.9),
    timeMsMedian: roundSpread(
      spread(
        reps.map((rep) =>
          quantile(
            rep.map((c) => c.timeMs),
            0.5,
          ),
        ),
      ),
    ),
    timeMsP90: roundSpread(
      spread(
        reps.map((rep) =>
          quantile(
            rep.map((c) => c.timeMs),
            0.9,
          ),
        ),
      ),
    ),
  };
}

/** CPU seconds of this process's finished children (utime + stime of waited-for children, from /proc). */
function childrenCpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 16 and 17 of proc(5) (cutime, cstime); `fields` starts at field 3.
  return (Number(fields[13]) + Number(fields[14])) / CLOCK_TICKS_PER_SECOND;
}

function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? "unknown";
  const nproc = spawnSync("nproc", { encoding: "utf8" }).stdout.trim();
  return {
    nproc: Number(nproc),
    cpuModel: model,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
  };
}

function fmt(s: Spread, unit = ""): string {
  const n = (x: number) => (Math.abs(x) >= 1000 ? Math.round(x).toLocaleString("en-US") : String(round(x, 3)));
  return `${n(s.median)}${unit} (${n(s.min)} .. ${n(s.max)})`;
}

function table(r: typeof results): string {
  const t = new Table({
    head: ["figure", "median (min .. max)", "notes"],
    style: { head: [], border: [] },
    wordWrap: true,
    colWidths: [42, 34, 44],
  });
  t.push([
    "ceiling: bare event loop, events/s",
    fmt(r.ceiling.eventsPerSecond),
    `${r.ceiling.pending} events pending, ${r.ceiling.eventsPerSecond.runs} runs; per CPU s ${fmt(r.ceiling.eventsPerCpuSecond)}`,
  ]);
  for (const [s, f] of Object.entries(r.throughput)) {
    t.push([
      `${s}: events/s (1 core)`,
      fmt(f.eventsPerSecond),
      `${f.eventsPerSeed} kernel events per seed; per CPU s ${fmt(f.eventsPerCpuSecond)}`,
    ]);
    t.push([
      `${s}: seeds/s (1 core)`,
      fmt(f.seedsPerSecond),
      `${f.seedsPerRun} seeds per run; per CPU s ${fmt(f.seedsPerCpuSecond)}`,
    ]);
    t.push([
      `${s}: events/s / ceiling`,
      fmt(f.ratioToCeiling),
      `target >= 0.25; in CPU time ${fmt(f.ratioToCeilingCpu)}`,
    ]);
  }
  for (const [s, f] of Object.entries(r.firstStaleMarker)) {
    t.push([
      `${s}: seeds to first stale-marker`,
      `median ${f.median}, p90 ${f.p90}`,
      `${f.campaigns} campaigns, ${f.notFound} not found`,
    ]);
    t.push([`${s}: ms to first stale-marker`, `median ${fmt(f.timeMsMedian)}`, `p90 ${fmt(f.timeMsP90)}`]);
  }
  const cli = r.cliFirstStaleMarker;
  t.push([
    `${cli.scenario}: CLI process to first stale-marker, ms`,
    fmt(cli.processMs),
    `p90 ${cli.processMsP90}; ${cli.campaigns} campaigns, --stop-on-first --workers 0; campaign alone ${fmt(cli.campaignWallMs)}`,
  ]);
  const fc = r.fastCheckBaseline;
  t.push([
    "fast-check scheduler: runs to failure",
    `median ${fc.median}, p90 ${fc.p90}`,
    `${fc.campaigns} seeds; strict rule holds over ${fc.strictRuleRuns} runs: ${fc.strictRuleHolds}`,
  ]);
  t.push(["fast-check scheduler: ms to failure", `median ${fmt(fc.timeMsMedian)}`, `p90 ${fmt(fc.timeMsP90)}`]);
  t.push([
    `2 workers over 1 (${r.workers.scenario})`,
    fmt(r.workers.speedup, "x"),
    `seeds/s ${fmt(r.workers.oneWorkerSeedsPerSecond)} -> ${fmt(r.workers.twoWorkersSeedsPerSecond)}; cores used ${fmt(r.workers.oneWorkerCoresUsed)} -> ${fmt(r.workers.twoWorkersCoresUsed)}; same violations: ${r.workers.sameViolations}`,
  ]);
  const m = r.memory;
  t.push([
    `peak RSS over ${m.seeds.toLocaleString("en-US")} seeds of ${m.scenario}`,
    `${round(m.peakRssMb, 1)} MB`,
    `growth first -> last ${m.windowSeeds.toLocaleString("en-US")} seeds: ${round(m.rssGrowthPercent, 1)}% (heap after GC ${round(m.firstWindowHeapAfterGcMb, 1)} -> ${round(m.lastWindowHeapAfterGcMb, 1)} MB)`,
  ]);
  const sh = r.shrink;
  t.push([
    `shrink first failure of ${sh.scenario}`,
    fmt(sh.timeMs, " ms"),
    `seed ${sh.seed} ${sh.kind}: events ${sh.before.events} -> ${sh.after.events}, non-zero choices ${sh.before.nonZeroChoices} -> ${sh.after.nonZeroChoices} (${sh.stoppedBy.join("/")})`,
  ]);
  return `${t.toString()}\nmachine: ${r.machine.nproc} cores, ${r.machine.cpuModel}, Node ${r.machine.node}; load average before ${r.loadAverage.before.join(" ")}, after ${r.loadAverage.after.join(" ")}`;
}
