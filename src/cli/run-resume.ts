import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { JobOutcome } from "../fuzz/executor/run-job.js";
import { resumableStrategyNames } from "../fuzz/search/strategies.js";
import { type CampaignArgs, type ReadResults, readResultsLog, resultsFile } from "../report/results-log.js";
import { InputError } from "../common/input-error.js";
import type { LoadedScenario } from "../scenario/loader.js";

/**
 * The options that define a campaign (which runs, shaped how). `run --resume DIR` takes them from
 * DIR/results.jsonl, so the resumed campaign is the one that was interrupted; each is listed with
 * its command-line default, which is what it holds when not given.
 */
export const CAMPAIGN_OPTIONS = {
  scenario: undefined,
  mutant: undefined,
  seeds: undefined,
  "seed-start": 0,
  strategy: "random",
  shard: undefined,
  "pct-depth": 3,
  "pct-scope": "markers",
  depth: 4,
  "stop-on-first": false,
  "bug-probability": undefined,
  set: undefined,
} as const;

type CampaignOption = keyof typeof CAMPAIGN_OPTIONS;
const NAMES = Object.keys(CAMPAIGN_OPTIONS) as CampaignOption[];

/** Strategies whose runs are independent, so that a campaign can continue after any prefix of them. */
const RESUMABLE_STRATEGIES: readonly string[] = resumableStrategyNames();

/** The campaign options of a run's arguments, as results.jsonl records them (a scenario file by absolute path). */
export function campaignArgsOf(commandLine: object, scenarioArg: string): CampaignArgs {
  const args = commandLine as Record<string, unknown>;
  const out: CampaignArgs = {};
  for (const name of NAMES) {
    const value = name === "scenario" ? scenarioArg : args[name];
    if (value !== undefined) out[name] = value as CampaignArgs[string];
  }
  if (/[/\\]|\.ya?ml$/.test(scenarioArg)) out.scenario = resolve(scenarioArg);
  return out;
}

export interface Resumed<A> {
  /** The command line's arguments with the interrupted campaign's options put back. */
  args: A;
  /** The runs already done, in campaign order. */
  outcomes: JobOutcome[];
  /** What was read (how much of results.jsonl to keep, its point IDs, the line of each run), to continue the file. */
  log: Pick<ReadResults, "validBytes" | "pointIds" | "lines" | "size">;
  scenarioHash: string;
  /** The results log read. */
  file: string;
}

/** `run --resume DIR`: read what the interrupted run did; campaign options on the command line are refused. */
export function resumeArgs<A extends object>(dir: string, commandLine: A): Resumed<A> {
  const args = commandLine as Record<string, unknown>;
  if (args.continue === true)
    throw new InputError(
      "--continue",
      "",
      `expected it with --out DIR, not with --resume (which always resumes), found both`,
    );
  for (const name of NAMES) {
    const given = args[name];
    if (given !== undefined && given !== CAMPAIGN_OPTIONS[name]) {
      throw new InputError(
        `--${name}`,
        "",
        `expected no --${name} with --resume (the campaign's own settings are in ${resultsFile(dir)}), found ${JSON.stringify(given)}`,
      );
    }
  }
  if (args.out !== undefined)
    throw new InputError(
      "--out",
      "",
      `expected no --out with --resume (the report goes back into ${dir}), found ${JSON.stringify(args.out)}`,
    );
  return resumedFrom<A>(dir, args, readResultsLog(dir));
}

/**
 * `run --out DIR --continue`: when DIR holds the results of this same campaign (a shard restarted
 * after its pod was evicted), resume it; null when DIR holds no run yet (start one). A run of
 * another campaign there is refused, naming the first option that differs.
 */
export function continueArgs<A extends object>(dir: string, commandLine: A, scenarioArg: string): Resumed<A> | null {
  if (!existsSync(resultsFile(dir))) return null;
  const log = readResultsLog(dir);
  const given = campaignArgsOf(commandLine, scenarioArg);
  for (const name of NAMES) {
    const want = given[name] ?? CAMPAIGN_OPTIONS[name] ?? null;
    const found = log.header.args[name] ?? CAMPAIGN_OPTIONS[name] ?? null;
    if (JSON.stringify(want) !== JSON.stringify(found))
      throw new InputError(
        resultsFile(dir),
        `args.${name}`,
        `expected a run of this campaign to continue (--${name} ${JSON.stringify(want)}), found one with ${JSON.stringify(found)}; give another --out`,
      );
  }
  const { out: _, continue: __, ...rest } = commandLine as Record<string, unknown>;
  return resumedFrom<A>(dir, rest, log);
}

function resumedFrom<A>(dir: string, args: Record<string, unknown>, log: ReadResults): Resumed<A> {
  const stored = log.header.args;
  const strategy = String(stored.strategy ?? "random");
  if (!RESUMABLE_STRATEGIES.includes(strategy)) {
    throw new InputError(
      resultsFile(dir),
      "args.strategy",
      `expected a campaign of ${RESUMABLE_STRATEGIES.join(", ")} to resume (a ${strategy} search depends on the order of all its runs: run it again), found ${strategy}`,
    );
  }
  const merged: Record<string, unknown> = { ...args, out: dir };
  for (const name of NAMES) merged[name] = stored[name] ?? CAMPAIGN_OPTIONS[name];
  return {
    args: merged as A,
    outcomes: log.outcomes,
    log,
    scenarioHash: log.header.scenarioHash,
    file: resultsFile(dir),
  };
}

/**
 * The runs read back must be a prefix of the campaign: one run per seed, in order from its first
 * seed, no more than it plans. Anything else (a log edited, or of another campaign) is refused
 * with one line naming the line of results.jsonl.
 */
export function checkResumedRuns(resumed: Resumed<unknown>, runs: { start: number; end: number }): void {
  const { outcomes, log, file } = resumed;
  const planned = runs.end - runs.start;
  if (outcomes.length > planned)
    throw new InputError(
      file,
      "",
      `expected at most ${planned} runs (seeds ${runs.start}..${runs.end - 1}), found ${outcomes.length}`,
      { line: log.lines[planned] ?? 1, col: 1 },
    );
  outcomes.forEach((o, i) => {
    const due = runs.start + i;
    if (o.index !== due || (o.seed !== null && o.seed !== due))
      throw new InputError(
        file,
        "index",
        `expected the run of seed ${due} next (runs are logged in order from seed ${runs.start}), found ${o.seed === null ? `run ${o.index}` : `seed ${o.seed}`}`,
        { line: log.lines[i] ?? 1, col: 1 },
      );
  });
}

/** The scenario must be the one the interrupted run used (a file may have been edited since). */
export function checkResumedScenario(dir: string, loaded: LoadedScenario, scenarioHash: string): void {
  if (loaded.contentHash !== scenarioHash) {
    throw new InputError(
      resultsFile(dir),
      "scenarioHash",
      `expected ${loaded.source} unchanged since the run began (${scenarioHash}), found it changed (${loaded.contentHash}); start a new run instead`,
    );
  }
}
