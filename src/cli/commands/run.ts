import { mkdirSync } from "node:fs";
import type { Argv } from "yargs";
import type { CampaignResult } from "../../fuzz/campaign.js";
import { DeterminismWatch } from "../../fuzz/determinism-check.js";
import { InProcessExecutor, type RunExecutor } from "../../fuzz/executor/executor.js";
import { PoolExecutor } from "../../fuzz/executor/worker-pool.js";
import { findMutant, killsMutant, MUTANTS, type Mutant, withMutant } from "../../fuzz/mutants.js";
import { failingSeedFiles } from "../../fuzz/save-failures.js";
import { runSearch, searchConfig } from "../../fuzz/search/run-search.js";
import { type CorpusStore, corpusFile } from "../../fuzz/search/corpus-file.js";
import { type SearchOptions, type Shard, shardRange } from "../../fuzz/search/search-options.js";
import { strategyNamed } from "../../fuzz/search/strategies.js";
import { DEFAULT_SHRINK_BUDGET_MS } from "../../fuzz/shrink-seed.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { emitGithubActions } from "../../report/github-actions.js";
import { createProgress } from "../../report/progress.js";
import { defaultReportDir, writeReportDir } from "../../report/report-dir.js";
import { ResultsLog } from "../../report/results-log.js";
import { buildRunReport, type RunReport } from "../../report/run-report.js";
import { renderScriptSteps } from "../../report/script-steps.js";
import { renderDeterminism, renderShrink } from "../../report/shrink-render.js";
import { renderRunReport } from "../../report/terminal.js";
import { writeFileAtomic } from "../../report/write-files.js";
import { InputError } from "../../scenario/input-error.js";
import { canonicalJson, type LoadedScenario, resolveScenario } from "../../scenario/loader.js";
import { LIMITS } from "../../scenario/schema.js";
import { EXIT, InternalError } from "../errors.js";
import { campaignArgsOf, checkResumedScenario, type Resumed, resumeArgs } from "../run-resume.js";
import { traceReport } from "../report-output.js";
import { shrinkFirstFailure } from "../shrink-first-failure.js";
import {
  bugProbabilities,
  checkInteger,
  parseDuration,
  parsePctScope,
  parseShard,
  parseStrategy,
  type SearchArgs,
  searchOptionsBuilder,
  workerCount,
} from "./search-args.js";

export interface RunArgs extends SearchArgs {
  scenario?: string;
  mutant?: string;
  seeds?: number;
  "seed-start": number;
  json: boolean;
  out?: string;
  progress: boolean;
  "save-failures"?: string;
  shrink: boolean;
  "shrink-budget-ms": number;
  "check-determinism": boolean;
  resume?: string;
  corpus?: string;
}

const DEFAULT_SCENARIO = "kip-1228-gap";

function resolveMutant(name: string | undefined): Mutant | null {
  if (name === undefined) return null;
  const m = findMutant(name);
  if (!m)
    throw new InputError("--mutant", "", `expected one of ${MUTANTS.map((x) => x.name).join(", ")}, found "${name}"`);
  return m;
}

