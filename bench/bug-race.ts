// npm run bench:bugs: bugs found per CPU-minute by each search strategy on the generic scenario
// (issue 31's figure). Every modelled bug of the catalogue runs on `everything` with the bug
// switched on until the first run that shows its symptom (a violation of its kinds the seed's
// draw does not expect) or the budget, then with it off over as many runs; found = on shows it,
// off never does, as `eosfuzz bugs run --generic` rules. What differs is the strategy that picks
// the runs. The strategies take turns bug by bug, in one process, so the machine's load falls on
// each alike; the CPU time counted is this process's own (user + system), bug-off runs included.
//
//   node dist-bench/bug-race.js [--budget 100] [--strategies random,swarm,pct,coverage] [--bugs Z01,Z02]
import { isUnexpected } from "../dist/fuzz/campaign/expectation.js";
import type { StrategyName } from "../dist/fuzz/campaign/strategy-names.js";
import { STRATEGY_NAMES } from "../dist/fuzz/campaign/strategy-names.js";
import { BUG_HISTORY, type HistoricalBug, isModelled } from "../dist/fuzz/catalogue/bug-history.js";
import { GENERIC_BUG_SCENARIO } from "../dist/fuzz/catalogue/bug-history-run.js";
import { InProcessExecutor } from "../dist/fuzz/executor/executor.js";
import type { JobOutcome } from "../dist/fuzz/executor/run-job.js";
import { runSearch } from "../dist/fuzz/search/run-search.js";
import type { ReleaseFlags } from "../dist/kafka/release.js";
import type { Violation } from "../dist/oracle/violation.js";
import { canonicalJson, resolveScenario } from "../dist/scenario/loader.js";
import { pathToFileURL } from "node:url";

export interface BugRaceOptions {
  /** Runs per bug and side (on, off). */
  budget: number;
  strategies: StrategyName[];
  /** Bug ids to run; empty: every modelled bug. */
  bugs: string[];
  /** One line per bug as it ends (stderr in the command). */
  progress?: (line: string) => void;
}

export interface BugRaceRow {
  strategy: StrategyName;
  found: number;
  bugs: string[];
  runs: number;
  cpuSeconds: number;
  perCpuMinute: number;
}

const loaded = resolveScenario(GENERIC_BUG_SCENARIO);
const executor = new InProcessExecutor();

function cpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

interface Tally {
  found: string[];
  cpuSeconds: number;
  runs: number;
}

/** One campaign of `strategy` with `overrides`, stopped by `done`; the outcomes and its CPU time. */
async function campaign(
  budget: number,
  strategy: StrategyName,
  overrides: Partial<ReleaseFlags>,
  done: ((o: JobOutcome) => boolean) | undefined,
): Promise<{ outcomes: JobOutcome[]; cpu: number }> {
  const outcomes: JobOutcome[] = [];
  const before = cpuSeconds();
  await runSearch(
    loaded,
    {
      strategy,
      seeds: budget,
      seedStart: 0,
      shard: null,
      overrides,
      ...(done ? { doneAfter: done } : {}),
      onOutcome: (o) => outcomes.push(o),
    },
    executor,
    () => 0,
  );
  return { outcomes, cpu: cpuSeconds() - before };
}

/** Every chosen bug under every strategy, the strategies taking turns bug by bug. */
export async function raceBugs(options: BugRaceOptions): Promise<BugRaceRow[]> {
  const { budget, strategies } = options;
  for (const s of strategies)
    if (!(STRATEGY_NAMES as readonly string[]).includes(s) || s === "exhaustive")
      throw new Error(`strategies: ${s} is not one of random, swarm, pct, coverage`);
  if (!Number.isInteger(budget) || budget < 1) throw new Error("budget: a whole number of runs, at least 1");
  const bugs = BUG_HISTORY.filter(isModelled).filter((b) => options.bugs.length === 0 || options.bugs.includes(b.id));
  const tallies = new Map<StrategyName, Tally>(strategies.map((s) => [s, { found: [], cpuSeconds: 0, runs: 0 }]));
  // Bug-off campaigns, by strategy and fixed overrides: most bugs share the plain one.
  const baselines = new Map<string, JobOutcome[]>();
  for (const bug of bugs as (HistoricalBug & { bug: Partial<ReleaseFlags> })[]) {
    const kinds = new Set<string>(bug.kinds);
    const symptom = (v: Violation) => kinds.has(v.kind) && isUnexpected(loaded.scenario.expect, v);
    const shows = (o: JobOutcome) => o.violations.some(symptom);
    const fixed: Partial<ReleaseFlags> = bug.fixed ?? {};
    for (const strategy of strategies) {
      const tally = tallies.get(strategy) as Tally;
      const on = await campaign(budget, strategy, { ...fixed, ...bug.bug }, shows);
      tally.cpuSeconds += on.cpu;
      tally.runs += on.outcomes.length;
      if (!on.outcomes.some(shows)) continue;
      const key = `${strategy} ${canonicalJson(fixed)}`;
      let off = baselines.get(key);
      if (!off) {
        const b = await campaign(budget, strategy, fixed, undefined);
        tally.cpuSeconds += b.cpu;
        tally.runs += b.outcomes.length;
        off = b.outcomes;
        baselines.set(key, off);
      }
      if (!off.some(shows)) tally.found.push(bug.id);
    }
    options.progress?.(
      `${bug.id}: ${strategies.map((s) => `${s} ${tallies.get(s)?.found.includes(bug.id) ? "found" : "-"}`).join(", ")}`,
    );
  }
  const rows = strategies.map((s): BugRaceRow => {
    const t = tallies.get(s) as Tally;
    const perMinute = t.found.length / (t.cpuSeconds / 60);
    return {
      strategy: s,
      found: t.found.length,
      bugs: t.found,
      runs: t.runs,
      cpuSeconds: Math.round(t.cpuSeconds),
      perCpuMinute: Number(perMinute.toFixed(2)),
    };
  });
  return rows;
}

function flag(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? (process.argv[i + 1] as string) : fallback;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const budget = Number(flag("budget", "100"));
  const only = flag("bugs", "");
  const rows = await raceBugs({
    budget,
    strategies: flag("strategies", "random,swarm,pct,coverage").split(",") as StrategyName[],
    bugs: only === "" ? [] : only.split(","),
    progress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify({ scenario: GENERIC_BUG_SCENARIO, budget, rows }, null, 1)}\n`);
}
