import type { LogObserverFactory } from "../../kafka/broker/partition-log-observer.js";
import {
  IllegalStateException,
  OutOfOrderSequenceException,
  TransactionCoordinatorFencedException,
} from "../../kafka/common/errors.js";
import { BoundExceeded } from "../../sim/bounds.js";
import { Cluster } from "../../kafka/cluster.js";
import type { ClusterSpec } from "../../kafka/cluster-spec.js";
import { releaseProfile } from "../../kafka/release.js";
import { GhostLedger } from "../../oracle/ghost-ledger.js";
import { checkProcessing } from "../../oracle/processing.js";
import { checkClientView } from "../../oracle/client/client-checks.js";
import { checkLiveness } from "../../oracle/liveness.js";
import type { Violation } from "../../oracle/violation.js";
import { type CoveragePoint, ProtocolCoverageRecorder, teeGhost } from "../../oracle/protocol-coverage.js";
import { runScript, type ScriptRun } from "../../scenario/script/script-driver.js";
import type { Script } from "../../scenario/script/script-schema.js";
import { type ChoicePointObserver, ChoiceSource, type ChoiceSourceOptions, type Tape } from "../../sim/choice-tape.js";
import { Simulation } from "../../sim/simulation.js";
import { hashIntegers, Trace, type TraceEvent } from "../../sim/trace.js";
import { type PctParams, PctDeliveryPolicy } from "../run-shaping/pct.js";
import { drawEverything, drawnReason, type EverythingDraw } from "../run-shaping/everything.js";
import { drawSwarm } from "../run-shaping/swarm.js";
import { LateCopyFinder, type LateCopyTarget } from "./late-copy-finder.js";

/** How a search strategy shapes each run beyond the scenario (plain data: it goes to workers and seed files). */
export interface RunShaping {
  /** Swarm testing: the run first draws which fault kinds are on and their rates (stream "swarm"). */
  swarm?: boolean;
  /** PCT: delivery priorities with change points on the scoped messages. */
  pct?: PctParams;
}

/** What one run needs: the scenario's name (for reports), the cluster it builds, its script if scripted, and its shaping. */
export interface RunConfig {
  scenario: string;
  spec: ClusterSpec;
  /** A scripted scenario's steps (instead of the fuzzed workload). */
  script?: Script | null;
  shaping?: RunShaping;
}

/** A seed, or a tape (read past each stream's end as 0, or as seeded draws from continueSeed). */
export type RunInput = { seed: number } | { tape: Readonly<Tape>; continueSeed?: number };

/** A choice about to be made, as a search sees it: which, how many options, the run's state there. */
export interface ChoicePoint {
  stream: string;
  /** Position of the choice in its stream (a tape entry tape[stream][index]). */
  index: number;
  options: number;
  /**
   * A fingerprint of the run's state at this choice: the trace so far, how far ahead each pending
   * event is due, and the choices drawn since the last trace event (code between two events may
   * draw several in a row, each depending on the one before).
   */
  fingerprint: () => string;
}

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
  /** Called before each choice (exhaustive search). */
  onChoicePoint?: (point: ChoicePoint) => void;
  /** Record each coverage point's stream positions (for the coverage strategy's mutations). */
  coveragePositions?: boolean;
  /** Hear every call of every replica's log (trace validation against Kafka's classes). */
  logObservers?: LogObserverFactory;
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
  /** Option count of each tape entry, per stream (with recordTape). */
  optionCounts: Record<string, number[]> | null;
  /** Abstract protocol states the run reached. */
  coverage: CoveragePoint[];
  /** With coveragePositions: marker copies a late duplicate could have turned stale (coverage strategy). */
  lateCopies: LateCopyTarget[] | null;
  /** What the strategy drew for this run (swarm fault mix, PCT change points), or null. */
  shaping: string | null;
  /** Under PCT: how many scoped messages the run sent while faults were on, over how many chains. */
  pctScope: { messages: number; chains: number } | null;
}

/** The KAFKA-20785 error-class contract, promised by any broker's release (with the run's overrides). */
function promisesFencedCommitProducerFenced(spec: ClusterSpec): boolean {
  return spec.brokers.some(
    (b) =>
      releaseProfile(b.release, { ...b.overrides, ...spec.globalOverrides }).flags.promisesFencedCommitProducerFenced,
  );
}

/**
 * One run: a pure function of (config, seed | tape). Everything else (campaigns, workers, shards,
 * shrinking, replay) is built on it.
 */
