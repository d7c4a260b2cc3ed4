import { describe, expect, it } from "vitest";
import type { PartitionConfig } from "../../src/kafka/broker/partition.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { type AlterPartitionChannel, ReplicaManager } from "../../src/kafka/broker/replica-manager.js";
import { Errors } from "../../src/kafka/common/errors.js";
import {
  javaStringHashCode,
  transactionStatePartitionFor,
} from "../../src/kafka/coordinator/transaction-partitioning.js";
import type { FetchRequest, FetchResponse } from "../../src/kafka/fetch-protocol.js";
import type { MetadataImage, PartitionRegistration } from "../../src/kafka/metadata/metadata-image.js";
import { releaseProfile } from "../../src/kafka/release.js";
import type { KafkaEvents } from "../../src/kafka/trace-events.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const KEY = "orders-0";
const PID = 1000;

function registration(over: Partial<PartitionRegistration> = {}): PartitionRegistration {
  return {
    partition: KEY,
    replicas: ["b0", "b1", "b2"],
    isr: ["b0", "b1", "b2"],
    leader: "b0",
    leaderEpoch: 1,
    partitionEpoch: 1,
    leaderRecoveryState: "RECOVERED",
    ...over,
  };
}

/** A leader b0 of orders-0 (min.insync.replicas 2) with the given registration; the controller accepts every AlterPartition. */
function leaderOf(reg: PartitionRegistration, minInsyncReplicas = 2) {
  const sim = new Simulation<KafkaEvents>(new Trace());
  const flags = releaseProfile("4.2.1").flags;
  const log = new PartitionLog(KEY, () => flags);
  const image: MetadataImage = {
    offset: 1,
    partitions: new Map([[KEY, reg]]),
    brokers: new Map(reg.replicas.map((id) => [id, { id, liveness: "active" as const }])),
    features: { transactionVersion: 2, epoch: 0 },
  };
  const altered: string[][] = [];
  const controller: AlterPartitionChannel = {
    alterPartition({ leaderEpoch, partitionEpoch, newIsr }, onResult) {
      altered.push([...newIsr]);
      sim.schedule(1, () =>
        onResult(Errors.NONE, { ...reg, isr: newIsr, leaderEpoch, partitionEpoch: partitionEpoch + 1 }),
      );
    },
  };
  const config: PartitionConfig = { minInsyncReplicas, replicaLagTimeMaxMs: 100 };
  const rm = new ReplicaManager(sim, "b0", {
    logs: new Map([[KEY, log]]),
    configs: new Map([[KEY, config]]),
    image: () => image,
    controller,
    config: { replicaLagTimeMaxMs: 100 },
  });
  rm.applyDelta([{ before: null, after: reg }]);
  const append = (seq: number, onDone: (errorCode: number) => void) => {
    const guard = log.maybeStartTransactionVerification(PID, seq, 4, true);
    rm.appendToLeader(
      KEY,
      1_000,
      (l) => {
        const r = l.appendData({
          producerId: PID,
          producerEpoch: 4,
          baseSequence: seq,
          isTransactional: true,
          values: [`v${seq}`],
          ghostTxn: "t",
          verificationGuard: guard,
        });
        return { waitForOffset: r.kind === "appended" ? r.batch.lastOffset + 1 : null, value: r.kind };
      },
      (errorCode) => onDone(errorCode),
    );
  };
  const followerFetch = (replica: string, fetchOffset: number, onAnswer: (r: FetchResponse) => void = () => {}) => {
    const request: FetchRequest = {
      api: "Fetch",
      replicaId: replica,
      maxWaitMs: 500,
      isolation: "READ_UNCOMMITTED",
      partitions: [{ partition: KEY, fetchOffset, currentLeaderEpoch: 1, lastFetchedEpoch: 1, maxBatches: 10 }],
    };
    rm.fetch(request, onAnswer);
  };
  return { sim, log, rm, append, followerFetch, altered };
}

