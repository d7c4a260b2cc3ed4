import type { CoveragePoint } from "../../oracle/protocol-coverage.js";
import type { Violation } from "../../oracle/violation.js";
import type { StepRecord } from "../../scenario/script/script-driver.js";
import type { Tape } from "../../sim/choice-tape.js";
import type { LateCopyTarget } from "../run/late-copy-finder.js";
import { type RunConfig, type RunInput, type RunResult, runSeed } from "../run/run-seed.js";

/** One run to execute: its place in the campaign, its input, and what to bring back. */
export interface RunJob {
  /** Position in the campaign (the seed, for seed strategies): results are ordered by it. */
  index: number;
  input: RunInput;
  /** Bring back the choice tape (coverage corpus, exhaustive search, findings). */
  recordTape?: boolean;
  /** Bring back where on the tape each coverage point began (coverage strategy). */
  coveragePositions?: boolean;
  /** Bring back every choice point from this one on (global choice number), with its fingerprint (exhaustive). */
  choicePointsFrom?: number;
}

/** A choice point a run went through: which tape entry, how many options, the state's fingerprint. */
export interface VisitedChoice {
  stream: string;
  index: number;
  options: number;
  fingerprint: string;
}

/** What a run brings back: small, structured-clone friendly, no trace events. */
export interface JobOutcome {
  index: number;
  seed: number | null;
  traceHash: string;
  violations: Violation[];
  events: number;
  virtualTimeMs: number;
  choices: number;
  coverage: CoveragePoint[];
  /** With coveragePositions: the run's late-copy targets (coverage strategy). */
  lateCopies: LateCopyTarget[] | null;
  shaping: string | null;
  tape: Tape | null;
  /** The choice points from choicePointsFrom on, in the order the run made them. */
  choicePoints: VisitedChoice[] | null;
  /** Scripted scenarios: the run's step log and whether every step passed. */
  script: { steps: StepRecord[]; completed: boolean } | null;
}

/** Trace hash reported for a run that never finished (it has none). */
export const NO_TRACE_HASH = "none";

/** Run one job in this thread (workers call this too, so a result never depends on where it ran). */
export function executeJob(config: RunConfig, job: RunJob): JobOutcome {
  const from = job.choicePointsFrom;
  const choicePoints: VisitedChoice[] | null = from === undefined ? null : [];
  let seen = 0;
  const result = runSeed(config, job.input, {
    recordTape: !!job.recordTape,
    coveragePositions: !!job.coveragePositions,
    ...(choicePoints !== null && from !== undefined
      ? {
          onChoicePoint: (p) => {
            if (seen++ >= from)
              choicePoints.push({ stream: p.stream, index: p.index, options: p.options, fingerprint: p.fingerprint() });
          },
        }
      : {}),
  });
  return outcomeOf(result, job.index, choicePoints);
}

/** The part of a RunResult a campaign keeps. */
export function outcomeOf(result: RunResult, index: number, choicePoints: VisitedChoice[] | null = null): JobOutcome {
  return {
    index,
    seed: result.seed,
    traceHash: result.traceHash,
    violations: result.violations,
    events: result.stats.events,
    virtualTimeMs: result.stats.virtualTimeMs,
    choices: result.stats.choices,
    coverage: result.coverage,
    lateCopies: result.lateCopies,
    shaping: result.shaping,
    tape: result.tape,
    choicePoints,
    script: result.script ? { steps: result.script.steps, completed: result.script.completed } : null,
  };
}

/** The outcome standing for a run that hung past its bound or took its worker down. */
export function unfinishedOutcome(job: RunJob, summary: string, explanation: string[]): JobOutcome {
  return {
    index: job.index,
    seed: "seed" in job.input ? job.input.seed : null,
    traceHash: NO_TRACE_HASH,
    violations: [{ kind: "model-timeout", summary, explanation, atMs: 0 }],
    events: 0,
    virtualTimeMs: 0,
    choices: 0,
    coverage: [],
    lateCopies: null,
    shaping: null,
    tape: job.recordTape && "tape" in job.input && job.input.continueSeed === undefined ? job.input.tape : null,
    choicePoints: null,
    script: null,
  };
}
