import { mkdirSync } from "node:fs";
import type { Argv } from "yargs";
import {
  CampaignError,
  type CampaignPlan,
  type CampaignSessionResult,
  planCampaign,
  runCampaignSession,
} from "../../fuzz/campaign-session.js";
import { addDeterminism } from "../../fuzz/determinism-check.js";
import { findMutant, MUTANTS, type Mutant } from "../../fuzz/mutants.js";
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
import { writeFileAtomic } from "../../common/write-files.js";
import { InputError } from "../../scenario/input-error.js";
import { type LoadedScenario, resolveScenario } from "../../scenario/loader.js";
import { LIMITS } from "../../scenario/schema.js";
import { EXIT, InternalError } from "../errors.js";
import { campaignArgsOf, checkResumedScenario, type Resumed, resumeArgs } from "../run-resume.js";
import { traceReport } from "../report-output.js";
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

/** A run's checked arguments and the campaign they plan, before anything runs. */
export interface RunPlan {
  args: RunArgs;
  campaign: CampaignPlan;
  /** --out's directory ("" until the default is named after the start time), or null without --out. */
  outDir: string | null;
  /** --resume: the interrupted run's results so far. */
  resumed: Resumed<RunArgs> | null;
}

/** Check every argument of `eosfuzz run` (bad ones are one InputError line), resolve the scenario, plan the campaign. */
export function planRun(given: RunArgs): RunPlan {
  const resumed = given.resume === undefined ? null : resumeArgs(given.resume, given);
  const args = resumed?.args ?? given;
  checkInteger("shrink-budget-ms", args["shrink-budget-ms"], 1, 86_400_000);
  const seedTimeoutMs = parseDuration("seed-timeout", args["seed-timeout"]);
  const workers = workerCount(args.workers);
  const mutant = resolveMutant(args.mutant);
  const scenario = resolveScenario(args.scenario ?? mutant?.scenario ?? DEFAULT_SCENARIO);
  if (resumed && given.resume !== undefined) checkResumedScenario(given.resume, scenario, resumed.scenarioHash);
  checkInteger("seeds", args.seeds, 1, LIMITS.seeds);
  checkInteger("seed-start", args["seed-start"], 0, Number.MAX_SAFE_INTEGER - LIMITS.seeds);
  checkInteger("pct-depth", args["pct-depth"], 1, 10);
  checkInteger("depth", args.depth, 0, 20);
  const strategy = parseStrategy(args.strategy);
  const shard = parseShard(args.shard);
  const probabilities = bugProbabilities(args["bug-probability"]);
  const pctScope = parsePctScope(args["pct-scope"]);
  const timeBudgetMs = args["time-budget"] === undefined ? null : parseDuration("time-budget", args["time-budget"]);
  const campaign = planCampaign({
    scenario,
    mutant,
    strategy,
    ...(args.seeds !== undefined ? { seeds: args.seeds } : {}),
    seedStart: args["seed-start"],
    shard,
    pctDepth: args["pct-depth"],
    pctScope,
    depth: args.depth,
    timeBudgetMs,
    stopOnFirst: args["stop-on-first"],
    ...(probabilities ? { bugProbabilities: probabilities } : {}),
    ...(args.corpus !== undefined ? { corpusFile: args.corpus } : {}),
    ...(resumed ? { resumeFrom: resumed.outcomes } : {}),
    workers,
    seedTimeoutMs,
    shrinkBudgetMs: args.shrink ? args["shrink-budget-ms"] : null,
    saveFailuresDir: args["save-failures"] === undefined ? null : args["save-failures"] || DEFAULT_SEED_DIR,
    checkDeterminism: args["check-determinism"],
  });
  return { args, campaign, outDir: args.out ?? null, resumed };
}

/** `eosfuzz run`: a campaign over seeds, judged against the scenario's expectation. */
export async function runCommand(args: RunArgs): Promise<number> {
  return executeRun(planRun(args));
}