describe("ReplicaManager.appendRecords with acks=all (Partition.appendRecordsToLeader, DelayedProduce)", () => {
  it("answers once every in-sync follower has fetched past the append, not before", () => {
    const { sim, append, followerFetch } = leaderOf(registration());
    const answers: number[] = [];
    append(0, (e) => answers.push(e));
    expect(answers).toEqual([]);
    followerFetch("b1", 1);
    sim.run({ maxEvents: 100, maxTimeMs: 1 });
    expect(answers).toEqual([]); // b2 has not acknowledged yet
    followerFetch("b2", 1);
    expect(answers).toEqual([Errors.NONE]);
  });

  it("refuses with NOT_ENOUGH_REPLICAS before writing when the ISR is below min.insync.replicas", () => {
    const { log, append } = leaderOf(registration({ isr: ["b0"] }));
    const answers: number[] = [];
    append(0, (e) => answers.push(e));
    expect(answers).toEqual([Errors.NOT_ENOUGH_REPLICAS]);
    expect(log.logEndOffset).toBe(0);
  });

  it("answers REQUEST_TIMED_OUT when the followers never catch up", () => {
    const { sim, append } = leaderOf(registration());
    const answers: number[] = [];
    append(0, (e) => answers.push(e));
    sim.run({ maxEvents: 10_000, maxTimeMs: 1_001 });
    expect(answers).toEqual([Errors.REQUEST_TIMED_OUT]);
  });

  it("answers NOT_LEADER_OR_FOLLOWER when leadership moves while the append waits (ReplicaManager.applyDelta)", () => {
    const { rm, append } = leaderOf(registration());
    const answers: number[] = [];
    append(0, (e) => answers.push(e));
    rm.applyDelta([
      { before: registration(), after: registration({ leader: "b1", leaderEpoch: 2, partitionEpoch: 2 }) },
    ]);
    expect(answers).toEqual([Errors.NOT_LEADER_OR_FOLLOWER]);
  });
});

describe("the fetch purgatory (ReplicaManager.fetchMessages, DelayedFetch)", () => {
  it("parks a follower's fetch with nothing new and answers it when the leader appends", () => {
    const { sim, append, followerFetch } = leaderOf(registration());
    const answers: FetchResponse[] = [];
    followerFetch("b1", 0, (r) => answers.push(r));
    sim.run({ maxEvents: 100, maxTimeMs: 10 });
    expect(answers).toEqual([]);
    append(0, () => {});
    expect(answers).toHaveLength(1);
    expect(answers[0]?.partitions[0]?.batches.map((b) => b.values[0])).toEqual(["v0"]);
  });

  it("answers a parked fetch empty after maxWaitMs", () => {
    const { sim, followerFetch } = leaderOf(registration());
    const answers: FetchResponse[] = [];
    followerFetch("b1", 0, (r) => answers.push(r));
    sim.run({ maxEvents: 100, maxTimeMs: 499 });
    expect(answers).toEqual([]);
    sim.run({ maxEvents: 100, maxTimeMs: 500 });
    expect(answers[0]?.partitions[0]?.batches).toEqual([]);
  });
});

describe("ISR changes (Partition.maybeShrinkIsr, maybeExpandIsr through AlterPartition)", () => {
  it("drops a follower that did not fetch for replica.lag.time.max.ms, and takes it back once caught up", () => {
    const { sim, append, followerFetch, altered, rm } = leaderOf(registration(), 1);
    append(0, () => {});
    followerFetch("b1", 1);
    sim.run({ maxEvents: 1_000, maxTimeMs: 160 });
    followerFetch("b1", 1);
    sim.run({ maxEvents: 1_000, maxTimeMs: 230 });
    expect(altered[0]).toEqual(["b0", "b1"]); // b2 never fetched
    expect(rm.partitions.get(KEY)?.isr).toEqual(["b0", "b1"]);
    followerFetch("b2", 1);
    sim.run({ maxEvents: 1_000, maxTimeMs: 240 });
    expect(rm.partitions.get(KEY)?.isr).toEqual(["b0", "b1", "b2"]);
  });
});

describe("TransactionStateManager.partitionFor: Utils.abs(transactionalId.hashCode) % partitions", () => {
  it("matches Kafka's values for 50 partitions", () => {
    expect(transactionStatePartitionFor("txn-0", 50)).toBe(9);
    expect(transactionStatePartitionFor("txn-1", 50)).toBe(10);
    expect(transactionStatePartitionFor("producer-1", 50)).toBe(30);
    expect(javaStringHashCode("my-transactional-id")).toBe(-959806496);
    expect(transactionStatePartitionFor("my-transactional-id", 50)).toBe(46);
  });
});