export function runBuilder(y: Argv): Argv<RunArgs> {
  return searchOptionsBuilder(
    y
      .option("scenario", {
        type: "string",
        describe: `built-in scenario name or a scenario file (default: ${DEFAULT_SCENARIO}, or the mutant's scenario)`,
      })
      .option("mutant", {
        type: "string",
        describe:
          "run with a deliberately broken variant of the model (see eosfuzz mutants); stops at the first seed that catches it",
      })
      .option("seeds", {
        type: "number",
        describe: "number of seeds (default: the scenario's seeds; exhaustive: the most schedules)",
      })
      .option("seed-start", { type: "number", default: 0, describe: "first seed" })
      .option("json", { type: "boolean", default: false, describe: "print one JSON object on stdout and nothing else" })
      .option("out", {
        type: "string",
        describe:
          "write the report (run.json, index.html, junit.xml, ShiViz logs) into DIR; bare --out: reports/<scenario>-<run id>",
      })
      .option("progress", {
        type: "boolean",
        default: true,
        describe: "progress bar on a terminal, heartbeat line otherwise (--no-progress: neither)",
      })
      .option("save-failures", {
        type: "string",
        describe: "write one seed file per failing seed into DIR (default seeds/)",
      })
      .option("shrink", {
        type: "boolean",
        default: true,
        describe: "shrink the run's first failure to its minimal schedule (--no-shrink: don't)",
      })
      .option("shrink-budget-ms", {
        type: "number",
        default: DEFAULT_SHRINK_BUDGET_MS,
        describe: "wall-clock budget of that shrink",
      })
      .option("check-determinism", {
        type: "boolean",
        default: false,
        describe: "run every seed a second time and compare trace hashes; name the first divergent event",
      })
      .option("corpus", {
        type: "string",
        requiresArg: true,
        describe:
          "coverage: start from the tapes kept in FILE by an earlier campaign of this scenario, and leave this campaign's there (created if missing)",
      })
      .option("resume", {
        type: "string",
        requiresArg: true,
        describe:
          "continue the interrupted run whose --out was DIR (its results.jsonl): the seeds it did not finish, then the whole report into DIR",
      }),
  ) as unknown as Argv<RunArgs>;
}

/** Where --save-failures writes when given no directory (what `eosfuzz regress` reads by default). */
export const DEFAULT_SEED_DIR = "seeds";

/** --save-failures: one seed file per failing seed, each written atomically. */
function saveFailures(
  result: CampaignResult,
  dir: string,
  overrides: Partial<ReleaseFlags>,
  mutant: string | null,
): string[] {
  const files = failingSeedFiles(result, dir, { overrides, mutant });
  for (const f of files) writeFileAtomic(f.path, f.content);
  return files.map((f) => f.path);
}

/**
 * --corpus FILE: checked and read before anything runs (a bad file is one line, exit 2, and is left
 * as it is); written when the campaign ends.
 */
function corpusStore(file: string, shard: Shard | null, loaded: LoadedScenario, mutant: Mutant | null): CorpusStore {
  if (shard)
    throw new InputError(
      "--corpus",
      "",
      "expected no --shard with --corpus (shards would each write the same file; run the shards without it)",
    );
  const store = corpusFile(file, {
    name: loaded.scenario.name,
    contentHash: loaded.contentHash,
    overrides: canonicalJson(mutant?.overrides ?? {}),
  });
  const entries = store.load();
  return { file, load: () => entries, save: (saved) => store.save(saved) };
}

/** The search options of the command line, checked (bad values are one InputError line). */
function searchOptions(args: RunArgs, loaded: LoadedScenario, mutant: Mutant | null): SearchOptions {
  checkInteger("seeds", args.seeds, 1, LIMITS.seeds);
  checkInteger("seed-start", args["seed-start"], 0, Number.MAX_SAFE_INTEGER - LIMITS.seeds);
  checkInteger("pct-depth", args["pct-depth"], 1, 10);
  checkInteger("depth", args.depth, 0, 20);
  const strategy = parseStrategy(args.strategy);
  const shard = parseShard(args.shard);
  strategyNamed(strategy).check({ shard, corpusFile: args.corpus });
  const probabilities = bugProbabilities(args["bug-probability"]);
  const corpus = args.corpus === undefined ? null : corpusStore(args.corpus, shard, loaded, mutant);
  return {
    strategy,
    seeds: args.seeds ?? strategyNamed(strategy).defaultRuns ?? (mutant ? mutant.budget : loaded.scenario.seeds),
    seedStart: args["seed-start"],
    shard,
    pctDepth: args["pct-depth"],
    pctScope: parsePctScope(args["pct-scope"]),
    depth: args.depth,
    timeBudgetMs: args["time-budget"] === undefined ? null : parseDuration("time-budget", args["time-budget"]),
    stopOnFirst: args["stop-on-first"],
    ...(probabilities ? { bugProbabilities: probabilities } : {}),
    ...(corpus ? { corpus } : {}),
    // A mutant run asks whether the oracle catches it: its kinds, within its budget, then done.
    overrides: mutant?.overrides ?? {},
    ...(mutant ? { doneAfter: (outcome: Parameters<typeof killsMutant>[1]) => killsMutant(mutant, outcome) } : {}),
  };
}

