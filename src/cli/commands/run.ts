import { statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import type { Argv } from "yargs";
import {
  CampaignError,
  type CampaignPlan,
  type CampaignSessionResult,
  planCampaign,
  runCampaignSession,
} from "../../fuzz/session/campaign-session.js";
import { addDeterminism } from "../../fuzz/run/determinism-check.js";
import { findMutant, MUTANTS, type Mutant } from "../../fuzz/catalogue/mutants.js";
import { DEFAULT_SHRINK_BUDGET_MS } from "../../fuzz/shrink/shrink-seed.js";
import { Chunker, emitJson } from "../../common/json-pieces.js";
import type { OutputError } from "../../common/output-error.js";
import type { Progress } from "../../report/progress.js";
import { isGithubActions } from "../../report/github-env.js";
import type { writeRunReport } from "../run-report-dir.js";
import { attemptWrite, defaultReportDir } from "../../report/report-files.js";
import { ResultsLog, resultsFile } from "../../report/results-log.js";
import { fitted, outputWidth } from "../../report/terminal-width.js";
import { buildRunReport, type RunReport } from "../../report/run-report.js";
import { writeFileAtomic } from "../../common/write-files.js";
import { notOneOf } from "../../scenario/did-you-mean.js";
import { InputError } from "../../common/input-error.js";
import { resolveScenario } from "../../scenario/loader.js";
import { applySettings, parseSettings } from "../../scenario/settings.js";
import { shellWord } from "../../fuzz/search/replay-commands.js";
import { COMMANDS } from "../cli.js";
import { LIMITS } from "../../scenario/schema.js";
import { EXIT, InternalError, reportOutputProblems } from "../errors.js";
import { stopGracefully } from "../interrupt.js";
import { type DirLock, lockDir, refuseUsedOutDir } from "../out-dir.js";
import {
  CAMPAIGN_OPTIONS,
  campaignArgsOf,
  checkResumedRuns,
  checkResumedScenario,
  continueArgs,
  type Resumed,
  resumeArgs,
} from "../run-resume.js";
import {
  bugProbabilities,
  checkInteger,
  parseDuration,
  parsePctScope,
  parseShard,
  parseStrategy,
  type SearchArgs,
  searchOptionsBuilder,
  setOption,
  workerCount,
} from "./search-args.js";

export interface RunArgs extends SearchArgs {
  scenario?: string;
  set?: string[];
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
  continue: boolean;
  corpus?: string;
  junit?: string;
}

const DEFAULT_SCENARIO = "kip-1228-gap";

function resolveMutant(name: string | undefined): Mutant | null {
  if (name === undefined) return null;
  const m = findMutant(name);
  if (!m)
    // The name first: the list outgrew the message cap (InputError keeps 500 characters).
    throw new InputError(
      "--mutant",
      "",
      notOneOf(
        name,
        MUTANTS.map((x) => x.name),
        "eosfuzz mutants",
      ),
    );
  return m;
}

export function runBuilder(y: Argv): Argv<RunArgs> {
  return searchOptionsBuilder(
    setOption(y)
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
      })
      .option("continue", {
        type: "boolean",
        default: false,
        describe:
          "with --out DIR: if DIR holds a run of this same campaign, resume it, else start it there (a retried CI job or Kubernetes pod picks up its own work)",
      })
      .option("junit", {
        type: "string",
        requiresArg: true,
        describe: "also write the results as JUnit XML to FILE (as junit.xml in an --out directory)",
      }),
  ) as unknown as Argv<RunArgs>;
}

