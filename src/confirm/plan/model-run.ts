import type { LogObserverFactory } from "../../kafka/broker/partition-log-observer.js";
import type { PartitionKey } from "../../kafka/common/types.js";
import type { ReleaseName } from "../../kafka/release.js";
import type { Violation } from "../../oracle/violation.js";
import { runConfigFor } from "../../fuzz/campaign/campaign.js";
import { runSeed } from "../../fuzz/run/run-seed.js";
import { readSeedFile } from "../../fuzz/seeds/seed-file.js";
import { shrinkOne } from "../../fuzz/shrink/shrink-seed.js";
import { targetOf } from "../../fuzz/shrink/shrink.js";
import type { LoadedScenario } from "../../scenario/loader.js";
import { InputError } from "../../common/input-error.js";
import type { Tape } from "../../sim/choice-tape.js";
import type { TraceEvent } from "../../sim/trace.js";

/** A data batch a leader appended for a client in the model: what the plan's sends replay. */
export interface ModelAppend {
  broker: string;
  partition: PartitionKey;
  baseOffset: number;
  values: readonly string[];
}

/** The model's run of a counterexample: every trace event, and the records of every appended batch. */
export interface ModelRun {
  scenario: LoadedScenario;
  tape: Tape;
  /** Where the counterexample came from: a seed file, or a scenario's seed shrunk here. */
  source: string;
  trace: TraceEvent[];
  appends: ModelAppend[];
  violations: Violation[];
  traceHash: string;
}

/** Re-run a tape with every trace event and every client batch a leader appended. */
export function runModel(scenario: LoadedScenario, tape: Tape, source: string): ModelRun {
  const appends: ModelAppend[] = [];
  const observers: LogObserverFactory = {
    forReplica(broker, partition) {
      return {
        onOperation(op) {
          if (op.kind === "data" && op.result.kind === "appended" && (op.input.origin ?? "CLIENT") === "CLIENT")
            appends.push({ broker, partition, baseOffset: op.result.batch.baseOffset, values: op.result.batch.values });
        },
      };
    },
  };
  const run = runSeed(runConfigFor(scenario), { tape }, { recordTrace: true, logObservers: observers });
  return {
    scenario,
    tape,
    source,
    trace: run.trace ?? [],
    appends,
    violations: run.violations,
    traceHash: run.traceHash,
  };
}

/** A seed file's counterexample (shrunk or not: it is played as recorded). */
export function modelRunOfSeedFile(file: string): ModelRun {
  const loaded = readSeedFile(file);
  if (loaded.seedFile.mutant !== null)
    throw new InputError(file, "mutant", `recorded under mutant ${loaded.seedFile.mutant}: real Kafka has no mutants`);
  if (Object.keys(loaded.seedFile.overrides).length > 0)
    throw new InputError(
      file,
      "overrides",
      "the seed overrides release flags of the model: real Kafka has no such switches",
    );
  if (loaded.seedFile.shaping)
    throw new InputError(
      file,
      "shaping",
      "the seed was shaped by a search strategy (swarm or PCT): confirm plays plain tapes only",
    );
  return runModel(loaded.scenario, loaded.seedFile.tape as Tape, file);
}

/**
 * A scenario's seed: its first violation, shrunk (within budgetMs) to the minimal counterexample
 * the plan replays. A seed without a violation is played as it is (a real cluster should be clean).
 */
export function modelRunOfSeed(scenario: LoadedScenario, seed: number, budgetMs: number): ModelRun {
  const run = runSeed(runConfigFor(scenario), { seed }, { recordTape: true });
  const first = run.violations.find((v) => v.kind !== "model-timeout");
  if (!first) return runModel(scenario, run.tape ?? {}, `${scenario.scenario.name} seed ${seed}`);
  const shrunk = shrinkOne({ scenario, overrides: {}, tape: run.tape ?? {}, seed, target: targetOf(first), budgetMs });
  return runModel(shrunk.scenario, shrunk.tape, `${scenario.scenario.name} seed ${seed}, shrunk (${shrunk.stoppedBy})`);
}

/** A seed's schedule as drawn, violations or not (confirm --random plays schedules, not counterexamples). */
export function modelRunOfDrawnSeed(scenario: LoadedScenario, seed: number): ModelRun {
  const run = runSeed(runConfigFor(scenario), { seed }, { recordTape: true });
  return runModel(scenario, run.tape ?? {}, `${scenario.scenario.name} seed ${seed} (drawn at random)`);
}

/**
 * The model's run of the same tape on another cluster: every broker on another release profile
 * (--all-brokers), another finalized transaction.version (--transaction-version), or both.
 */
export function withCluster(
  run: ModelRun,
  change: { profile: ReleaseName | null; transactionVersion: 0 | 1 | 2 | null },
): ModelRun {
  const scenario = structuredClone(run.scenario);
  const cluster = scenario.scenario.cluster;
  if (change.profile !== null) for (const b of cluster.brokers) b.release = change.profile;
  if (change.transactionVersion !== null) cluster.transactionVersion = change.transactionVersion;
  const what = [
    ...(change.profile !== null ? [`every broker on ${change.profile}`] : []),
    ...(change.transactionVersion !== null ? [`transaction.version ${change.transactionVersion}`] : []),
  ];
  return runModel(scenario, run.tape, `${run.source}, ${what.join(", ")}`);
}

/**
 * What one run of this tape costs the simulator: milliseconds of wall time per run (the mean of
 * `runs`, after as many to warm the JIT), and the virtual time it covers. The figure beside a real
 * run's wall time is the simulator's speed-up over real Kafka, measured in the same process.
 */
export function simulatorCost(run: ModelRun, runs = 20): { msPerRun: number; virtualMs: number } {
  const config = runConfigFor(run.scenario);
  let virtualMs = 0;
  for (let i = 0; i < runs; i++) virtualMs = runSeed(config, { tape: run.tape }).stats.virtualTimeMs;
  const started = performance.now();
  for (let i = 0; i < runs; i++) runSeed(config, { tape: run.tape });
  return { msPerRun: (performance.now() - started) / runs, virtualMs };
}
