import type { LinkFaults, NetworkModel } from "../sim/network.js";
import type { ClusterSpec, ConsumerOffsetsSpec, ProcessorRestartSpec, Range } from "../kafka/cluster-spec.js";
import { ppm } from "../kafka/faults/fault-settings.js";
import { nodeFaultSpecs } from "../kafka/faults/registry.js";
import { defaultClientRelease, type ReleaseFlags } from "../kafka/release.js";
import type { Scenario } from "./schema.js";

export { ppm } from "../kafka/faults/fault-settings.js";

function range([min, max]: readonly [number, number]): Range {
  return { min, max };
}

/** The scenario's network model. */
export function networkModel(s: Scenario): NetworkModel {
  return s.faults.network.model;
}

function linkFaults(f: NonNullable<Scenario["faults"]["markerRequests"]>, model: NetworkModel): LinkFaults {
  const faults: LinkFaults = {
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
  // Only the TCP model is written down: adversarial links stay the objects they were.
  if (model === "tcp") faults.model = model;
  return faults;
}

/** A topic's (or __transaction_state's) settings as the scenario writes them. */
interface AssignmentInput {
  partitions?: number | undefined;
  replicationFactor?: number | undefined;
  replicas?: string[][] | undefined;
}

/**
 * Each partition's replicas: the explicit assignment, else `partitions` partitions of
 * `replicationFactor` replicas (default: 3, at most the broker count) placed round robin from the
 * first broker, partition i led by broker i mod n (Kafka draws the start; the model fixes it so a
 * reader can predict the placement).
 */
export function resolveAssignment(
  input: AssignmentInput,
  brokers: readonly string[],
  defaultPartitions: number,
): { replicas: string[] }[] {
  if (input.replicas) return input.replicas.map((r) => ({ replicas: [...r] }));
  const count = input.partitions ?? defaultPartitions;
  const rf = Math.min(input.replicationFactor ?? 3, brokers.length);
  return Array.from({ length: count }, (_, i) => ({
    replicas: Array.from({ length: rf }, (_, j) => brokers[(i + j) % brokers.length] as string),
  }));
}

/** The default number of __transaction_state partitions (Kafka's is 50: only the id-to-partition mapping matters here). */
export const DEFAULT_TRANSACTION_STATE_PARTITIONS = 3;

/** The model's view of a scenario (plus global flag overrides such as a mutant's). */
export function toClusterSpec(s: Scenario, globalOverrides: Partial<ReleaseFlags> = {}): ClusterSpec {
  const c = s.cluster.config;
  const w = s.workload;
  const f = s.faults;
  const brokerIds = s.cluster.brokers.map((b) => b.id);
  const ts = s.cluster.transactionState;
  return {
    brokers: s.cluster.brokers.map((n) => ({
      id: n.id,
      release: n.release,
      overrides: n.overrides as Partial<ReleaseFlags>,
    })),
    transactionState: {
      partitions: resolveAssignment(ts, brokerIds, DEFAULT_TRANSACTION_STATE_PARTITIONS),
      minInsyncReplicas: ts.minInsyncReplicas,
    },
    topics: s.cluster.topics.map((t) => ({
      name: t.name,
      partitions: resolveAssignment(t, brokerIds, brokerIds.length),
      minInsyncReplicas: t.minInsyncReplicas,
      uncleanLeaderElectionEnable: t.uncleanLeaderElection,
    })),
    broker: {
      requestTimeoutMs: c.requestTimeoutMs,
      reconnectBackoffMs: c.reconnectBackoffMs,
      transactionMaxTimeoutMs: c.transactionMaxTimeoutMs,
      abortTimedOutTransactionCleanupIntervalMs: c.abortTimedOutTransactionCleanupIntervalMs,
      transactionalIdExpirationMs: c.transactionalIdExpirationMs,
      removeExpiredTransactionalIdsIntervalMs: c.removeExpiredTransactionalIdsIntervalMs,
      finalizedTransactionVersion: s.cluster.transactionVersion,
      txnLogLoadDelayMs: c.txnLogLoadDelayMs,
      txnLogAppendRetryBackoffMs: c.txnLogAppendRetryBackoffMs,
      addPartitionsToTxnRetryBackoffMs: c.addPartitionsToTxnRetryBackoffMs,
      addPartitionsToTxnRetryBackoffMaxMs: c.addPartitionsToTxnRetryBackoffMaxMs,
      replicaFetchWaitMaxMs: c.replicaFetchWaitMaxMs,
      replicaFetchBackoffMs: c.replicaFetchBackoffMs,
      replicaLagTimeMaxMs: c.replicaLagTimeMaxMs,
      metadataPropagationDelayMs: range(c.metadataPropagationDelayMs),
      controllerRpcDelayMs: range(c.controllerRpcDelayMs),
      brokerSessionTimeoutMs: c.brokerSessionTimeoutMs,
      leaderImbalanceCheckIntervalMs: c.leaderImbalanceCheckIntervalMs,
      ...(c.producerIdExpirationMs === undefined
        ? {}
        : {
            producerIdExpiration: {
              expirationMs: c.producerIdExpirationMs,
              checkIntervalMs: c.producerIdExpirationCheckIntervalMs,
            },
          }),
      // Only when on, so that the spec (and its hash) of every other scenario stays as it was.
      ...(c.oneRequestPerConnection ? { oneRequestPerConnection: true } : {}),
    },
    producers: {
      // A scripted scenario brings its own producers (script.producers); the fuzzed workload is off.
      count: s.script ? 0 : w.producers,
      transactionVersion: w.transactionVersion,
      release: w.release ?? defaultClientRelease(w.transactionVersion),
      transactions: w.transactions,
      recordsPerTxn: range(w.recordsPerTxn),
      partitionsPerTxn: range(w.partitionsPerTxn),
      abortPpm: ppm(w.abortRatio),
      sendErrorPpm: ppm(w.sendErrorRatio ?? 0),
      emptyTxnPpm: ppm(w.emptyTxnRatio ?? 0),
      thinkMs: range(w.thinkMs),
      sendGapMs: range(w.sendGapMs),
      startMs: range(w.startMs),
      transactionTimeoutMs: w.transactionTimeoutMs,
      requestTimeoutMs: w.requestTimeoutMs,
      retryBackoffMs: w.retryBackoffMs,
      deliveryTimeoutMs: w.deliveryTimeoutMs,
      lingerMs: w.lingerMs,
      recordsPerBatch: w.recordsPerBatch,
      maxInFlightRequestsPerConnection: w.maxInFlightRequestsPerConnection,
      maxBlockMs: w.maxBlockMs,
      initialProducerEpoch: w.initialProducerEpoch,
      ...(w.idempotentProducers && !s.script ? { idempotent: { ...w.idempotentProducers } } : {}),
    },
    consumers: {
      count: s.script ? 0 : w.consumers,
      fetchMaxWaitMs: w.consumerFetchMaxWaitMs,
      requestTimeoutMs: w.requestTimeoutMs,
      retryBackoffMs: w.retryBackoffMs,
    },
    faults: {
      windowMs: f.windowMs,
      network: linkFaults(f.network, networkModel(s)),
      markerRequests: f.markerRequests ? linkFaults(f.markerRequests, networkModel(s)) : null,
      nemesisTickMs: f.nemesisTickMs,
      ...nodeFaultSpecs(f),
      maxBrokersDown: f.maxBrokersDown,
      upgrades: f.upgrades.map((u) => ({ atMs: u.atMs, node: u.node, release: u.release, downtimeMs: u.downtimeMs })),
      featureUpdates: f.featureUpdates.map((u) => ({ atMs: u.atMs, transactionVersion: u.transactionVersion })),
      rollingUpgrade: f.rollingUpgrade
        ? {
            startMs: f.rollingUpgrade.startMs,
            release: f.rollingUpgrade.release,
            order: f.rollingUpgrade.order ?? brokerIds,
            downtimeMs: f.rollingUpgrade.downtimeMs,
          }
        : null,
      adminAbortTransaction: f.adminAbortTransaction
        ? {
            checkIntervalMs: f.adminAbortTransaction.checkIntervalMs,
            openForMs: f.adminAbortTransaction.openForMs,
            operatorDelayMs: range(f.adminAbortTransaction.operatorDelayMs),
            retryBackoffMs: f.adminAbortTransaction.retryBackoffMs,
          }
        : null,
    },
    bounds: {
      maxEvents: s.bounds.maxEvents,
      workloadDeadlineMs: s.bounds.workloadDeadlineMs,
      quietPeriodMs: s.bounds.quietPeriodMs,
    },
    globalOverrides,
    ...consumerOffsetsOf(s, brokerIds),
    ...(s.draw ? { draw: s.draw } : {}),
  };
}

/** A processor's crash or graceful restart, in the model's units. */
function restartSpec(r: NonNullable<Scenario["processing"]>["crash"]): ProcessorRestartSpec {
  return { ppm: ppm(r.probability), downMs: range(r.downMs), newTransactionalIdPpm: ppm(r.newTransactionalIdRate) };
}

/** The scenario's processors and their __consumer_offsets (absent: the key is absent too). */
function consumerOffsetsOf(s: Scenario, brokerIds: readonly string[]): { consumerOffsets?: ConsumerOffsetsSpec } {
  const p = s.processing;
  if (!p) return {};
  return {
    consumerOffsets: {
      partitions: resolveAssignment(p.offsetsTopic, brokerIds, 1),
      minInsyncReplicas: p.offsetsTopic.minInsyncReplicas,
      inputTopic: p.inputTopic,
      sessionTimeoutMs: p.sessionTimeoutMs,
      rebalanceTimeoutMs: p.rebalanceTimeoutMs,
      txnOffsetCommitGenerationCheck: true,
      markerTransactionVersionReachesLog: true,
      processors: {
        count: p.processors,
        groupId: p.groupId,
        outputTopic: p.outputTopic,
        transactions: p.transactions,
        maxRecordsPerTxn: p.maxRecordsPerTxn,
        pollMs: p.pollMs,
        pause: { ppm: ppm(p.pause.probability), durationMs: range(p.pause.durationMs) },
        crash: restartSpec(p.crash),
        leave: restartSpec(p.leave),
        idleStopMs: p.idleStopMs,
      },
      ...(p.committers
        ? {
            committers: {
              count: p.committers.count,
              groupId: p.committers.groupId,
              commitIntervalMs: p.committers.commitIntervalMs,
              commitsPerRestart: p.committers.commitsPerRestart,
              metadataTooLargePpm: ppm(p.committers.metadataTooLargeRatio),
            },
          }
        : {}),
    },
  };
}
