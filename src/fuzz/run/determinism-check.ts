import type { TraceEvent } from "../../sim/trace.js";
import { type RunConfig, type RunInput, type RunResult, runSeed } from "./run-seed.js";

export type DeterminismVerdict =
  | { deterministic: true; events: number; traceHash: string }
  | {
      deterministic: false;
      /** Index of the first trace event whose rolling hash differs. */
      index: number;
      first: TraceEvent | null;
      second: TraceEvent | null;
      traceHashes: [string, string];
    };

/** Runs one input; injectable so a test can plant nondeterminism in the second run. */
export type Runner = (config: RunConfig, input: RunInput) => RunResult;

const recordingRunner: Runner = (config, input) => runSeed(config, input, { recordTrace: true });

/**
 * Run the same input twice with full traces and compare them event by event (every event carries
 * the rolling hash up to it). On a mismatch, name the first divergent event and both versions of it.
 */
export function checkDeterminism(
  config: RunConfig,
  input: RunInput,
  runner: Runner = recordingRunner,
): DeterminismVerdict {
  const a = runner(config, input);
  const b = runner(config, input);
  const ta = a.trace ?? [];
  const tb = b.trace ?? [];
  const n = Math.max(ta.length, tb.length);
  for (let i = 0; i < n; i++) {
    if (ta[i]?.hash !== tb[i]?.hash) {
      return {
        deterministic: false,
        index: i,
        first: ta[i] ?? null,
        second: tb[i] ?? null,
        traceHashes: [a.traceHash, b.traceHash],
      };
    }
  }
  if (a.traceHash !== b.traceHash) {
    return { deterministic: false, index: n, first: null, second: null, traceHashes: [a.traceHash, b.traceHash] };
  }
  return { deterministic: true, events: ta.length, traceHash: a.traceHash };
}

export function describeEvent(e: TraceEvent | null): string {
  if (!e) return "(no event: the run ended here)";
  const fields = Object.entries(e.fields)
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return `#${e.index} t=${e.timeMs}ms ${e.node} ${e.kind} ${fields}`;
}

/** One line per side, for the terminal and for seed-file checks. */
export function describeDivergence(v: Extract<DeterminismVerdict, { deterministic: false }>): string[] {
  return [
    `runs diverge at trace event #${v.index} (trace hashes ${v.traceHashes[0]} vs ${v.traceHashes[1]})`,
    `  first run:  ${describeEvent(v.first)}`,
    `  second run: ${describeEvent(v.second)}`,
  ];
}

/** What --check-determinism adds to a run report. */
export interface DeterminismReport {
  checked: number;
  mismatches: { seed: number; lines: string[] }[];
}

/** Bound on mismatches kept (the first ones say it all). */
const MAX_MISMATCHES = 10;

/**
 * --check-determinism: every seed of a campaign runs a second time (in this thread, whatever ran it
 * the first time) and must give the same trace hash. A mismatch is run twice more with full traces
 * to name the first divergent event.
 */
export class DeterminismWatch {
  private checked = 0;
  private readonly mismatches: DeterminismReport["mismatches"] = [];

  constructor(private readonly config: RunConfig) {}

  /** A run as the campaign saw it (a RunResult, or a worker's outcome: only seed and trace hash are read). */
  check(first: Pick<RunResult, "seed" | "traceHash">): void {
    if (first.seed === null) return;
    this.checked++;
    const again = runSeed(this.config, { seed: first.seed });
    if (again.traceHash === first.traceHash || this.mismatches.length >= MAX_MISMATCHES) return;
    const verdict = checkDeterminism(this.config, { seed: first.seed });
    const lines = verdict.deterministic
      ? [
          `seed ${first.seed}: trace ${first.traceHash} in the campaign, ${again.traceHash} when run again (two further runs agreed with each other)`,
        ]
      : describeDivergence(verdict);
    this.mismatches.push({ seed: first.seed, lines });
  }

  report(): DeterminismReport {
    return { checked: this.checked, mismatches: this.mismatches };
  }
}

/** A run report with the --check-determinism verdict: any mismatch fails the expectation. */
export function addDeterminism(
  report: { determinism?: DeterminismReport; expectationMet: boolean; expectationReasons: string[] },
  determinism: DeterminismReport,
): void {
  report.determinism = determinism;
  if (determinism.mismatches.length === 0) return;
  report.expectationMet = false;
  report.expectationReasons.push(
    `nondeterminism: ${determinism.mismatches.length} seed(s) gave a different trace when run again (first: seed ${determinism.mismatches[0]?.seed})`,
  );
}
