import type { BrokerConfig, ClusterContext } from "../../src/kafka/cluster-context.js";
import { ProducerIdManager } from "../../src/kafka/coordinator/producer-id-manager.js";
import { TransactionCoordinator } from "../../src/kafka/coordinator/transaction-coordinator.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { TransactionMetadata } from "../../src/kafka/coordinator/transaction-metadata.js";
import type { TransactionStateName } from "../../src/kafka/coordinator/transaction-state.js";
import { NO_GHOST } from "../../src/kafka/ghost.js";
import { type KafkaRequest, type KafkaResponse, labelOf } from "../../src/kafka/protocol.js";
import { type ReleaseFlags, type ReleaseName, releaseProfile } from "../../src/kafka/release.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { type LinkFaults, Network } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const quiet: LinkFaults = {
  delay: { minMs: 1, maxMs: 1, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};

export const TEST_BROKER_CONFIG: BrokerConfig = {
  requestTimeoutMs: 300,
  reconnectBackoffMs: 50,
  transactionMaxTimeoutMs: 900_000,
  abortTimedOutTransactionCleanupIntervalMs: 500,
  transactionalIdExpirationMs: null,
  removeExpiredTransactionalIdsIntervalMs: 500,
  finalizedTransactionVersion: 2,
  txnLogLoadDelayMs: 1,
  txnLogAppendRetryBackoffMs: 10,
  addPartitionsToTxnRetryBackoffMs: 20,
  addPartitionsToTxnRetryBackoffMaxMs: 100,
  replicaFetchWaitMaxMs: 500,
  replicaFetchBackoffMs: 100,
  replicaLagTimeMaxMs: 1_000,
  metadataPropagationDelayMs: { min: 1, max: 1 },
  controllerRpcDelayMs: { min: 1, max: 1 },
  brokerSessionTimeoutMs: 300,
  leaderImbalanceCheckIntervalMs: 0,
};

/**
 * A lone coordinator owning the one __transaction_state partition (at coordinator epoch 1), whose
 * writes are durable 1 ms after they are made, and whose data partitions are unknown to its
 * metadata (so markers are dropped and transactions complete at once).
 */
export function coordinatorHarness(
  release: ReleaseName = "4.2.1",
  finalizedTransactionVersion: 0 | 1 | 2 = 2,
  overrides: Partial<ReleaseFlags> = {},
  options: { config?: Partial<BrokerConfig>; appendError?: () => number } = {},
) {
  const sim = new Simulation(new Trace());
  const choices = ChoiceSource.seeded(1);
  const net = new Network<KafkaRequest, KafkaResponse>(sim, choices, () => quiet, labelOf);
  const ctx: ClusterContext = {
    sim,
    net,
    choices,
    ghost: NO_GHOST,
    config: { ...TEST_BROKER_CONFIG, finalizedTransactionVersion, ...options.config },
  };
  const profile = releaseProfile(release, overrides);
  const log = new PartitionLog("__transaction_state-0", () => profile.flags);
  const tc = new TransactionCoordinator(ctx, "tc", {
    release: profile,
    host: {
      log: {
        append: (_partition, transactionalId, value, _timeoutMs, onDone) => {
          // A refused append (e.g. NOT_ENOUGH_REPLICAS under min.insync.replicas) writes nothing.
          const error = options.appendError?.() ?? 0;
          if (error === 0) log.appendTxnRecord({ transactionalId, value });
          sim.schedule(1, () => onDone(error));
        },
        read: () => log.batches,
      },
      leaderOf: () => undefined,
      stopped: () => false,
      finalizedTransactionVersion: () => finalizedTransactionVersion,
    },
    partitionCount: 1,
    producerIds: new ProducerIdManager(2000),
  });
  tc.onElection(0, 1);
  sim.run({ maxEvents: 1000, maxTimeMs: 10 });

  const settle = () => sim.run({ maxEvents: 10_000, maxTimeMs: sim.nowMs + 5_000 });

  /** Put a transaction into `state` directly (no pending state), epoch `epoch`. */
  const put = (
    state: TransactionStateName,
    epoch: number,
    partitions: string[] = state === "Empty" ? [] : ["orders-0"],
  ) => {
    const m = tc.state.putIfAbsent(new TransactionMetadata("txn", 1000, epoch, 60_000, sim.nowMs));
    m.state = state;
    m.producerEpoch = epoch;
    m.topicPartitions = new Set(partitions);
    m.txnStartTimestamp = state === "Empty" ? -1 : 0;
    m.clientTransactionVersion = 2;
    return m;
  };

  const endTxn = (committed: boolean, producerEpoch: number, version = 5) => {
    let result: { errorCode: number; producerId: number; producerEpoch: number } | null = null;
    tc.handleEndTxn(
      { api: "EndTxn", version, transactionalId: "txn", producerId: 1000, producerEpoch, committed, ghostTxn: "g" },
      (errorCode, producerId, epoch) => {
        result = { errorCode, producerId, producerEpoch: epoch };
      },
    );
    settle();
    if (!result) throw new Error("EndTxn did not answer");
    return result as { errorCode: number; producerId: number; producerEpoch: number };
  };

  const initProducerId = (producerId = -1, producerEpoch = -1) => {
    let result: { errorCode: number; producerId: number; producerEpoch: number } | null = null;
    tc.handleInitProducerId(
      { api: "InitProducerId", transactionalId: "txn", transactionTimeoutMs: 60_000, producerId, producerEpoch },
      (errorCode, pid, epoch) => {
        result = { errorCode, producerId: pid, producerEpoch: epoch };
      },
    );
    settle();
    if (!result) throw new Error("InitProducerId did not answer");
    return result as { errorCode: number; producerId: number; producerEpoch: number };
  };

  const addPartitions = (producerEpoch: number, partitions: string[], version = 3) => {
    let result: { errorCode: number; results: { partition: string; errorCode: number }[] } | null = null;
    tc.handleAddPartitionsToTxn(
      {
        api: "AddPartitionsToTxn",
        version,
        transactionalId: "txn",
        producerId: 1000,
        producerEpoch,
        partitions,
        verifyOnly: false,
        ghostTxn: "g",
      },
      (errorCode, results) => {
        result = { errorCode, results };
      },
    );
    settle();
    if (!result) throw new Error("AddPartitionsToTxn did not answer");
    return result as { errorCode: number; results: { partition: string; errorCode: number }[] };
  };

  const metadata = () => tc.describe("txn");
  return { sim, tc, log, put, endTxn, initProducerId, addPartitions, metadata, settle };
}
