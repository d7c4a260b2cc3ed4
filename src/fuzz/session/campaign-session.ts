import type { ReleaseFlags } from "../../kafka/release.js";
import { InputError } from "../../common/input-error.js";
import { canonicalJson, type LoadedScenario, loadScenario } from "../../scenario/loader.js";
import type { CampaignResult } from "../campaign/campaign.js";
import { type CampaignOptions, runCampaign } from "../search/run-campaign.js";
import { type DeterminismReport, DeterminismWatch } from "../run/determinism-check.js";
import { InProcessExecutor, type RunExecutor } from "../executor/executor.js";
import type { JobOutcome } from "../executor/run-job.js";
import { killsMutant, type Mutant, withMutant } from "../catalogue/mutants.js";
import type { PctScope } from "../run-shaping/pct.js";
import type { RunResult } from "../run/run-seed.js";
import type { SeedFileToWrite } from "../seeds/save-failures.js";
import { type CorpusStore, corpusFile } from "../search/corpus-file.js";
import { runSearch, searchConfig } from "../search/run-search.js";
import type { SearchOptions } from "../search/search-options.js";
import { type Shard, shardRange } from "../campaign/shard.js";
import { scenarioArgument } from "../search/replay-commands.js";
import { type SearchStrategy, strategyNamed } from "../search/strategies.js";
import type { StrategyName } from "../campaign/strategy-names.js";
import type { ShrunkFailure } from "../shrink/shrink-first-failure.js";
import {
  type AfterCampaignInput,
  type AfterCampaignOutput,
  afterCampaign,
  afterCampaignOnWorker,
  hasAfterCampaignWork,
} from "./after-campaign.js";

/**
 * A campaign as the CLI, the library and the vitest helper run it: which runs (scenario, seeds,
 * strategy, shard), where (this thread or workers), and what happens around them (resume, corpus,
 * determinism checks, shrinking the first failure, seed files for failures). Options are values,
 * already parsed; flags and terminal output are the CLI's.
 */
export interface CampaignSessionOptions {
  /** A loaded scenario, or a built-in name, a file path or YAML text; default: the mutant's scenario. */
  scenario?: LoadedScenario | string;
  /** Run with a deliberately broken variant of the model: its expectation, and done at the first run that catches it. */
  mutant?: Mutant | null;
  /** Flag overrides applied to every node (a mutant's are used when there is one). */
  overrides?: Partial<ReleaseFlags>;
  strategy?: StrategyName;
  /** Runs to make (exhaustive: the most schedules); default: the strategy's, the mutant's budget, else the scenario's seeds. */
  seeds?: number;
  seedStart?: number;
  shard?: Shard | null;
  pctDepth?: number;
  pctScope?: PctScope;
  depth?: number;
  /** Stop starting runs after this much wall-clock time. */
  timeBudgetMs?: number | null;
  /** Stop at the first unexpected violation, or once every expected kind was found. */
  stopOnFirst?: boolean;
  bugProbabilities?: readonly number[];
  /** Coverage: start from the tapes kept in this file, and leave the campaign's there. */
  corpusFile?: string;
  /** The runs an interrupted campaign of the same options already made, in campaign order. */
  resumeFrom?: readonly JobOutcome[];
  /** Worker threads; 0 (the default) runs every run in this thread. */
  workers?: number;
  /** Wall-clock bound of one run on a worker (default 60 s). */
  seedTimeoutMs?: number;
  /** Shrink the first failure within this wall-clock budget (default: no shrink). */
  shrinkBudgetMs?: number | null;
  /** Name a seed file in this directory for every failing seed (and the shrunk failure). */
  saveFailuresDir?: string | null;
  /** Name the shrunk failure's seed file in this directory (default: saveFailuresDir). */
  shrunkDir?: string | null;
  /** Run every seed a second time and compare trace hashes. */
  checkDeterminism?: boolean;
}

/** What the caller hears while a campaign runs. */
export interface CampaignHooks {
  /**
   * Aborting stops dispatching runs; the campaign ends, interrupted, after the runs in flight.
   * Aborted after the runs (with workers), it stops the shrink and the seed files at once.
   */
  signal?: AbortSignal;
  /** After each run is tallied, in campaign order (not for the runs of resumeFrom). */
  onRun?: (outcome: JobOutcome, done: number) => void;
  /** After each run is tallied and checked: runs so far and violations so far (resumed runs included). */
  onProgress?: (progress: { done: number; violations: number }) => void;
}

/** A campaign's options checked and resolved: what will run, before anything does. */
export interface CampaignPlan {
  /** The scenario, with the mutant's expectation when there is one. */
  loaded: LoadedScenario;
  mutant: Mutant | null;
  strategy: SearchStrategy;
  search: SearchOptions;
  /** The runs [start, end) this campaign (or its shard) makes. */
  runs: { start: number; end: number };
  workers: number;
  seedTimeoutMs: number;
  shrinkBudgetMs: number | null;
  saveFailuresDir: string | null;
  /** Where the shrunk failure's seed file goes (null: nowhere). */
  shrunkDir: string | null;
  checkDeterminism: boolean;
  /** Filled while the campaign runs: secondary outputs that could not be written (a corpus file on a full disk). */
  outputProblems: InputError[];
}

