import { resolve } from "node:path";
import type { JobOutcome } from "../fuzz/executor/run-job.js";
import { resumableStrategyNames } from "../fuzz/search/strategies.js";
import { type CampaignArgs, type ReadResults, readResultsLog, resultsFile } from "../report/results-log.js";
import { InputError } from "../scenario/input-error.js";
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
  /** What was read (how much of results.jsonl to keep, its point IDs), to continue the file. */
  log: Pick<ReadResults, "validBytes" | "pointIds">;
  scenarioHash: string;
}

/** `run --resume DIR`: read what the interrupted run did; campaign options on the command line are refused. */
export function resumeArgs<A extends object>(dir: string, commandLine: A): Resumed<A> {
  const args = commandLine as Record<string, unknown>;
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
  const log = readResultsLog(dir);
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
  return { args: merged as A, outcomes: log.outcomes, log, scenarioHash: log.header.scenarioHash };
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