/** A run's checked arguments and what they resolve to, before anything runs. */
export interface RunPlan {
  args: RunArgs;
  seedTimeoutMs: number;
  workers: number;
  mutant: Mutant | null;
  loaded: LoadedScenario;
  options: SearchOptions;
  /** --out's directory ("" until the default is named after the start time), or null without --out. */
  outDir: string | null;
  /** --resume: the interrupted run's results so far. */
  resumed: Resumed<RunArgs> | null;
}

/** Check every argument of `eosfuzz run` (bad ones are one InputError line) and resolve the scenario. */
export function planRun(given: RunArgs): RunPlan {
  const resumed = given.resume === undefined ? null : resumeArgs(given.resume, given);
  const args = resumed?.args ?? given;
  checkInteger("shrink-budget-ms", args["shrink-budget-ms"], 1, 86_400_000);
  const seedTimeoutMs = parseDuration("seed-timeout", args["seed-timeout"]);
  const workers = workerCount(args.workers);
  const mutant = resolveMutant(args.mutant);
  const scenario = resolveScenario(args.scenario ?? mutant?.scenario ?? DEFAULT_SCENARIO);
  if (resumed && given.resume !== undefined) checkResumedScenario(given.resume, scenario, resumed.scenarioHash);
  const loaded = mutant ? withMutant(scenario, mutant) : scenario;
  const options = searchOptions(args, loaded, mutant);
  if (resumed) options.resumeFrom = resumed.outcomes;
  return { args, seedTimeoutMs, workers, mutant, loaded, options, outDir: args.out ?? null, resumed };
}

/** `eosfuzz run`: a campaign over seeds, judged against the scenario's expectation. */
export async function runCommand(args: RunArgs): Promise<number> {
  return executeRun(planRun(args));
}