export interface CampaignSessionResult {
  campaign: CampaignResult;
  /** Wall-clock ms of the runs (shrinking and seed files not counted). */
  wallMs: number;
  /** The first failure shrunk (with shrinkBudgetMs, unless interrupted or nothing failed). */
  shrunk: ShrunkFailure | null;
  /** With saveFailuresDir: one seed file per failing seed. The caller writes them (and shrunk.seedFile). */
  failingSeedFiles: SeedFileToWrite[] | null;
  /** With checkDeterminism: seeds run twice and those whose traces differed. */
  determinism: DeterminismReport | null;
  /** The scenario's expectation held over a campaign that ran to its end, and every seed was deterministic. */
  expectationMet: boolean;
  interrupted: boolean;
  /** The signal came after the runs: the shrink and the seed files were skipped (the runs are all there). */
  interruptedAfterRuns: boolean;
  /** Secondary outputs of the session that could not be written (the corpus file): one line each. */
  outputProblems: InputError[];
}

/** A failure of eosfuzz itself (the pool, the tally: a run's own exceptions are model-error results) mid-campaign. */
export class CampaignError extends Error {
  override readonly name = "CampaignError";
  constructor(
    readonly error: unknown,
    /** The run that was due: where a replay of the campaign gets to the failure. */
    readonly seed: number,
    readonly replay: string,
  ) {
    super((error as Error)?.message ?? String(error));
  }
}

const DEFAULT_SEED_TIMEOUT_MS = 60_000;

/** Check a campaign's options and resolve what they leave open; nothing runs (bad values throw one InputError). */
export function planCampaign(options: CampaignSessionOptions): CampaignPlan {
  const mutant = options.mutant ?? null;
  const scenario = options.scenario ?? mutant?.scenario;
  if (scenario === undefined) throw new InputError("scenario", "", "expected a scenario or a mutant, found neither");
  const plain = typeof scenario === "string" ? loadScenario(scenario) : scenario;
  const loaded = mutant ? withMutant(plain, mutant) : plain;
  const strategy = strategyNamed(options.strategy ?? "random");
  const shard = options.shard ?? null;
  strategy.check({ shard, corpusFile: options.corpusFile });
  const outputProblems: InputError[] = [];
  const corpus =
    options.corpusFile === undefined ? null : corpusStore(options.corpusFile, shard, loaded, mutant, outputProblems);
  const seeds = options.seeds ?? strategy.defaultRuns ?? (mutant ? mutant.budget : loaded.scenario.seeds);
  if (!Number.isInteger(seeds) || seeds < 1)
    throw new InputError("seeds", "", `expected an integer >= 1, found ${seeds}`);
  const search: SearchOptions = {
    strategy: strategy.name,
    seeds,
    seedStart: options.seedStart ?? 0,
    shard,
    pctDepth: options.pctDepth ?? 3,
    pctScope: options.pctScope ?? "markers",
    depth: options.depth ?? 4,
    timeBudgetMs: options.timeBudgetMs ?? null,
    stopOnFirst: options.stopOnFirst ?? false,
    ...(options.bugProbabilities ? { bugProbabilities: options.bugProbabilities } : {}),
    ...(corpus ? { corpus } : {}),
    // A mutant run asks whether the oracle catches it: its kinds, within its budget, then done.
    overrides: mutant?.overrides ?? options.overrides ?? {},
    ...(mutant ? { doneAfter: (outcome: JobOutcome) => killsMutant(mutant, outcome) } : {}),
    ...(options.resumeFrom ? { resumeFrom: options.resumeFrom } : {}),
  };
  return {
    loaded,
    mutant,
    strategy,
    search,
    runs: shardRange(search.seedStart, search.seeds, shard),
    workers: options.workers ?? 0,
    seedTimeoutMs: options.seedTimeoutMs ?? DEFAULT_SEED_TIMEOUT_MS,
    shrinkBudgetMs: options.shrinkBudgetMs ?? null,
    saveFailuresDir: options.saveFailuresDir ?? null,
    shrunkDir: options.shrunkDir ?? options.saveFailuresDir ?? null,
    checkDeterminism: options.checkDeterminism ?? false,
    outputProblems,
  };
}

/**
 * The corpus file of a coverage campaign: checked and read before anything runs (a bad file is one
 * InputError and is left as it is); written when the campaign ends. A corpus that cannot be written
 * (a full disk) does not lose the campaign: the problem is kept in `problems` for the caller to say.
 */
function corpusStore(
  file: string,
  shard: Shard | null,
  loaded: LoadedScenario,
  mutant: Mutant | null,
  problems: InputError[],
): CorpusStore {
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
  return {
    file,
    load: () => entries,
    save: (saved) => {
      try {
        store.save(saved);
      } catch (e) {
        if (!(e instanceof InputError)) throw e;
        problems.push(e);
      }
    },
  };
}

