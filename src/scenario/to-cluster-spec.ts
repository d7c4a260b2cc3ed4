import type { LinkFaults } from "../sim/network.js";
import type { ClusterSpec, Range } from "../kafka/cluster-spec.js";
import type { ReleaseFlags } from "../kafka/release.js";
import type { Scenario } from "./schema.js";

/** Probabilities are written as decimals in scenarios and used as parts per million in the model. */
export function ppm(probability: number): number {
  return Math.round(probability * 1_000_000);
}

function range([min, max]: readonly [number, number]): Range {
  return { min, max };
}

function linkFaults(f: Scenario["faults"]["network"]): LinkFaults {
  return {
    delay: {
      minMs: f.delayMs[0],
      maxMs: f.delayMs[1],
      slowPpm: ppm(f.slow.probability),
      slowMinMs: f.slow.delayMs[0],
      slowMaxMs: f.slow.delayMs[1],
    },
    dropPpm: ppm(f.drop),
    duplicatePpm: ppm(f.duplicate),
    reorderPpm: ppm(f.reorder),
  };
}

/** The model's view of a scenario (plus global flag overrides such as a mutant's). */
export function toClusterSpec(s: Scenario, globalOverrides: Partial<ReleaseFlags> = {}): ClusterSpec {
  const c = s.cluster.config;
  const w = s.workload;
  const f = s.faults;
  return {
    coordinators: s.cluster.coordinators.map((n) => ({
      id: n.id,
      release: n.release,
      overrides: n.overrides as Partial<ReleaseFlags>,
    })),
    brokers: s.cluster.brokers.map((n) => ({
      id: n.id,
      release: n.release,
      overrides: n.overrides as Partial<ReleaseFlags>,
    })),
    topics: s.cluster.topics.map((t) => ({ name: t.name, leaders: [...t.leaders] })),
    broker: {
      requestTimeoutMs: c.requestTimeoutMs,
      reconnectBackoffMs: c.reconnectBackoffMs,
      transactionMaxTimeoutMs: c.transactionMaxTimeoutMs,
      abortTimedOutTransactionCleanupIntervalMs: c.abortTimedOutTransactionCleanupIntervalMs,
      finalizedTransactionVersion: s.cluster.transactionVersion,
      txnLogAppendDelayMs: range(c.txnLogAppendDelayMs),
      txnLogAppendFailurePpm: ppm(c.txnLogAppendFailureProbability),
      txnLogLoadDelayMs: c.txnLogLoadDelayMs,
      replicationDelayMs: range(c.replicationDelayMs),
      txnLogAppendRetryBackoffMs: c.txnLogAppendRetryBackoffMs,
    },
    producers: {
      // A scripted scenario brings its own producers (script.producers); the fuzzed workload is off.
      count: s.script ? 0 : w.producers,
      transactionVersion: w.transactionVersion,
      transactions: w.transactions,
      recordsPerTxn: range(w.recordsPerTxn),
      partitionsPerTxn: range(w.partitionsPerTxn),
      abortPpm: ppm(w.abortRatio),
      thinkMs: range(w.thinkMs),
      startMs: range(w.startMs),
      transactionTimeoutMs: w.transactionTimeoutMs,
      requestTimeoutMs: w.requestTimeoutMs,
      retryBackoffMs: w.retryBackoffMs,
      maxAttempts: w.maxAttempts,
      initialProducerEpoch: w.initialProducerEpoch,
    },
    consumers: {
      count: s.script ? 0 : w.consumers,
      pollIntervalMs: w.consumerPollIntervalMs,
      requestTimeoutMs: w.requestTimeoutMs,
    },
    faults: {
      windowMs: f.windowMs,
      network: linkFaults(f.network),
      markerRequests: f.markerRequests ? linkFaults(f.markerRequests) : null,
      nemesisTickMs: f.nemesisTickMs,
      brokerStall: { ppm: ppm(f.brokerStall.probability), durationMs: range(f.brokerStall.durationMs) },
      linkPartition: {
        ppm: ppm(f.linkPartition.probability),
        durationMs: range(f.linkPartition.durationMs),
        oneWayPpm: ppm(f.linkPartition.oneWayProbability),
      },
      coordinatorFailover: {
        ppm: ppm(f.coordinatorFailover.probability),
        resignDelayMs: range(f.coordinatorFailover.resignDelayMs),
      },
      producerPause: { ppm: ppm(f.producerPause.probability), durationMs: range(f.producerPause.durationMs) },
      producerRestart: {
        ppm: ppm(f.producerRestart.probability),
        zombiePauseMs: range(f.producerRestart.zombiePauseMs),
      },
      upgrades: f.upgrades.map((u) => ({ atMs: u.atMs, node: u.node, release: u.release })),
    },
    bounds: {
      maxEvents: s.bounds.maxEvents,
      workloadDeadlineMs: s.bounds.workloadDeadlineMs,
      quietPeriodMs: s.bounds.quietPeriodMs,
    },
    globalOverrides,
  };
}