async function executeRun(plan: RunPlan): Promise<number> {
  const { args, workers, seedTimeoutMs, loaded, options } = plan;
  const overrides: Partial<ReleaseFlags> = options.overrides ?? {};
  const mutantName = plan.mutant?.name ?? null;
  let interrupted = false;
  const onSignal = () => {
    // A second Ctrl-C: out at once. results.jsonl is valid up to its last line (each line is one write).
    if (interrupted) process.exit(EXIT.interrupted);
    interrupted = true;
    process.stderr.write(
      "\ninterrupted: finishing the runs in flight and writing a partial report (Ctrl-C again to quit at once)\n",
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // An exhaustive search does not know its schedule count in advance (--seeds only bounds it): no ETA to show.
  const slice = shardRange(options.seedStart, options.seeds, options.shard);
  const progress = createProgress({
    scenario: loaded.scenario.name,
    total: slice.end - slice.start,
    enabled: args.progress && strategyNamed(options.strategy).countsRuns,
    heartbeatMs: heartbeatMs(),
  });
  const determinism = args["check-determinism"] ? new DeterminismWatch(searchConfig(loaded, options)) : null;
  const startedAt = new Date();
  const outDir =
    plan.outDir === ""
      ? defaultReportDir({ scenario: loaded.scenario.name, startedAt: startedAt.toISOString() })
      : plan.outDir;
  const log = outDir === null ? null : openResultsLog(plan, outDir);
  const alreadyDone = plan.resumed?.outcomes.length ?? 0;
  const executor: RunExecutor =
    workers === 0
      ? new InProcessExecutor()
      : new PoolExecutor({
          workers,
          seedTimeoutMs,
          describeJob: (job) => ("seed" in job.input ? `seed ${job.input.seed}` : `run ${job.index}`),
        });
  const started = performance.now();
  let violations = 0;
  let tallied = 0;
  let result: CampaignResult;
  try {
    result = await runSearch(
      loaded,
      {
        ...options,
        shouldStop: () => interrupted,
        onOutcome: (outcome, done) => {
          tallied = done;
          violations += outcome.violations.length;
          if (done <= alreadyDone) return; // read back from results.jsonl: already logged and checked
          log?.append(outcome);
          if (outcome.violations.every((v) => v.kind !== "model-timeout")) determinism?.check(outcome);
          progress.update(done, violations);
        },
      },
      executor,
      () => performance.now() - started,
    );
  } catch (error) {
    if (error instanceof InputError) throw error;
    // Not the model (a run's own exceptions are model-error results): the pool or the tally. Name the
    // seed that was due, which is where a replay of the campaign gets to the failure.
    const seed = slice.start + tallied;
    const tapes = strategyNamed(options.strategy).runs === "tapes";
    const replay = strategyNamed(options.strategy).replay(loaded.scenario.name, options, seed);
    const kept =
      outDir === null ? null : tapes ? `${outDir}/results.jsonl` : `${outDir} (eosfuzz run --resume ${outDir})`;
    throw new InternalError(error, seed, replay, kept);
  } finally {
    log?.close();
    progress.stop();
    await executor.close();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const report = buildRunReport(result, performance.now() - started, mutantName, startedAt);
  if (determinism) determinism.addTo(report);
  const saveDir = args["save-failures"] === undefined ? null : args["save-failures"] || DEFAULT_SEED_DIR;
  const shrunk =
    args.shrink && !result.interrupted
      ? shrinkFirstFailure(result, { budgetMs: args["shrink-budget-ms"], saveDir, overrides, mutant: mutantName })
      : null;
  if (shrunk) report.shrunk = shrunk.report;
  if (saveDir !== null) {
    report.seedFiles = saveFailures(result, saveDir, overrides, mutantName);
    if (shrunk?.savedTo) report.seedFiles.push(shrunk.savedTo);
  }
  const written = outDir === null ? null : writeRunReport(report, loaded, outDir, overrides);
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const steps = result.scriptSteps
      ? renderScriptSteps(result.scriptSteps, loaded.scenario.script?.steps.length ?? 0)
      : undefined;
    process.stdout.write(
      `${renderRunReport(report, { afterHeader: steps })}\n${written ? `\n  report: ${written}/index.html\n` : ""}`,
    );
    if (result.interrupted && written) process.stdout.write(`  continue it: eosfuzz run --resume ${written}\n`);
    if (shrunk) process.stdout.write(`\n${renderShrink(shrunk.summary, { savedTo: shrunk.savedTo })}\n`);
    if (report.determinism) process.stdout.write(`\n${renderDeterminism(report.determinism)}\n`);
    if (report.seedFiles)
      process.stdout.write(
        `\n  saved ${report.seedFiles.length} seed file${report.seedFiles.length === 1 ? "" : "s"}${report.seedFiles[0] ? `, e.g. eosfuzz replay ${report.seedFiles[0]}` : ""}\n`,
      );
  }
  emitGithubActions(report, (line) => (args.json ? process.stderr : process.stdout).write(line));
  if (result.interrupted) return EXIT.interrupted;
  return report.expectationMet ? EXIT.ok : EXIT.unexpected;
}

/** results.jsonl in the report directory: fresh for a new run, continued after the last whole line for a resumed one. */
function openResultsLog(plan: RunPlan, dir: string): ResultsLog {
  mkdirSync(dir, { recursive: true });
  if (plan.resumed) return ResultsLog.resume(dir, plan.resumed.log);
  return ResultsLog.create(dir, {
    scenario: plan.loaded.scenario.name,
    scenarioHash: plan.loaded.contentHash,
    args: campaignArgsOf(plan.args, plan.args.scenario ?? plan.mutant?.scenario ?? DEFAULT_SCENARIO),
  });
}

/** Heartbeat interval: EOSFUZZ_HEARTBEAT_SECONDS, else the default (10 s). */
function heartbeatMs(): number | undefined {
  const seconds = Number(process.env.EOSFUZZ_HEARTBEAT_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/** The --out directory: the run's failures traced again, then every report file. Returns the directory. */
export function writeRunReport(
  report: RunReport,
  loaded: LoadedScenario | null,
  out: string,
  overrides: Partial<ReleaseFlags> = {},
): string {
  const dir = out === "" ? defaultReportDir(report) : out;
  writeReportDir(dir, traceReport(report, loaded, overrides));
  return dir;
}
