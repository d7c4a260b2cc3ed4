import type { ReleaseFlags } from "../../kafka/release.js";
import type { Violation } from "../../oracle/violation.js";
import type { StepRecord } from "../../scenario/script/script-driver.js";
import type { TraceEvent } from "../../sim/trace.js";
import { TOOL_VERSION } from "../../version.js";
import { runConfigFor } from "../campaign/campaign.js";
import { type RunResult, runSeed } from "../run/run-seed.js";
import {
  decodeFingerprints,
  type LoadedSeedFile,
  type RecordedViolation,
  readSeedFile,
  traceFingerprints,
} from "./seed-file.js";

/**
 * reproduced: the same trace hash as recorded. trace-changed: the hash differs but every recorded
 * violation happens again (the model changed around it). diverged: the recorded violation is gone.
 */
export type ReplayStatus = "reproduced" | "trace-changed" | "diverged";

/** Where a replay parts from the recorded run. */
export interface Divergence {
  /** The first event whose hash differs, when known exactly. */
  eventIndex: number | null;
  /** The events between which the hashes part (equal bounds when exact). */
  fromEvent: number;
  toEvent: number;
  /** The replay's event at eventIndex (or at fromEvent), if the replay got that far. */
  replayed: TraceEvent | null;
  /** The recorded run's event there, when the recorded run could be rebuilt from its seed. */
  recorded: TraceEvent | null;
  /** How the location was found. */
  how: string;
}

/** The result of replaying a seed file: a plain object (rendered by the terminal, JSON and HTML reports). */
export interface ReplayResult {
  file: string;
  scenario: string;
  scenarioHash: string;
  recordedScenarioHash: string;
  seed: number | null;
  mutant: string | null;
  status: ReplayStatus;
  reproduced: boolean;
  violationReproduced: boolean;
  traceHash: string;
  recordedTraceHash: string;
  /** Trace events of the replay and of the recorded run. */
  events: number;
  recordedEvents: number;
  divergence: Divergence | null;
  violations: Violation[];
  recordedViolations: RecordedViolation[];
  toolVersion: string;
  recordedToolVersion: string;
  /** Things worth saying that do not decide the status (edited scenario, other tool version). */
  notes: string[];
  /** Every trace event of the replay, in order. */
  trace: TraceEvent[];
  /** Scripted scenarios: the replay's step log. */
  scriptSteps: StepRecord[] | null;
}

/** Replay a seed file by path (see replaySeed). Bad files throw InputError. */
export function replay(file: string): ReplayResult {
  return replaySeed(readSeedFile(file));
}

/** Re-run the recorded tape, check the trace hash, and locate any divergence. */
export function replaySeed(loaded: LoadedSeedFile): ReplayResult {
  const { seedFile } = loaded;
  const config = {
    ...runConfigFor(loaded.scenario, seedFile.overrides as Partial<ReleaseFlags>),
    ...(seedFile.shaping ? { shaping: seedFile.shaping } : {}),
  };
  const run = runSeed(config, { tape: seedFile.tape }, { recordTrace: true });
  const trace = run.trace ?? [];
  const reproduced = run.traceHash === seedFile.traceHash;
  const violationReproduced = seedFile.violations.every((r) => run.violations.some((v) => sameViolation(r, v)));
  const status: ReplayStatus = reproduced ? "reproduced" : violationReproduced ? "trace-changed" : "diverged";
  const notes: string[] = [];
  const settings = loaded.scenario.settings ?? [];
  if (settings.length > 0)
    notes.push(
      `replayed with ${settings.map((s) => `--set ${s}`).join(" ")}: a changed scenario, so the trace may differ from the recorded one`,
    );
  else if (loaded.scenario.contentHash !== seedFile.scenario.contentHash) {
    notes.push(
      `the inline scenario hashes to ${loaded.scenario.contentHash}, not the recorded ${seedFile.scenario.contentHash}: it was edited, or the schema gained fields since`,
    );
  }
  if (seedFile.tool.version !== TOOL_VERSION)
    notes.push(`recorded with ${seedFile.tool.name} ${seedFile.tool.version}, replayed with ${TOOL_VERSION}`);
  return {
    file: loaded.file,
    scenario: seedFile.scenario.name,
    scenarioHash: loaded.scenario.contentHash,
    recordedScenarioHash: seedFile.scenario.contentHash,
    seed: seedFile.seed,
    mutant: seedFile.mutant,
    status,
    reproduced,
    violationReproduced,
    traceHash: run.traceHash,
    recordedTraceHash: seedFile.traceHash,
    events: run.stats.traceEvents,
    recordedEvents: seedFile.traceEvents,
    divergence: reproduced ? null : locateDivergence(loaded, trace, run),
    violations: run.violations,
    recordedViolations: seedFile.violations,
    toolVersion: TOOL_VERSION,
    recordedToolVersion: seedFile.tool.version,
    notes,
    trace,
    scriptSteps: run.script?.steps ?? null,
  };
}

function sameViolation(recorded: RecordedViolation, v: Violation): boolean {
  return (
    v.kind === recorded.kind && (recorded.brokerRelease === undefined || v.brokerRelease === recorded.brokerRelease)
  );
}

function locateDivergence(loaded: LoadedSeedFile, trace: readonly TraceEvent[], run: RunResult): Divergence {
  const { seedFile } = loaded;
  // The recorded run rebuilt from its seed gives every recorded event, if the model still produces it.
  if (seedFile.seed !== null) {
    const original = runSeed(
      runConfigFor(loaded.scenario, seedFile.overrides as Partial<ReleaseFlags>),
      { seed: seedFile.seed },
      { recordTrace: true },
    );
    if (original.traceHash === seedFile.traceHash && original.trace) {
      const index = firstDifference(original.trace, trace);
      return {
        eventIndex: index,
        fromEvent: index,
        toEvent: index,
        replayed: trace[index] ?? null,
        recorded: original.trace[index] ?? null,
        how: `compared event by event with the recorded run, rebuilt from seed ${seedFile.seed}`,
      };
    }
  }
  const recorded = decodeFingerprints(seedFile.fingerprints.data);
  const every = seedFile.fingerprints.every;
  const replayed = traceFingerprints(trace, seedFile.traceEvents).values;
  let k = 0;
  while (k < recorded.length && k < replayed.length && recorded[k] === replayed[k]) k++;
  const fromEvent = k * every;
  const toEvent =
    k < recorded.length
      ? (k + 1) * every - 1
      : Math.max(fromEvent, Math.max(run.stats.traceEvents, seedFile.traceEvents) - 1);
  const exact = fromEvent === toEvent;
  return {
    eventIndex: exact ? fromEvent : null,
    fromEvent,
    toEvent,
    replayed: trace[fromEvent] ?? null,
    recorded: null,
    how: exact
      ? "from the recorded per-event hash fingerprints"
      : `from the recorded hash fingerprints (one per ${every} events)`,
  };
}

function firstDifference(a: readonly TraceEvent[], b: readonly TraceEvent[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if ((a[i] as TraceEvent).hash !== (b[i] as TraceEvent).hash) return i;
  return n;
}
