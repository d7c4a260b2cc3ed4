import { describe, expect, it } from "vitest";
import { ApiVersions } from "../../src/kafka/client/api-versions.js";
import { ClientMetadata } from "../../src/kafka/client/client-metadata.js";
import { producerBehaviour } from "../../src/kafka/client/producer-behaviour.js";
import { RecordAccumulator } from "../../src/kafka/client/record-accumulator.js";
import { Sender } from "../../src/kafka/client/sender.js";
import { TransactionManager } from "../../src/kafka/client/transaction-manager.js";
import type { ClusterContext } from "../../src/kafka/cluster-context.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { NO_GHOST } from "../../src/kafka/ghost.js";
import { type KafkaRequest, type KafkaResponse, labelOf } from "../../src/kafka/protocol.js";
import { releaseProfile } from "../../src/kafka/release.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { type InboundRequest, type LinkFaults, Network } from "../../src/sim/network.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";
import { TEST_BROKER_CONFIG } from "./coordinator-harness.js";

const quiet: LinkFaults = {
  delay: { minMs: 1, maxMs: 1, slowPpm: 0, slowMinMs: 0, slowMaxMs: 0 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
};
const P0 = "orders-0";

/** How the scripted broker answers one request: an error code, or "drop" (it closes the connection instead). */
type Answer = number | "drop";

/**
 * A 4.4 producer's Sender, TransactionManager and metadata against one scripted broker, broker-0,
 * that coordinates the transactional id and leads orders-0 on a TV2 cluster (what the JVM harness's
 * ScriptedNetwork is to Kafka's producer). Every request succeeds unless `script` names an answer
 * for its api: the answers are taken in order, then success again.
 */
function producer(script: Partial<Record<KafkaRequest["api"], Answer[]>>) {
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
  const seen: string[] = [];
  let epoch = 3;
  net.registerServer("broker-0", (request: InboundRequest<KafkaRequest, KafkaResponse>) => {
    const body = request.body;
    const answer = script[body.api]?.shift() ?? Errors.NONE;
    seen.push(answer === Errors.NONE ? body.api : `${body.api}:${answer}`);
    if (answer === "drop") return request.closeConnection("scripted");
    switch (body.api) {
      case "FindCoordinator":
        return request.respond({
          api: body.api,
          errorCode: answer,
          nodeId: answer === Errors.NONE ? "broker-0" : null,
        });
      case "InitProducerId":
        return request.respond({ api: body.api, errorCode: answer, producerId: 1000, producerEpoch: epoch });
      case "Produce":
        return request.respond({ api: body.api, errorCode: answer, baseOffset: 0, errorMessage: null });
      case "EndTxn":
        if (answer === Errors.NONE) epoch++;
        return request.respond({ api: body.api, errorCode: answer, producerId: 1000, producerEpoch: epoch });
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
    retryBackoffMs: 20,
    deliveryTimeoutMs: 4_000,
    lingerMs: 0,
    recordsPerBatch: 16,
    maxInFlightRequestsPerConnection: 5,
    maxBlockMs: 2_000,
  };
  const heard: string[] = [];
  const apiVersions = new ApiVersions();
  const tm = new TransactionManager(
    "txn-0",
    2,
    producerBehaviour(releaseProfile("4.4").flags),
    {
      fatal: (api, code) => heard.push(`fatal ${api} ${code}`),
      abortable: (reason) => heard.push(`abortable ${reason}`),
    },
    apiVersions,
  );
  const metadata = new ClientMetadata(ctx, "p0", {
    brokers: ["broker-0"],
    bootstrap: new Map([[P0, { leader: "broker-0", leaderEpoch: 0 }]]),
    config: { retryBackoffMs: 20, requestTimeoutMs: 300 },
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
  /** initTransactions, beginTransaction, one send, commitTransaction; true once the commit is done. */
  const commitOne = (): boolean => {
    tm.initializeTransactions(() => tm.maybeUpdateTransactionV2Enabled({ onInitialization: true }));
    sender.wakeup();
    run();
    if (tm.state !== "READY") return false;
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
    return committed;
  };
  return { tm, seen, heard, commitOne };
}

describe("the Sender and the TransactionManager against a scripted broker (4.4 producer, TV2)", () => {
  it("succeeds end to end when every answer is NONE", () => {
    const p = producer({});
    expect(p.commitOne()).toBe(true);
    expect(p.seen).toEqual(["FindCoordinator", "InitProducerId", "Produce", "EndTxn"]);
  });

  it("a dropped connection looks the coordinator up again; NETWORK_EXCEPTION answered as an error code is only retried", () => {
    const dropped = producer({ EndTxn: ["drop"] });
    expect(dropped.commitOne()).toBe(true);
    expect(dropped.seen).toEqual([
      "FindCoordinator",
      "InitProducerId",
      "Produce",
      "EndTxn:drop",
      "FindCoordinator",
      "EndTxn",
    ]);
    const answered = producer({ EndTxn: [Errors.NETWORK_EXCEPTION] });
    expect(answered.commitOne()).toBe(true);
    expect(answered.seen).toEqual([
      "FindCoordinator",
      "InitProducerId",
      "Produce",
      `EndTxn:${Errors.NETWORK_EXCEPTION}`,
      "EndTxn",
    ]);
  });

  it("DUPLICATE_SEQUENCE_NUMBER completes the batch as a success: the transaction commits", () => {
    const p = producer({ Produce: [Errors.DUPLICATE_SEQUENCE_NUMBER] });
    expect(p.commitOne()).toBe(true);
    expect(p.heard).toEqual([]);
  });

  it("FindCoordinator: a retriable error asks again; TRANSACTIONAL_ID_AUTHORIZATION_FAILED is fatal and nothing more is sent", () => {
    const retried = producer({ FindCoordinator: [Errors.COORDINATOR_NOT_AVAILABLE] });
    expect(retried.commitOne()).toBe(true);
    expect(retried.seen.slice(0, 3)).toEqual([
      `FindCoordinator:${Errors.COORDINATOR_NOT_AVAILABLE}`,
      "FindCoordinator",
      "InitProducerId",
    ]);
    const refused = producer({ FindCoordinator: [Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED] });
    expect(refused.commitOne()).toBe(false);
    expect(refused.tm.state).toBe("FATAL_ERROR");
    expect(refused.heard).toEqual([`fatal FindCoordinator ${Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED}`]);
    expect(refused.seen).toEqual([`FindCoordinator:${Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED}`]);
  });
});