/** A folder of the system's temporary directory, one per user, for the shrunk tapes of runs without --out. */
export function temporaryTapeDir(): string {
  let user = "user";
  try {
    user = userInfo().username.replace(/[^\w.-]/g, "_") || user;
  } catch {
    // no user name (a container's uid without a passwd entry): one folder for all
  }
  return join(tmpdir(), `eosfuzz-${user}`);
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

/**
 * The runs already made, when this run resumes one: --resume DIR, or --out DIR --continue when DIR
 * holds this campaign. An --out directory that holds a run is refused otherwise.
 */
function resumedRun(given: RunArgs): Resumed<RunArgs> | null {
  if (given.resume !== undefined) return resumeArgs(given.resume, given);
  if (given.continue && !given.out)
    throw new InputError(
      "--continue",
      "",
      "expected it with --out DIR (the directory to resume a run from, or to start one in), found no --out DIR",
    );
  if (!given.out) return null;
  const resumed = given.continue
    ? continueArgs(given.out, given, given.scenario ?? resolveMutant(given.mutant)?.scenario ?? DEFAULT_SCENARIO)
    : null;
  if (!resumed) refuseUsedOutDir(given.out);
  return resumed;
}

/** Check every argument of `eosfuzz run` (bad ones are one InputError line), resolve the scenario, plan the campaign. */
export function planRun(given: RunArgs): RunPlan {
  const resumed = resumedRun(given);
  try {
    return planChecked(given, resumed);
  } catch (e) {
    throw resumed ? blameResultsLog(e, given, resumed) : e;
  }
}

/**
 * A campaign option a resumed run took from its results log and found bad (a corrupt or edited
 * header): the problem is the file's field, not a flag the user never gave.
 */
function blameResultsLog(e: unknown, given: RunArgs, resumed: Resumed<RunArgs>): unknown {
  if (!(e instanceof InputError) || !e.file.startsWith("--") || e.field !== "") return e;
  const name = e.file.slice(2);
  const fromLog = name in CAMPAIGN_OPTIONS && (given as unknown as Record<string, unknown>)[name] === undefined;
  return fromLog ? new InputError(resumed.file, `args.${name}`, e.problem) : e;
}

function planChecked(given: RunArgs, resumed: Resumed<RunArgs> | null): RunPlan {
  const args = resumed?.args ?? given;
  checkInteger("shrink-budget-ms", args["shrink-budget-ms"], 1, 86_400_000);
  const seedTimeoutMs = parseDuration("seed-timeout", args["seed-timeout"]);
  const workers = workerCount(args.workers);
  const mutant = resolveMutant(args.mutant);
  const scenario = applySettings(
    resolveScenario(args.scenario ?? mutant?.scenario ?? DEFAULT_SCENARIO),
    parseSettings(args.set),
  );
  const resumedFrom = given.resume ?? given.out;
  if (resumed && resumedFrom !== undefined) checkResumedScenario(resumedFrom, scenario, resumed.scenarioHash);
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
  if (resumed) checkResumedRuns(resumed, campaign.runs);
  if (args.junit === "") throw new InputError("--junit", "", "expected a file name for the JUnit XML, found nothing");
  return { args, campaign, outDir: args.out ?? null, resumed };
}

/** `eosfuzz run`: a campaign over seeds, judged against the scenario's expectation. */
export async function runCommand(args: RunArgs): Promise<number> {
  return executeRun(planRun(args));
}

async function executeRun(plan: RunPlan): Promise<number> {
  const { campaign } = plan;
  const name = campaign.loaded.scenario.name;
  const startedAt = new Date();
  const outDir =
    plan.outDir === "" ? defaultReportDir({ scenario: name, startedAt: startedAt.toISOString() }) : plan.outDir;
  const lock = outDir === null ? null : lockOutDir(plan, outDir);
  // The shrunk failure is always saved, so that its replay command works: with the seed files, in
  // the report directory, or else in a temporary folder the output names.
  const shrunkDir = plan.campaign.saveFailuresDir ?? outDir ?? temporaryTapeDir();
  const located: RunPlan = { ...plan, campaign: { ...plan.campaign, shrunkDir } };
  try {
    return await runLocked(located, outDir, startedAt);
  } finally {
    lock?.release();
  }
}

/** The --out directory's lock: taken before anything is written there; the run read back must still be all there is. */
function lockOutDir(plan: RunPlan, dir: string): DirLock {
  const lock = lockDir(dir, `eosfuzz run${plan.resumed ? ` --resume ${dir}` : ` --out ${dir}`}`);
  try {
    // Between the check and the lock, another process may have written there.
    if (plan.resumed) {
      if (fileSize(resultsFile(dir)) !== plan.resumed.log.size)
        throw new InputError(
          resultsFile(dir),
          "",
          "expected the results read a moment ago, found the file changed since (another process wrote to it)",
        );
    } else refuseUsedOutDir(dir);
  } catch (e) {
    lock.release();
    throw e;
  }
  return lock;
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

type Phase = "runs" | "after-runs" | "report";

async function runLocked(plan: RunPlan, outDir: string | null, startedAt: Date): Promise<number> {
  const { args, campaign } = plan;
  const abort = new AbortController();
  let phase: Phase = "runs";
  const progress = await progressOf(plan);
  const endGraceful = stopGracefully(() => {
    abort.abort();
    // The bar goes first, so that it is not drawn again inside the message or the summary.
    progress.stop();
    const what =
      phase === "runs"
        ? "finishing the runs in flight and writing a partial report"
        : phase === "after-runs"
          ? "every run is done: skipping the shrink and the seed files, writing the report"
          : "writing the report";
    process.stderr.write(`\ninterrupted: ${what} (Ctrl-C again to quit at once)\n`);
  });
  const problems: OutputError[] = [];
  const log = outDir === null ? null : openResultsLog(plan, outDir);
  let logging = log !== null;
  let session: CampaignSessionResult;
  try {
    session = await runCampaignSession(campaign, {
      signal: abort.signal,
      onRun: (outcome, done) => {
        // A results log that cannot grow (a full disk) does not stop the campaign: the summary still comes.
        if (logging && log) logging = attemptWrite(problems, () => log.append(outcome));
        if (done === campaign.runs.end - campaign.runs.start) phase = "after-runs";
      },
      onProgress: ({ done, violations }) => progress.update(done, violations),
    });
  } catch (error) {
    endGraceful();
    if (!(error instanceof CampaignError)) throw error;
    throw new InternalError(error.error, error.seed, error.replay, keptResults(campaign, outDir));
  } finally {
    log?.close();
    progress.stop();
  }
  phase = "report";
  try {
    problems.push(...(session.outputProblems as OutputError[]));
    // A shrunk tape the user did not ask to save (the temporary folder) that cannot be written is said, not failed on.
    const tapeProblems: OutputError[] = [];
    const inTemp = campaign.saveFailuresDir === null && outDir === null;
    const report = sessionReport(session, campaign, startedAt, {
      seedFiles: problems,
      shrunk: inTemp ? tapeProblems : problems,
    });
    const result = session.campaign;
    const overrides = campaign.search.overrides ?? {};
    const written =
      outDir === null ? null : await writeReportFiles(report, campaign.loaded, outDir, overrides, problems);
    if (args.junit) {
      const { renderJunit } = await import("../../report/junit.js");
      attemptWrite(problems, () => writeFileAtomic(args.junit as string, renderJunit(report), "the JUnit report"));
    }
    const savedTo = report.shrunk?.savedTo ?? null;
    const say = (text: string) => process.stdout.write(fitted(text));
    const verdict = async (): Promise<string> => {
      const { renderVerdict } = await import("../../report/terminal.js");
      const replay = session.shrunk ? (savedTo ? `eosfuzz replay ${shellWord(savedTo)}` : null) : null;
      return renderVerdict(report, {
        replay: replay ?? report.violations[0]?.replay ?? null,
        replayWhat: replay ? "the shrunk failure" : `seed ${report.violations[0]?.seed ?? ""}`,
        confirm: replay && canConfirm() ? `eosfuzz confirm ${shellWord(savedTo as string)}` : null,
        resume: result.interrupted && written ? `eosfuzz run --resume ${shellWord(written)}` : null,
      }).join("\n");
    };
    if (args.json) writeJsonStdout(report);
    else {
      const { renderRunReport } = await import("../../report/terminal.js");
      const { renderScriptSteps } = await import("../../report/script-steps.js");
      const { renderDeterminism, renderShrink, shrinkFurtherCommand } = await import("../../report/shrink-render.js");
      const steps = result.scriptSteps
        ? renderScriptSteps(result.scriptSteps, campaign.loaded.scenario.script?.steps.length ?? 0)
        : undefined;
      say(
        `${renderRunReport(report, { afterHeader: steps, verdict: false, width: outputWidth() })}\n${written ? `\n  report: ${written}/index.html\n` : ""}`,
      );
      if (session.interruptedAfterRuns) say("\n  interrupted after the last run: not shrunk, no seed files\n");
      if (session.shrunk) {
        const shrinkFurther = savedTo ? shrinkFurtherCommand(savedTo, args["shrink-budget-ms"]) : null;
        say(`\n${renderShrink(session.shrunk.summary, { savedTo, shrinkFurther })}\n`);
      }
      for (const lost of tapeProblems) say(`\n  the shrunk failure was not saved: ${lost.message}\n`);
      if (report.determinism) say(`\n${renderDeterminism(report.determinism)}\n`);
      if (report.seedFiles && report.seedFiles.length > 0)
        say(
          `\n  saved ${report.seedFiles.length} seed file${report.seedFiles.length === 1 ? "" : "s"}${report.seedFiles[0] ? `, e.g. eosfuzz replay ${report.seedFiles[0]}` : ""}\n`,
        );
    }
    if (isGithubActions(process.env)) {
      const { emitGithubActions } = await import("../../report/github-actions.js");
      emitGithubActions(
        report,
        (line) => (args.json ? process.stderr : process.stdout).write(line),
        process.env,
        problems,
      );
    }
    // The verdict comes last, as vitest's and Jepsen's do: what a reader looks for first is at the bottom.
    if (!args.json) say(`\n${await verdict()}\n`);
  } finally {
    endGraceful();
  }
  reportOutputProblems(problems);
  if (session.interrupted || session.interruptedAfterRuns || abort.signal.aborted) return EXIT.interrupted;
  if (problems.length > 0) return EXIT.usage;
  return session.expectationMet ? EXIT.ok : EXIT.unexpected;
}

/** `eosfuzz confirm` (a real cluster plays the shrunk tape) is offered where this build has it. */
function canConfirm(): boolean {
  return (COMMANDS as readonly string[]).includes("confirm");
}

/** One JSON object on stdout, written in pieces (a report of millions of seeds is longer than one string can be). */
export function writeJsonStdout(value: unknown): void {
  const chunker = new Chunker((chunk) => process.stdout.write(chunk));
  emitJson(value, 0, chunker.push);
  chunker.push("\n");
  chunker.end();
}

/**
 * The run report of a session, with its determinism verdict and shrink; writes the seed files it
 * names. A seed file that cannot be written is kept in `problems` and left out of the report (the
 * shrunk tape's problem in `problems.shrunk`).
 */
function sessionReport(
  session: CampaignSessionResult,
  campaign: CampaignPlan,
  startedAt: Date,
  problems: { seedFiles: OutputError[]; shrunk: OutputError[] },
): RunReport {
  const report = buildRunReport(session.campaign, session.wallMs, campaign.mutant?.name ?? null, startedAt);
  if (session.determinism) addDeterminism(report, session.determinism);
  const shrunkFile = session.shrunk?.seedFile ?? null;
  const write = (f: { path: string; content: string }) =>
    attemptWrite(problems.seedFiles, () => writeFileAtomic(f.path, f.content, "a seed file"));
  const shrunkWritten =
    shrunkFile !== null &&
    attemptWrite(problems.shrunk, () => writeFileAtomic(shrunkFile.path, shrunkFile.content, "the shrunk tape"));
  if (session.shrunk)
    report.shrunk = shrunkFile && !shrunkWritten ? { ...session.shrunk.report, savedTo: null } : session.shrunk.report;
  if (session.failingSeedFiles) {
    report.seedFiles = session.failingSeedFiles.filter(write).map((f) => f.path);
    if (shrunkWritten) report.seedFiles.push(shrunkFile.path);
  }
  return report;
}

/** Where the results of a campaign that failed mid-way are, for the internal-error message. */
function keptResults(campaign: CampaignPlan, outDir: string | null): string | null {
  if (outDir === null) return null;
  return campaign.strategy.runs === "tapes" ? `${outDir}/results.jsonl` : `${outDir} (eosfuzz run --resume ${outDir})`;
}

/** results.jsonl in the report directory (made by its lock): fresh for a new run, continued after the last whole line for a resumed one. */
function openResultsLog(plan: RunPlan, dir: string): ResultsLog {
  if (plan.resumed) return ResultsLog.resume(dir, plan.resumed.log);
  return ResultsLog.create(dir, {
    scenario: plan.campaign.loaded.scenario.name,
    scenarioHash: plan.campaign.loaded.contentHash,
    args: campaignArgsOf(plan.args, plan.args.scenario ?? plan.campaign.mutant?.scenario ?? DEFAULT_SCENARIO),
  });
}

/**
 * The progress bar or heartbeat; its module (and cli-progress) loads only when it shows. An
 * exhaustive search does not know its schedule count in advance (--seeds only bounds it): no ETA to show.
 */
async function progressOf(plan: RunPlan): Promise<Progress> {
  const { args, campaign } = plan;
  if (!args.progress || !campaign.strategy.countsRuns) return { update() {}, stop() {} };
  const { createProgress } = await import("../../report/progress.js");
  return createProgress({
    scenario: campaign.loaded.scenario.name,
    total: campaign.runs.end - campaign.runs.start,
    alreadyDone: plan.resumed?.outcomes.length ?? 0,
    heartbeatMs: heartbeatMs(),
  });
}

/** The --out directory's files; the HTML renderer loads only for a run that has one. */
async function writeReportFiles(...args: Parameters<typeof writeRunReport>): Promise<string | null> {
  const { writeRunReport } = await import("../run-report-dir.js");
  return writeRunReport(...args);
}

/** Heartbeat interval: EOSFUZZ_HEARTBEAT_SECONDS, else the default (10 s). */
function heartbeatMs(): number | undefined {
  const seconds = Number(process.env.EOSFUZZ_HEARTBEAT_SECONDS);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}
