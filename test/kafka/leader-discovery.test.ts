import { describe, expect, it } from "vitest";
import { ApiVersions } from "../../src/kafka/client/api-versions.js";
import { ClientMetadata } from "../../src/kafka/client/client-metadata.js";
import { producerBehaviour } from "../../src/kafka/client/producer-behaviour.js";
import { READ_COMMITTED, ReadCommittedConsumer } from "../../src/kafka/client/read-committed-consumer.js";
import { RecordAccumulator } from "../../src/kafka/client/record-accumulator.js";
import { Sender } from "../../src/kafka/client/sender.js";
import { TransactionManager } from "../../src/kafka/client/transaction-manager.js";
import type { ClusterContext } from "../../src/kafka/cluster-context.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { type LeaderIdAndEpoch, NO_CURRENT_LEADER } from "../../src/kafka/current-leader.js";
import { NO_GHOST } from "../../src/kafka/ghost.js";
import { type KafkaRequest, type KafkaResponse, labelOf } from "../../src/kafka/protocol.js";
import { releaseProfile } from "../../src/kafka/release.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { type InboundRequest, type LinkFaults, Network } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";
import { TEST_BROKER_CONFIG } from "./coordinator-harness.js";

/**
 * KIP-951 (clients and brokers 3.7+): a Produce or Fetch answered NOT_LEADER_OR_FOLLOWER (Fetch:
 * also FENCED_LEADER_EPOCH) names the partition's current leader, and the client takes it at once
 * when its epoch is newer (Metadata.updatePartitionLeadership); a producer's retry to the new
 * leader skips retry.backoff.ms (RecordAccumulator.shouldBackoff). A metadata refresh is still asked.
 * The broker's side: current-leader-broker.test.ts.
 */