/** Run a planned campaign of any strategy on workers or in this thread, then shrink, name seed files and judge. */
export async function runCampaignSession(
  plan: CampaignPlan,
  hooks: CampaignHooks = {},
): Promise<CampaignSessionResult> {
  const { loaded, search } = plan;
  const determinism = plan.checkDeterminism ? new DeterminismWatch(searchConfig(loaded, search)) : null;
  const executor = await executorFor(plan);
  const alreadyDone = search.resumeFrom?.length ?? 0;
  const started = performance.now();
  let violations = 0;
  let tallied = 0;
  let campaign: CampaignResult;
  try {
    campaign = await runSearch(
      loaded,
      {
        ...search,
        shouldStop: () => hooks.signal?.aborted ?? false,
        onOutcome: (outcome, done) => {
          tallied = done;
          violations += outcome.violations.length;
          if (done <= alreadyDone) return; // read back from an earlier campaign: already logged and checked
          hooks.onRun?.(outcome, done);
          if (outcome.violations.every((v) => v.kind !== "model-timeout")) determinism?.check(outcome);
          hooks.onProgress?.({ done, violations });
        },
      },
      executor,
      () => performance.now() - started,
    );
  } catch (error) {
    if (error instanceof InputError) throw error;
    const seed = plan.runs.start + tallied;
    throw new CampaignError(error, seed, plan.strategy.replay(scenarioArgument(loaded), search, seed));
  } finally {
    await executor.close();
  }
  const wallMs = performance.now() - started;
  const input = afterCampaignInput(plan, campaign);
  // With workers, the shrink and the seed files run on a worker too: this thread stays free to hear
  // Ctrl-C. A campaign already interrupted still names its failures' seed files, as it always did.
  const after =
    plan.workers > 0 && hasAfterCampaignWork(input)
      ? await afterCampaignOnWorker(input, campaign.interrupted ? undefined : hooks.signal)
      : afterCampaign(input);
  return sessionResult(plan, campaign, wallMs, determinism?.report() ?? null, after);
}

/** The executor of the runs; the worker pool's module (tinypool) loads only when there are workers. */
async function executorFor(plan: CampaignPlan): Promise<RunExecutor> {
  if (plan.workers === 0) return new InProcessExecutor();
  const { PoolExecutor } = await import("../executor/worker-pool.js");
  return new PoolExecutor({
    workers: plan.workers,
    seedTimeoutMs: plan.seedTimeoutMs,
    describeJob: (job) => ("seed" in job.input ? `seed ${job.input.seed}` : `run ${job.index}`),
  });
}

/**
 * A random campaign run seed after seed in this thread, synchronously (the library's runCampaign and
 * the vitest helper); the other strategies, workers, shards, corpus and resume need runCampaignSession.
 */
export function runCampaignInThread(
  plan: CampaignPlan,
  hooks: Pick<CampaignOptions, "onSeed" | "shouldStop" | "doneAfter"> = {},
): CampaignSessionResult {
  const { search, mutant } = plan;
  const plainRandom = search.strategy === "random" && !search.shard && !search.corpus && !search.resumeFrom;
  if (!plainRandom || search.timeBudgetMs || search.stopOnFirst || plan.checkDeterminism)
    throw new InputError(
      "strategy",
      "",
      "expected a plain random campaign in this thread (no shard, corpus, resume, time budget, stop on first or determinism check)",
    );
  const doneAfter = hooks.doneAfter ?? (mutant ? (result: RunResult) => killsMutant(mutant, result) : undefined);
  const started = performance.now();
  const campaign = runCampaign(plan.loaded, {
    seeds: search.seeds,
    seedStart: search.seedStart,
    overrides: search.overrides ?? {},
    ...hooks,
    ...(doneAfter ? { doneAfter } : {}),
  });
  const wallMs = performance.now() - started;
  return sessionResult(plan, campaign, wallMs, null, afterCampaign(afterCampaignInput(plan, campaign)));
}

function afterCampaignInput(plan: CampaignPlan, campaign: CampaignResult): AfterCampaignInput {
  return {
    campaign,
    shrinkBudgetMs: plan.shrinkBudgetMs,
    saveDir: plan.saveFailuresDir,
    shrunkDir: plan.shrunkDir,
    overrides: plan.search.overrides ?? {},
    mutant: plan.mutant?.name ?? null,
  };
}

/** After the runs: the first failure shrunk and the failures' seed files (null: a signal cut them short), the verdict. */
function sessionResult(
  plan: CampaignPlan,
  campaign: CampaignResult,
  wallMs: number,
  determinism: DeterminismReport | null,
  after: AfterCampaignOutput | null,
): CampaignSessionResult {
  return {
    campaign,
    wallMs,
    shrunk: after?.shrunk ?? null,
    failingSeedFiles: after?.failingSeedFiles ?? null,
    determinism,
    expectationMet: campaign.verdict.met && !campaign.interrupted && (determinism?.mismatches.length ?? 0) === 0,
    interrupted: campaign.interrupted,
    interruptedAfterRuns: after === null,
    outputProblems: [...plan.outputProblems],
  };
}
