import { describe, expect, it } from "vitest";
import type { PartitionConfig } from "../../src/kafka/broker/partition.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { ReplicaManager } from "../../src/kafka/broker/replica-manager.js";
import { Cluster } from "../../src/kafka/cluster.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { NO_CURRENT_LEADER } from "../../src/kafka/current-leader.js";
import type { FetchRequest, FetchResponse } from "../../src/kafka/fetch-protocol.js";
import { NO_GHOST } from "../../src/kafka/ghost.js";
import type { MetadataImage, PartitionRegistration } from "../../src/kafka/metadata/metadata-image.js";
import type { KafkaRequest, KafkaResponse } from "../../src/kafka/protocol.js";
import { releaseProfile } from "../../src/kafka/release.js";
import type { KafkaEvents } from "../../src/kafka/trace-events.js";
import { loadScenario } from "../../src/scenario/loader.js";
import { toClusterSpec } from "../../src/scenario/to-cluster-spec.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

/**
 * KIP-951 at the broker (3.7+): a Produce (v10+) answered NOT_LEADER_OR_FOLLOWER, and a Fetch
 * (v16+) answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, carry the partition's leader as
 * this broker knows it (KafkaApis.getCurrentLeader); other answers keep the default (-1, -1).
 */

const P0 = "orders-0";

describe("KIP-951 at the broker: KafkaApis.getCurrentLeader fills Fetch's NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH", () => {
  function registration(over: Partial<PartitionRegistration> = {}): PartitionRegistration {
    return {
      partition: P0,
      replicas: ["b0", "b1"],
      isr: ["b0", "b1"],
      leader: "b0",
      leaderEpoch: 1,
      partitionEpoch: 1,
      leaderRecoveryState: "RECOVERED",
      ...over,
    };
  }
  function broker() {
    const sim = new Simulation<KafkaEvents>(new Trace());
    const flags = releaseProfile("4.2.1").flags;
    let image: MetadataImage = {
      offset: 1,
      partitions: new Map([[P0, registration()]]),
      brokers: new Map(["b0", "b1"].map((id) => [id, { id, liveness: "active" as const }])),
      features: { transactionVersion: 2, epoch: 0 },
    };
    const config: PartitionConfig = { minInsyncReplicas: 1, replicaLagTimeMaxMs: 100 };
    const rm = new ReplicaManager(sim, "b0", {
      logs: new Map([[P0, new PartitionLog(P0, () => flags)]]),
      configs: new Map([[P0, config]]),
      image: () => image,
      controller: { alterPartition: () => {} },
      config: { replicaLagTimeMaxMs: 100 },
    });
    rm.applyDelta([{ before: null, after: registration() }]);
    const moveTo = (reg: PartitionRegistration) => {
      image = { ...image, offset: image.offset + 1, partitions: new Map([[P0, reg]]) };
      rm.applyDelta([{ before: registration(), after: reg }]);
    };
    const fetch = (currentLeaderEpoch: number): FetchResponse => {
      const request: FetchRequest = {
        api: "Fetch",
        replicaId: null,
        maxWaitMs: 0,
        isolation: "READ_COMMITTED",
        partitions: [{ partition: P0, fetchOffset: 0, currentLeaderEpoch, lastFetchedEpoch: -1, maxBatches: 10 }],
      };
      let answer: FetchResponse | null = null;
      rm.fetch(request, (r) => {
        answer = r;
      });
      return answer as unknown as FetchResponse;
    };
    return { rm, moveTo, fetch };
  }

  it("a leader answers data with no leader named", () => {
    const b = broker();
    expect(b.fetch(1).partitions[0]?.currentLeader).toEqual(NO_CURRENT_LEADER);
  });

  it("a former leader names the new leader and epoch it follows", () => {
    const b = broker();
    b.moveTo(registration({ leader: "b1", leaderEpoch: 2, partitionEpoch: 2 }));
    const data = b.fetch(1).partitions[0];
    expect(data?.errorCode).toBe(Errors.NOT_LEADER_OR_FOLLOWER);
    expect(data?.currentLeader).toEqual({ leaderId: "b1", leaderEpoch: 2 });
    expect(b.rm.getCurrentLeader(P0)).toEqual({ leaderId: "b1", leaderEpoch: 2 });
  });

  it("a leader fenced by an older epoch names itself at its epoch", () => {
    const b = broker();
    b.moveTo(registration({ leaderEpoch: 3, partitionEpoch: 3 }));
    const data = b.fetch(1).partitions[0];
    expect(data?.errorCode).toBe(Errors.FENCED_LEADER_EPOCH);
    expect(data?.currentLeader).toEqual({ leaderId: "b0", leaderEpoch: 3 });
  });
});

describe("KIP-951 at the broker: KafkaApis.handleProduceRequest fills NOT_LEADER_OR_FOLLOWER from v10", () => {
  function cluster() {
    const spec = toClusterSpec(loadScenario("kip-1228").scenario);
    spec.producers.count = 0;
    spec.consumers.count = 0;
    const sim = new Simulation(new Trace());
    const c = new Cluster(spec, sim, ChoiceSource.seeded(1), NO_GHOST);
    c.net.faultsActive = false;
    c.startBrokers();
    sim.run({ maxEvents: 100_000, maxTimeMs: 2_000 });
    const ask = (to: string, body: KafkaRequest): KafkaResponse => {
      let result: KafkaResponse | null = null;
      c.net.request(c.net.connect("tester", to), body, 5_000, (r) => {
        if (r.kind === "response") result = r.body;
      });
      sim.run({ maxEvents: 100_000, maxTimeMs: sim.nowMs + 5_000 }, () => result !== null);
      if (result === null) throw new Error(`${body.api}: no answer`);
      return result;
    };
    return { brokers: spec.brokers.map((b) => b.id), ask };
  }
  const produce = (version: number): KafkaRequest => ({
    api: "Produce",
    version,
    transactionalId: null,
    producerId: 1000,
    producerEpoch: 0,
    partition: "orders-0",
    baseSequence: 0,
    values: ["v"],
    timeoutMs: 1_000,
    ghostTxn: null,
  });

  it("a broker that does not lead orders-0 names its leader (v12), and names none before v10", () => {
    const { brokers, ask } = cluster();
    const meta = ask(brokers[0] as string, { api: "Metadata" });
    if (meta.api !== "Metadata") throw new Error("no metadata");
    const known = meta.partitions.find((p) => p.partition === "orders-0");
    const other = brokers.find((b) => b !== known?.leader) as string;
    const v12 = ask(other, produce(12));
    expect(v12).toMatchObject({
      errorCode: Errors.NOT_LEADER_OR_FOLLOWER,
      currentLeader: { leaderId: known?.leader, leaderEpoch: known?.leaderEpoch },
    });
    const v9 = ask(other, produce(9));
    expect(v9).toMatchObject({ errorCode: Errors.NOT_LEADER_OR_FOLLOWER, currentLeader: NO_CURRENT_LEADER });
  });
});
