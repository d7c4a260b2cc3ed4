import type { TraceEvent } from "../sim/trace.js";
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
export function checkDeterminism(config: RunConfig, input: RunInput, runner: Runner = recordingRunner): DeterminismVerdict {
  const a = runner(config, input);
  const b = runner(config, input);
  const ta = a.trace ?? [];
  const tb = b.trace ?? [];
  const n = Math.max(ta.length, tb.length);
  for (let i = 0; i < n; i++) {
    if (ta[i]?.hash !== tb[i]?.hash) {
      return { deterministic: false, index: i, first: ta[i] ?? null, second: tb[i] ?? null, traceHashes: [a.traceHash, b.traceHash] };
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
  return [`runs diverge at trace event #${v.index} (trace hashes ${v.traceHashes[0]} vs ${v.traceHashes[1]})`, `  first run:  ${describeEvent(v.first)}`, `  second run: ${describeEvent(v.second)}`];
}