export function runSeed(config: RunConfig, input: RunInput, options: RunOptions = {}): RunResult {
  const trace = new Trace({ record: !!options.recordTrace });
  const sim = new Simulation(trace);
  const choices = choiceSourceFor(input, options, sim, trace);
  const ledger = new GhostLedger({ fencedCommitContract: promisesFencedCommitProducerFenced(config.spec) });
  const coverage = new ProtocolCoverageRecorder(options.coveragePositions ? () => choices.positions() : null);
  let cluster: Cluster | null = null;
  const lateCopies = options.coveragePositions ? new LateCopyFinder((stream) => choices.positionOf(stream)) : null;
  let stop = "error";
  let shaping: string | null = null;
  let pct: PctDeliveryPolicy | null = null;
  let stoppedAt: Record<string, number> | null = null;
  let drawn: EverythingDraw | null = null;
  if (options.stopWhen) {
    const accept = options.stopWhen;
    ledger.onReport = (v) => {
      // A generic scenario's mark is part of what the violation is (a shrink keeps it as it was).
      if (drawn) markDrawnExpectations([v], drawn);
      if (stoppedAt === null && accept(v)) stoppedAt = choices.positions();
    };
  }
  let script: ScriptRun | null = null;
  try {
    drawn = config.spec.draw === "everything" ? drawEverything(config.spec, choices) : null;
    const base = drawn ? drawn.spec : config.spec;
    const swarm = config.shaping?.swarm ? drawSwarm(base, choices) : null;
    cluster = new Cluster(
      swarm ? swarm.spec : base,
      sim,
      choices,
      teeGhost(lateCopies ? [ledger, coverage, lateCopies] : [ledger, coverage]),
      options.logObservers ? { logObservers: options.logObservers } : {},
    );
    pct = config.shaping?.pct ? new PctDeliveryPolicy(config.shaping.pct, choices) : null;
    cluster.net.deliveryPolicy = pct;
    cluster.net.transmitObserver = lateCopies;
    shaping = [drawn?.summary, swarm?.summary].filter((x) => x !== undefined).join("; ") || null;
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
    if (pct) shaping = pct.summary();
    if (stoppedAt !== null) {
      // Stopped at the accepted violation: the run is incomplete by design, no final checks.
    } else if (stop === "max-events") {
      ledger.report(
        modelError(
          `the run exceeded ${config.spec.bounds.maxEvents} events (bounds.maxEvents of the scenario)`,
          sim.nowMs,
          [
            "the scenario caps the events of one run; a workload that needs more is stopped and reported here rather than run without end",
            "raise bounds.maxEvents if the workload needs more (the most is LIMITS.maxEvents), else the model loops: a bug of eosfuzz",
          ],
        ),
      );
    } else if (checkFinalState) {
      for (const v of checkLiveness(ledger, cluster.snapshot(), sim.nowMs)) ledger.report(v);
      const view = { finalReads: cluster.finalReads(), consumers: cluster.consumerObservations(), endMs: sim.nowMs };
      for (const v of checkClientView(ledger, view)) ledger.report(v);
      const processing = cluster.processingView();
      if (processing) for (const v of checkProcessing(processing, view.finalReads, sim.nowMs)) ledger.report(v);
    }
  } catch (e) {
    if (e instanceof BoundExceeded) ledger.report(boundError(e, sim.nowMs));
    else reportModelException(ledger, e as Error, sim.nowMs);
  }
  if (drawn) markDrawnExpectations(ledger.violations, drawn);
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
      txnLogAppends: cluster ? cluster.txnLogAppendCount : 0,
      stop,
    },
    tape: options.recordTape ? choices.tape() : null,
    trace: trace.events,
    stoppedAt,
    script,
    optionCounts: options.recordTape ? choices.optionCounts() : null,
    coverage: coverage.reached(),
    lateCopies: lateCopies?.targets() ?? null,
    shaping,
    pctScope: pct ? { messages: pct.scopedMessages, chains: pct.chains } : null,
  };
}

/** A generic scenario's seed: mark the violations Kafka itself shows under what it drew (their reason). */
function markDrawnExpectations(violations: Violation[], drawn: EverythingDraw): void {
  for (const v of violations) {
    const reason = drawnReason(drawn, v, violations);
    if (reason !== null) v.expectedBy = reason;
  }
}

