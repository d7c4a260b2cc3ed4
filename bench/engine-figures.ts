// Measurements of the engine itself, each meant to run in a fresh process (see figure.ts): the
// ceiling, simulation throughput, the kernel's queue depth, time and seeds to a first violation,
// memory over a long campaign, and shrinking.
import { runConfigFor } from "../dist/fuzz/campaign/campaign.js";
import { type RunConfig, runSeed } from "../dist/fuzz/run/run-seed.js";
import { DEFAULT_SHRINK_BUDGET_MS, shrinkOne } from "../dist/fuzz/shrink/shrink-seed.js";
import { type RunSize, targetOf } from "../dist/fuzz/shrink/shrink.js";
import { resolveScenario } from "../dist/scenario/loader.js";
import { EventQueue } from "../dist/sim/event-queue.js";
import { bareRun } from "./ceiling.js";

/** Seeds for JIT warm-up, far from every measured range. */
const WARMUP_SEED_START = 900_000_000;

function configOf(scenario: string): RunConfig {
  return runConfigFor(resolveScenario(scenario));
}

function warmUp(config: RunConfig, seeds: number): void {
  for (let i = 0; i < seeds; i++) runSeed(config, { seed: WARMUP_SEED_START + i });
}

/** CPU seconds (user + system) this process has used: unlike wall time, not inflated by waiting for a core. */
function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

export interface CeilingFigure {
  /** Per wall-clock second. */
  eventsPerSecond: number;
  /** Per CPU second of this process. */
  eventsPerCpuSecond: number;
  events: number;
  pending: number;
}

/** The bare loop: `runs` runs of `eventsPerRun` events with `pending` events always queued. */
export function measureCeiling(pending: number, eventsPerRun: number, runs: number): CeilingFigure {
  let sink = 0;
  for (let r = 0; r < Math.max(10, runs / 10); r++) sink ^= bareRun(WARMUP_SEED_START + r, pending, eventsPerRun);
  const t0 = performance.now();
  const c0 = cpuSeconds();
  for (let r = 0; r < runs; r++) sink ^= bareRun(r, pending, eventsPerRun);
  const cpu = cpuSeconds() - c0;
  const seconds = (performance.now() - t0) / 1000;
  if (sink === 0x7fffffff) process.stderr.write("unlikely checksum\n");
  const events = runs * eventsPerRun;
  return { eventsPerSecond: events / seconds, eventsPerCpuSecond: events / cpu, events, pending };
}

export interface ThroughputFigure {
  scenario: string;
  seeds: number;
  events: number;
  traceEvents: number;
  eventsPerSecond: number;
  seedsPerSecond: number;
  eventsPerCpuSecond: number;
  seedsPerCpuSecond: number;
  violations: number;
}

/** Seeds 0..seeds-1 of a scenario on one core, after a warm-up, as `eosfuzz run --no-shrink` runs them. */
export function measureThroughput(scenario: string, seeds: number): ThroughputFigure {
  const config = configOf(scenario);
  warmUp(config, 100);
  let events = 0;
  let traceEvents = 0;
  let violations = 0;
  const t0 = performance.now();
  const c0 = cpuSeconds();
  for (let seed = 0; seed < seeds; seed++) {
    const r = runSeed(config, { seed });
    events += r.stats.events;
    traceEvents += r.stats.traceEvents;
    violations += r.violations.length;
  }
  const cpu = cpuSeconds() - c0;
  const seconds = (performance.now() - t0) / 1000;
  return {
    scenario,
    seeds,
    events,
    traceEvents,
    eventsPerSecond: events / seconds,
    seedsPerSecond: seeds / seconds,
    eventsPerCpuSecond: events / cpu,
    seedsPerCpuSecond: seeds / cpu,
    violations,
  };
}

/** Mean number of events in the kernel's heap when one is popped (what the ceiling's `pending` copies). */
export function measureQueueDepth(
  scenario: string,
  seeds: number,
): { scenario: string; meanDepth: number; pops: number } {
  const proto = EventQueue.prototype as unknown as { pop(this: EventQueue): unknown };
  const pop = proto.pop;
  let pops = 0;
  let depth = 0;
  proto.pop = function (this: EventQueue) {
    pops++;
    depth += this.size;
    return pop.call(this);
  };
  const config = configOf(scenario);
  for (let seed = 0; seed < seeds; seed++) runSeed(config, { seed });
  proto.pop = pop;
  return { scenario, meanDepth: depth / pops, pops };
}

export interface FirstFailure {
  campaign: number;
  /** Seeds run up to and including the first one that showed the violation (null: not within the cap). */
  seeds: number | null;
  timeMs: number;
}

/** Each campaign's seeds start here times its index, so that campaigns never share a seed. */
export const CAMPAIGN_SEED_STRIDE = 1_000_000;

/**
 * Campaigns 0..campaigns-1, each running its own seeds in order (as `eosfuzz run` does: whole
 * seeds) until one shows a violation of `kind`: how many seeds and how long that took.
 */