async function executeRun(plan: RunPlan): Promise<number> {
  const { args, campaign } = plan;
  const name = campaign.loaded.scenario.name;
  const abort = new AbortController();
  const onSignal = () => {
    // A second Ctrl-C: out at once. results.jsonl is valid up to its last line (each line is one write).
    if (abort.signal.aborted) process.exit(EXIT.interrupted);
    abort.abort();
    process.stderr.write(
      "\ninterrupted: finishing the runs in flight and writing a partial report (Ctrl-C again to quit at once)\n",
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  // An exhaustive search does not know its schedule count in advance (--seeds only bounds it): no ETA to show.
  const progress = createProgress({
    scenario: name,
    total: campaign.runs.end - campaign.runs.start,
    enabled: args.progress && campaign.strategy.countsRuns,
    heartbeatMs: heartbeatMs(),
  });
  const startedAt = new Date();
  const outDir =
    plan.outDir === "" ? defaultReportDir({ scenario: name, startedAt: startedAt.toISOString() }) : plan.outDir;
  const log = outDir === null ? null : openResultsLog(plan, outDir);
  let session: CampaignSessionResult;
  try {
    session = await runCampaignSession(campaign, {
      signal: abort.signal,
      onRun: (outcome) => log?.append(outcome),
      onProgress: ({ done, violations }) => progress.update(done, violations),
    });
  } catch (error) {
    if (!(error instanceof CampaignError)) throw error;
    throw new InternalError(error.error, error.seed, error.replay, keptResults(campaign, outDir));
  } finally {
    log?.close();
    progress.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  const report = sessionReport(session, campaign, startedAt);
  const result = session.campaign;
  const overrides = campaign.search.overrides ?? {};
  const written = outDir === null ? null : writeRunReport(report, campaign.loaded, outDir, overrides);
  const savedTo = session.shrunk?.seedFile?.path ?? null;
  if (args.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const steps = result.scriptSteps
      ? renderScriptSteps(result.scriptSteps, campaign.loaded.scenario.script?.steps.length ?? 0)
      : undefined;
    process.stdout.write(
      `${renderRunReport(report, { afterHeader: steps })}\n${written ? `\n  report: ${written}/index.html\n` : ""}`,
    );
    if (result.interrupted && written) process.stdout.write(`  continue it: eosfuzz run --resume ${written}\n`);
    if (session.shrunk) process.stdout.write(`\n${renderShrink(session.shrunk.summary, { savedTo })}\n`);
    if (report.determinism) process.stdout.write(`\n${renderDeterminism(report.determinism)}\n`);
    if (report.seedFiles)
      process.stdout.write(
        `\n  saved ${report.seedFiles.length} seed file${report.seedFiles.length === 1 ? "" : "s"}${report.seedFiles[0] ? `, e.g. eosfuzz replay ${report.seedFiles[0]}` : ""}\n`,
      );
  }
  emitGithubActions(report, (line) => (args.json ? process.stderr : process.stdout).write(line));
  if (session.interrupted) return EXIT.interrupted;
  return session.expectationMet ? EXIT.ok : EXIT.unexpected;
}

/** The run report of a session, with its determinism verdict and shrink; writes the seed files it names. */
function sessionReport(session: CampaignSessionResult, campaign: CampaignPlan, startedAt: Date): RunReport {
  const report = buildRunReport(session.campaign, session.wallMs, campaign.mutant?.name ?? null, startedAt);
  if (session.determinism) addDeterminism(report, session.determinism);
  const shrunkFile = session.shrunk?.seedFile ?? null;
  if (session.shrunk) report.shrunk = session.shrunk.report;
  if (shrunkFile) writeFileAtomic(shrunkFile.path, shrunkFile.content);
  if (session.failingSeedFiles) {
    for (const f of session.failingSeedFiles) writeFileAtomic(f.path, f.content);
    report.seedFiles = session.failingSeedFiles.map((f) => f.path);
    if (shrunkFile) report.seedFiles.push(shrunkFile.path);
  }
  return report;
}

/** Where the results of a campaign that failed mid-way are, for the internal-error message. */
function keptResults(campaign: CampaignPlan, outDir: string | null): string | null {
  if (outDir === null) return null;
  return campaign.strategy.runs === "tapes" ? `${outDir}/results.jsonl` : `${outDir} (eosfuzz run --resume ${outDir})`;
}

/** results.jsonl in the report directory: fresh for a new run, continued after the last whole line for a resumed one. */
function openResultsLog(plan: RunPlan, dir: string): ResultsLog {
  mkdirSync(dir, { recursive: true });
  if (plan.resumed) return ResultsLog.resume(dir, plan.resumed.log);
  return ResultsLog.create(dir, {
    scenario: plan.campaign.loaded.scenario.name,
    scenarioHash: plan.campaign.loaded.contentHash,
    args: campaignArgsOf(plan.args, plan.args.scenario ?? plan.campaign.mutant?.scenario ?? DEFAULT_SCENARIO),
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