function choiceSourceFor(input: RunInput, options: RunOptions, sim: Simulation, trace: Trace): ChoiceSource {
  const sourceOptions: ChoiceSourceOptions = { record: !!options.recordTape };
  const reporter = options.onChoicePoint ? new ChoicePointReporter(sim, trace, options.onChoicePoint) : null;
  if (reporter) sourceOptions.observer = reporter;
  const choices =
    "seed" in input
      ? ChoiceSource.seeded(input.seed, sourceOptions)
      : ChoiceSource.replaying(
          input.tape,
          input.continueSeed === undefined ? sourceOptions : { ...sourceOptions, continueSeed: input.continueSeed },
        );
  if (reporter) reporter.choices = choices;
  return choices;
}

/** Hands each choice point to a search (RunOptions.onChoicePoint), with how to fingerprint the run's state there. */
class ChoicePointReporter implements ChoicePointObserver {
  /** Set once the source exists (it is built with this observer). */
  choices: ChoiceSource | null = null;
  private traceCount = -1;
  /** The options chosen since the last trace event (they shape the state as much as the events do). */
  private readonly sinceEvent: number[] = [];

  constructor(
    private readonly sim: Simulation,
    private readonly trace: Trace,
    private readonly observe: (point: ChoicePoint) => void,
  ) {}

  choicePoint(stream: string, index: number, n: number): void {
    const { sim, trace, sinceEvent } = this;
    if (trace.count !== this.traceCount) {
      this.traceCount = trace.count;
      sinceEvent.length = 0;
    } else {
      sinceEvent.push((this.choices as ChoiceSource).lastOption);
    }
    this.observe({
      stream,
      index,
      options: n,
      fingerprint: () =>
        hashIntegers([...sim.pendingDelaysMs(), -1, ...sinceEvent, -1, n], `${trace.hash()}:${stream}`),
    });
  }
}

/** An exception inside the model: a bug of eosfuzz (Kafka's own invariant checks throw IllegalStateException). */
function reportModelException(ledger: GhostLedger, error: Error, atMs: number): void {
  const where =
    error instanceof IllegalStateException ? "IllegalStateException in the model" : `${error.name} in the model`;
  const functions = thrownIn(error.stack ?? "");
  // The exceptions Kafka's replica path throws, which only a bug switch makes the model throw
  // (KAFKA-6003, KAFKA-9144): in Kafka they kill the replica fetcher thread or fail the log's recovery.
  const kafkaCrash =
    error instanceof OutOfOrderSequenceException || error instanceof TransactionCoordinatorFencedException;
  ledger.report(
    modelError(`${where}: ${error.message.split("\n")[0]}`, atMs, [
      kafkaCrash
        ? "Kafka's own check threw on the replica path: in Kafka this stops the replica fetcher thread or the log's recovery (a crash of the broker's replication)"
        : "an exception inside eosfuzz's model of Kafka: a bug of eosfuzz, not a finding about Kafka",
      ...(functions.length > 0
        ? [`thrown in ${functions[0]}${functions.length > 1 ? ` (called from ${functions.slice(1).join(", ")})` : ""}`]
        : []),
      kafkaCrash
        ? "the bug switch that brings the check back is on (see bug-history.md); off, the model takes the batch"
        : "please report it to the eosfuzz maintainers with the replay command",
    ]),
  );
}

/**
 * The functions an exception went through, innermost first (at most 4), by name only: a report
 * says where in the model it happened, never with JavaScript stack frames (files, lines, columns).
 */
export function thrownIn(stack: string): string[] {
  const names: string[] = [];
  for (const line of stack.split("\n").slice(1)) {
    const name = /^\s*at (?:async )?(?:new )?([\w$.<>]+) \(/.exec(line)?.[1];
    if (name && !name.includes("<anonymous>") && names.at(-1) !== name) names.push(name);
    if (names.length === 4) break;
  }
  return names;
}

/** A queue of the model reached its bound: reported, never a hang or an out-of-memory. */
function boundError(e: BoundExceeded, atMs: number): Violation {
  return modelError(`the run reached a bound of the model: ${e.message}`, atMs, [
    "every queue of the model is bounded so that a runaway run is reported instead of exhausting memory or hanging",
    "either the scenario asks for more than one run can hold (lower its workload or faults), or the model loops: a bug of eosfuzz, please report it with the replay command",
  ]);
}

function modelError(summary: string, atMs: number, explanation: string[]): Violation {
  return { kind: "model-error", summary, explanation, atMs };
}