const quiet: LinkFaults = {
  delay: { minMs: 1, maxMs: 1, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};
const P0 = "orders-0";
const RETRY_BACKOFF_MS = 20;

function scriptedCluster() {
  const sim = new Simulation(new Trace());
  const choices = ChoiceSource.seeded(1);
  const net = new Network<KafkaRequest, KafkaResponse>(sim, choices, () => quiet, labelOf);
  const ctx: ClusterContext = {
    sim,
    net,
    choices,
    ghost: NO_GHOST,
    config: TEST_BROKER_CONFIG,
    featuresOf: () => ({ transactionVersion: 2, epoch: 1 }),
  };
  /** Requests as the brokers saw them: `at broker api`. */
  const seen: string[] = [];
  return { sim, net, ctx, seen };
}

/** Every broker answers Metadata from a stale image: broker-0 still leads orders-0 at epoch 0. */
const STALE_METADATA: KafkaResponse = {
  api: "Metadata",
  errorCode: Errors.NONE,
  imageOffset: 1,
  partitions: [{ partition: P0, leader: "broker-0", leaderEpoch: 0 }],
};

/**
 * A 4.4 transactional producer (TV2) whose cached leader of orders-0 is broker-0 at epoch 0.
 * broker-0 coordinates; it answers the first Produce NOT_LEADER_OR_FOLLOWER naming `named`, every
 * later one NONE. broker-1 answers Produce NONE. Metadata answers are stale.
 */
function producer(named: LeaderIdAndEpoch) {
  const { sim, net, ctx, seen } = scriptedCluster();
  let refused = false;
  let epoch = 3;
  for (const broker of ["broker-0", "broker-1"])
    net.registerServer(broker, (request: InboundRequest<KafkaRequest, KafkaResponse>) => {
      const body = request.body;
      seen.push(`${sim.nowMs} ${broker} ${body.api}`);
      switch (body.api) {
        case "Metadata":
          return request.respond(STALE_METADATA);
        case "FindCoordinator":
          return request.respond({ api: body.api, errorCode: Errors.NONE, nodeId: "broker-0" });
        case "InitProducerId":
          return request.respond({ api: body.api, errorCode: Errors.NONE, producerId: 1000, producerEpoch: epoch });
        case "Produce": {
          const refuse = broker === "broker-0" && !refused;
          refused ||= refuse;
          return request.respond({
            api: body.api,
            errorCode: refuse ? Errors.NOT_LEADER_OR_FOLLOWER : Errors.NONE,
            baseOffset: refuse ? -1 : 0,
            errorMessage: null,
            currentLeader: refuse ? named : NO_CURRENT_LEADER,
          });
        }
        case "EndTxn":
          epoch++;
          return request.respond({ api: body.api, errorCode: Errors.NONE, producerId: 1000, producerEpoch: epoch });
        default:
          throw new Error(`the scripted broker does not answer ${body.api}`);
      }
    });
  const config = {
    name: "p0",
    transactionalId: "txn-0",
    transactionVersion: 2 as const,
    transactionTimeoutMs: 10_000,
    requestTimeoutMs: 300,
    retryBackoffMs: RETRY_BACKOFF_MS,
    deliveryTimeoutMs: 4_000,
    lingerMs: 0,
    recordsPerBatch: 16,
    maxInFlightRequestsPerConnection: 5,
    maxBlockMs: 2_000,
  };
  const apiVersions = new ApiVersions();
  const tm = new TransactionManager(
    "txn-0",
    2,
    producerBehaviour(releaseProfile("4.4").flags),
    { fatal: () => {}, abortable: () => {} },
    apiVersions,
  );
  const metadata = new ClientMetadata(ctx, "p0", {
    brokers: ["broker-0", "broker-1"],
    bootstrap: new Map([[P0, { leader: "broker-0", leaderEpoch: 0 }]]),
    config: { retryBackoffMs: RETRY_BACKOFF_MS, requestTimeoutMs: 300 },
  });
  const accumulator = new RecordAccumulator(16, 0);
  const sender = new Sender(ctx, config, {
    accumulator,
    tm,
    metadata,
    currentGhost: () => "p0.t1",
    onBatchDone: () => {},
    apiVersions,
  });
  const run = () => sim.run({ maxEvents: 10_000, maxTimeMs: sim.nowMs + 2_000 });
  tm.initializeTransactions(() => tm.maybeUpdateTransactionV2Enabled({ onInitialization: true }));
  sender.wakeup();
  run();
  tm.beginTransaction();
  tm.maybeAddPartition(P0);
  accumulator.append(P0, "v", "p0.t1", sim.nowMs);
  accumulator.beginFlush();
  let committed = false;
  tm.beginCommit(() => {
    committed = true;
  });
  sender.wakeup();
  run();
  const produces = seen.filter((s) => s.endsWith("Produce"));
  return { committed, produces, seen, metadata };
}

function atOf(line: string | undefined): number {
  return Number(line?.split(" ")[0]);
}

describe("KIP-951: the producer takes the new leader from a Produce error (Sender.completeBatch)", () => {
  it("retries to the named, newer leader at once, without waiting for the refresh or the backoff", () => {
    const p = producer({ leaderId: "broker-1", leaderEpoch: 1 });
    expect(p.committed).toBe(true);
    expect(p.produces.map((s) => s.split(" ")[1])).toEqual(["broker-0", "broker-1"]);
    const [first, retry] = p.produces;
    // Answer 1 ms after the first arrives, the retry 1 ms after that: no retry.backoff.ms in between.
    expect(atOf(retry) - atOf(first)).toBe(2);
    // The refresh is still asked for, and its stale answer does not undo the newer leader.
    expect(p.seen.some((s) => s.endsWith("Metadata"))).toBe(true);
    expect(p.metadata.leaderOf(P0)).toEqual({ leader: "broker-1", leaderEpoch: 1 });
  });

  it("ignores a named leader whose epoch is not newer than the cached one, and backs off", () => {
    const p = producer({ leaderId: "broker-1", leaderEpoch: 0 });
    expect(p.committed).toBe(true);
    expect(p.produces.map((s) => s.split(" ")[1])).toEqual(["broker-0", "broker-0"]);
    const [first, retry] = p.produces;
    expect(atOf(retry) - atOf(first)).toBeGreaterThanOrEqual(RETRY_BACKOFF_MS);
  });

  it("ignores an answer without a leader (leaderId -1)", () => {
    const p = producer({ leaderId: null, leaderEpoch: 5 });
    expect(p.produces.map((s) => s.split(" ")[1])).toEqual(["broker-0", "broker-0"]);
    expect(p.metadata.leaderOf(P0)).toEqual({ leader: "broker-0", leaderEpoch: 0 });
  });
});

describe("Metadata.updatePartitionLeadership's tests, in Kafka's order", () => {
  const { ctx } = scriptedCluster();
  const metadata = new ClientMetadata(ctx, "c", {
    brokers: ["broker-0", "broker-1"],
    bootstrap: new Map([["a-0", { leader: "broker-0", leaderEpoch: 3 }]]),
    config: { retryBackoffMs: 20, requestTimeoutMs: 300 },
  });
  it("takes only a complete, strictly newer leader of a cached partition", () => {
    const update = (partition: string, leaderId: string | null, leaderEpoch: number) =>
      metadata.updatePartitionLeadership(new Map([[partition, { leaderId, leaderEpoch }]]));
    expect(update("a-0", "broker-1", -1)).toEqual([]);
    expect(update("a-0", null, 4)).toEqual([]);
    expect(update("a-0", "broker-1", 3)).toEqual([]);
    expect(update("a-0", "broker-1", 2)).toEqual([]);
    expect(update("b-0", "broker-1", 9)).toEqual([]);
    expect(metadata.leaderOf("b-0")).toBeNull();
    expect(update("a-0", "broker-1", 4)).toEqual(["a-0"]);
    expect(metadata.leaderOf("a-0")).toEqual({ leader: "broker-1", leaderEpoch: 4 });
  });
});

describe("KIP-951: the read_committed consumer takes the new leader from a Fetch error (AbstractFetch)", () => {
  it("fetches from the named leader at once; the refresh still runs", () => {
    const { sim, net, ctx, seen } = scriptedCluster();
    for (const broker of ["broker-0", "broker-1"])
      net.registerServer(broker, (request: InboundRequest<KafkaRequest, KafkaResponse>) => {
        const body = request.body;
        seen.push(`${sim.nowMs} ${broker} ${body.api}`);
        if (body.api === "Metadata") return request.respond(STALE_METADATA);
        if (body.api !== "Fetch") throw new Error(`unexpected ${body.api}`);
        const moved = broker === "broker-0";
        request.respond({
          api: "Fetch",
          errorCode: Errors.NONE,
          partitions: body.partitions.map((p) => ({
            partition: p.partition,
            errorCode: moved ? Errors.FENCED_LEADER_EPOCH : Errors.NONE,
            highWatermark: moved ? -1 : 0,
            lastStableOffset: moved ? -1 : 0,
            batches: [],
            abortedTransactions: [],
            divergingEpoch: null,
            currentLeader: moved ? { leaderId: "broker-1", leaderEpoch: 1 } : NO_CURRENT_LEADER,
          })),
        });
      });
    const metadata = new ClientMetadata(ctx, "c0", {
      brokers: ["broker-0", "broker-1"],
      bootstrap: new Map([[P0, { leader: "broker-0", leaderEpoch: 0 }]]),
      config: { retryBackoffMs: RETRY_BACKOFF_MS, requestTimeoutMs: 300 },
    });
    const consumer = new ReadCommittedConsumer(ctx, "c0", {
      partitions: [P0],
      metadata,
      config: {
        fetchMaxWaitMs: 0,
        requestTimeoutMs: 300,
        retryBackoffMs: RETRY_BACKOFF_MS,
        maxBatchesPerPartition: 10,
      },
      mode: READ_COMMITTED,
    });
    consumer.start();
    sim.run({ maxEvents: 1_000, maxTimeMs: 5 });
    consumer.stop();
    const fetches = seen.filter((s) => s.endsWith("Fetch"));
    expect(fetches.slice(0, 2)).toEqual(["1 broker-0 Fetch", "3 broker-1 Fetch"]);
    sim.run({ maxEvents: 1_000, maxTimeMs: 100 });
    expect(seen.some((s) => s.endsWith("Metadata"))).toBe(true);
    expect(metadata.leaderOf(P0)).toEqual({ leader: "broker-1", leaderEpoch: 1 });
  });
});
