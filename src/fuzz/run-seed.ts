import { IllegalStateException } from "../kafka/common/errors.js";
import { Cluster } from "../kafka/cluster.js";
import type { ClusterSpec } from "../kafka/cluster-spec.js";
import { GhostLedger } from "../oracle/ghost-ledger.js";
import { checkClientView } from "../oracle/client/client-checks.js";
import { checkLiveness } from "../oracle/liveness.js";
import type { Violation } from "../oracle/violation.js";
import { runScript, type ScriptRun } from "../scenario/script-driver.js";
import type { Script } from "../scenario/script-schema.js";
import { ChoiceSource, type Tape } from "../sim/choice-tape.js";
import { Simulation } from "../sim/simulation.js";
import { Trace, type TraceEvent } from "../sim/trace.js";

/** What one run needs: the scenario's name (for reports), the cluster it builds, and its script if scripted. */
export interface RunConfig {
  scenario: string;
  spec: ClusterSpec;
  /** A scripted scenario's steps (instead of the fuzzed workload). */
  script?: Script | null;
}

export type RunInput = { seed: number } | { tape: Readonly<Tape> };

export interface RunOptions {
  /** Keep the choice tape (for saving and shrinking). */
  recordTape?: boolean;
  /** Keep every trace event (for replay and explanations). */
  recordTrace?: boolean;
  /**
   * End the run at the first violation this accepts (no quiet phase, no final checks). The result's
   * `stoppedAt` holds each stream's position by then: a tape cut there replays to the same point.
   */
  stopWhen?: (v: Violation) => boolean;
}

export interface RunStats {
  events: number;
  traceEvents: number;
  virtualTimeMs: number;
  choices: number;
  transactionsStarted: number;
  markersApplied: number;
  markersRejected: number;
  txnLogAppends: number;
  stop: string;
}

export interface RunResult {
  scenario: string;
  seed: number | null;
  traceHash: string;
  violations: Violation[];
  stats: RunStats;
  tape: Tape | null;
  trace: TraceEvent[] | null;
  /** With `stopWhen`: each stream's position when the accepted violation was reported (else null). */
  stoppedAt: Record<string, number> | null;
  /** The step log of a scripted scenario (null for a fuzzed one). */
  script: ScriptRun | null;
}

/**
 * One run: a pure function of (config, seed | tape). Everything else (campaigns, workers, shards,
 * shrinking, replay) is built on it.
 */
export function runSeed(config: RunConfig, input: RunInput, options: RunOptions = {}): RunResult {
  const choices = "seed" in input ? ChoiceSource.seeded(input.seed, { record: !!options.recordTape }) : ChoiceSource.replaying(input.tape, { record: !!options.recordTape });
  const trace = new Trace({ record: !!options.recordTrace });
  const sim = new Simulation(trace);
  const ledger = new GhostLedger();
  let cluster: Cluster | null = null;
  let stop = "error";
  let stoppedAt: Record<string, number> | null = null;
  if (options.stopWhen) {
    const accept = options.stopWhen;
    ledger.onReport = (v) => {
      if (stoppedAt === null && accept(v)) stoppedAt = choices.positions();
    };
  }
  let script: ScriptRun | null = null;
  try {
    cluster = new Cluster(config.spec, sim, choices, ledger);
    // A script that stopped at a failed step skips the final checks: its cluster was left mid-race.
    let checkFinalState = true;
    const abort = () => stoppedAt !== null;
    if (config.script) {
      script = runScript(cluster, ledger, config.script, abort);
      stop = script.stop;
      checkFinalState = script.completed;
    } else {
      stop = cluster.run(abort).stop;
    }
    if (stoppedAt !== null) {
      // Stopped at the accepted violation: the run is incomplete by design, no final checks.
    } else if (stop === "max-events") {
      ledger.report(modelError(`the run exceeded ${config.spec.bounds.maxEvents} events (bound of the scenario)`, sim.nowMs, []));
    } else if (checkFinalState) {
      for (const v of checkLiveness(ledger, cluster.snapshot(), sim.nowMs)) ledger.report(v);
      const view = { finalReads: cluster.finalReads(), consumers: cluster.consumerObservations(), endMs: sim.nowMs };
      for (const v of checkClientView(ledger, view)) ledger.report(v);
    }
  } catch (e) {
    const error = e as Error;
    const where = error instanceof IllegalStateException ? "IllegalStateException in the model" : `${error.name} in the model`;
    ledger.report(modelError(`${where}: ${error.message}`, sim.nowMs, (error.stack ?? "").split("\n").slice(1, 6).map((l) => l.trim())));
  }
  return {
    scenario: config.scenario,
    seed: "seed" in input ? input.seed : null,
    traceHash: trace.hash(),
    violations: ledger.violations,
    stats: {
      events: sim.eventsFired,
      traceEvents: trace.count,
      virtualTimeMs: sim.nowMs,
      choices: choices.count,
      transactionsStarted: cluster ? cluster.producers.reduce((n, p) => n + p.transactionsStarted, 0) : 0,
      markersApplied: ledger.markersApplied,
      markersRejected: ledger.markersRejected,
      txnLogAppends: cluster ? cluster.log.appendCount : 0,
      stop,
    },
    tape: options.recordTape ? choices.tape() : null,
    trace: trace.events,
    stoppedAt,
    script,
  };
}

function modelError(summary: string, atMs: number, explanation: string[]): Violation {
  return { kind: "model-error", summary, explanation, atMs };
}