export function measureFirstFailures(
  scenario: string,
  kind: string,
  campaigns: number,
  maxSeeds: number,
): FirstFailure[] {
  const config = configOf(scenario);
  warmUp(config, 100);
  const out: FirstFailure[] = [];
  for (let c = 0; c < campaigns; c++) {
    const t0 = performance.now();
    let seeds: number | null = null;
    for (let i = 0; i < maxSeeds && seeds === null; i++) {
      const r = runSeed(config, { seed: c * CAMPAIGN_SEED_STRIDE + i });
      if (r.violations.some((v) => v.kind === kind)) seeds = i + 1;
    }
    out.push({ campaign: c, seeds, timeMs: performance.now() - t0 });
  }
  return out;
}

export interface ShrinkFigure {
  scenario: string;
  seed: number;
  kind: string;
  timeMs: number;
  runs: number;
  stoppedBy: string;
  before: RunSize;
  after: RunSize;
}

/**
 * The first failure of a scenario (first seed from 0 with a violation, its first violation: what
 * `eosfuzz run` shrinks), shrunk as `eosfuzz run` does it, with the default budget.
 */
export function measureShrink(scenario: string, maxSeeds: number): ShrinkFigure {
  const loaded = resolveScenario(scenario);
  const config = runConfigFor(loaded);
  for (let seed = 0; seed < maxSeeds; seed++) {
    const first = runSeed(config, { seed }).violations[0];
    if (!first) continue;
    const recorded = runSeed(config, { seed }, { recordTape: true });
    const t0 = performance.now();
    const summary = shrinkOne({
      scenario: loaded,
      overrides: {},
      tape: recorded.tape ?? {},
      seed,
      target: targetOf(first),
      budgetMs: DEFAULT_SHRINK_BUDGET_MS,
    });
    return {
      scenario,
      seed,
      kind: first.kind,
      timeMs: performance.now() - t0,
      runs: summary.runs,
      stoppedBy: summary.stoppedBy,
      before: summary.before,
      after: summary.after,
    };
  }
  throw new Error(`${scenario}: no failure within ${maxSeeds} seeds`);
}

export interface MemorySample {
  /** Seeds run so far. */
  seeds: number;
  rssMb: number;
  /** Heap in use just after a full garbage collection (what is still reachable). */
  heapAfterGcMb: number;
}

export interface MemoryFigure {
  scenario: string;
  seeds: number;
  /** Seeds in each of the two windows compared (the first and the last). */
  windowSeeds: number;
  samples: MemorySample[];
  /** Peak RSS of the whole process (getrusage), including start-up and warm-up. */
  peakRssMb: number;
  firstWindowPeakRssMb: number;
  lastWindowPeakRssMb: number;
  /** (last window's peak - first window's peak) / first window's peak, in percent. */
  rssGrowthPercent: number;
  firstWindowHeapAfterGcMb: number;
  lastWindowHeapAfterGcMb: number;
  wallMs: number;
}

const MB = 1024 * 1024;

/**
 * Seeds 0..seeds-1 of one scenario in this process (as one `eosfuzz run --workers 0` would run
 * them), sampling RSS every `sampleEvery` seeds and the heap after a forced GC (needs
 * --expose-gc). A leak per seed shows as a last window higher than the first.
 */
export function measureMemory(scenario: string, seeds: number, windowSeeds: number, sampleEvery: number): MemoryFigure {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("measureMemory needs node --expose-gc");
  if (!(windowSeeds > 0 && 2 * windowSeeds <= seeds && sampleEvery > 0 && windowSeeds % sampleEvery === 0))
    throw new RangeError("memory: bad windows");
  const config = configOf(scenario);
  const samples: MemorySample[] = [];
  const t0 = performance.now();
  for (let seed = 0; seed < seeds; seed++) {
    runSeed(config, { seed });
    if ((seed + 1) % sampleEvery !== 0) continue;
    const rssMb = process.memoryUsage.rss() / MB;
    gc();
    samples.push({ seeds: seed + 1, rssMb, heapAfterGcMb: process.memoryUsage().heapUsed / MB });
  }
  const wallMs = performance.now() - t0;
  const first = samples.filter((s) => s.seeds <= windowSeeds);
  const last = samples.filter((s) => s.seeds > seeds - windowSeeds);
  const peak = (xs: MemorySample[], f: (s: MemorySample) => number) => Math.max(...xs.map(f));
  const firstPeak = peak(first, (s) => s.rssMb);
  const lastPeak = peak(last, (s) => s.rssMb);
  return {
    scenario,
    seeds,
    windowSeeds,
    samples,
    peakRssMb: (process.resourceUsage().maxRSS * 1024) / MB,
    firstWindowPeakRssMb: firstPeak,
    lastWindowPeakRssMb: lastPeak,
    rssGrowthPercent: ((lastPeak - firstPeak) / firstPeak) * 100,
    firstWindowHeapAfterGcMb: peak(first, (s) => s.heapAfterGcMb),
    lastWindowHeapAfterGcMb: peak(last, (s) => s.heapAfterGcMb),
    wallMs,
  };
}
