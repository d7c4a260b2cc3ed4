import { describe, expect, it } from "vitest";
import { LeaderEpochCache, UNDEFINED_EPOCH } from "../../src/kafka/broker/leader-epoch-cache.js";
import { Partition } from "../../src/kafka/broker/partition.js";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import type { LogBatch } from "../../src/kafka/broker/log-batch.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { PartitionRegistration } from "../../src/kafka/metadata/metadata-image.js";
import { type LeaderChange, QuorumController } from "../../src/kafka/metadata/quorum-controller.js";
import { releaseProfile } from "../../src/kafka/release.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const PID = 1000;
const flags = () => releaseProfile("4.2.1").flags;

function leaderLog(epoch: number): PartitionLog {
  const log = new PartitionLog("orders-0", flags);
  log.becomeLeader(epoch);
  return log;
}

function writeTxn(log: PartitionLog, epoch: number, seq: number, ghost = "t1") {
  const guard = log.maybeStartTransactionVerification(PID, seq, epoch, true);
  const r = log.appendData({
    producerId: PID,
    producerEpoch: epoch,
    baseSequence: seq,
    isTransactional: true,
    values: [`${ghost}/${seq}`],
    ghostTxn: ghost,
    verificationGuard: guard,
  });
  if (r.kind !== "appended") throw new Error(`append failed: ${JSON.stringify(r)}`);
  return r.batch;
}

function commit(log: PartitionLog, epoch: number, coordinatorEpoch = 0) {
  const r = log.appendMarker({
    producerId: PID,
    producerEpoch: epoch,
    result: "COMMIT",
    coordinatorEpoch,
    transactionVersion: 2,
    ghostTxn: "t1",
  });
  if (r.kind !== "appended") throw new Error(`marker failed: ${JSON.stringify(r)}`);
  return r.batch;
}

describe("LeaderEpochFileCache.endOffsetFor", () => {
  const cache = new LeaderEpochCache();
  cache.assign(0, 0);
  cache.assign(2, 10);
  cache.assign(5, 20);

  it("answers the log end for the latest epoch", () => {
    expect(cache.endOffsetFor(5, 27)).toEqual({ epoch: 5, startOffset: 27 });
  });

  it("answers the floor epoch and the start of the next one for an older epoch", () => {
    expect(cache.endOffsetFor(3, 27)).toEqual({ epoch: 2, startOffset: 20 });
    expect(cache.endOffsetFor(0, 27)).toEqual({ epoch: 0, startOffset: 10 });
  });

  it("answers UNDEFINED for an epoch newer than every cached one", () => {
    expect(cache.endOffsetFor(9, 27).epoch).toBe(UNDEFINED_EPOCH);
  });

  it("forgets epochs that start at or after a truncation point", () => {
    const c = new LeaderEpochCache();
    c.assign(0, 0);
    c.assign(2, 10);
    c.truncateFromEnd(10);
    expect(c.latestEpoch).toBe(0);
  });
});

describe("UnifiedLog.appendAsFollower (origin REPLICATION)", () => {
  it("copies the leader's batches at their offsets and rebuilds the same producer state", () => {
    const leader = leaderLog(3);
    writeTxn(leader, 4, 0);
    writeTxn(leader, 4, 1);
    commit(leader, 5);
    const follower = new PartitionLog("orders-0", flags);
    for (const b of leader.batches) follower.appendAsFollower(b);
    expect(follower.logEndOffset).toBe(3);
    expect(follower.producers.get(PID)).toMatchObject({ producerEpoch: 5, currentTxnFirstOffset: null });
    expect(follower.leaderEpochCache.latestEpoch).toBe(3);
  });

  it("takes a marker the leader's strict rule would reject: a follower never judges markers", () => {
    // Leader appends T1's data at epoch 4, then (as an old leader would) a legacy marker at epoch 4.
    const old = new PartitionLog("orders-0", () => releaseProfile("4.1").flags);
    old.becomeLeader(1);
    writeTxn(old, 4, 0);
    const marker = old.appendMarker({
      producerId: PID,
      producerEpoch: 4,
      result: "COMMIT",
      coordinatorEpoch: 0,
      transactionVersion: 0,
      ghostTxn: "t0",
    });
    expect(marker.kind).toBe("appended");
    const follower = new PartitionLog("orders-0", flags);
    for (const b of old.batches) follower.appendAsFollower(b);
    expect(follower.producers.get(PID)?.currentTxnFirstOffset).toBeNull();
  });

  it("refuses a batch that does not start at its log end", () => {
    const leader = leaderLog(1);
    writeTxn(leader, 4, 0);
    const b = writeTxn(leader, 4, 1);
    const follower = new PartitionLog("orders-0", flags);
    expect(() => follower.appendAsFollower(b)).toThrow(/log end 0/);
  });
});

describe("UnifiedLog.truncateTo rebuilds the producer state from what is left", () => {
  it("a truncated marker reopens its transaction, as rebuildProducerState replays it", () => {
    const log = leaderLog(1);
    writeTxn(log, 4, 0);
    commit(log, 5);
    expect(log.producers.get(PID)?.currentTxnFirstOffset).toBeNull();
    const removed = log.truncateTo(1);
    expect(removed.map((b: LogBatch) => b.control?.type)).toEqual(["COMMIT"]);
    expect(log.logEndOffset).toBe(1);
    expect(log.producers.get(PID)).toMatchObject({ producerEpoch: 4, currentTxnFirstOffset: 0 });
    expect(log.openTransactionCount()).toBe(1);
  });

  it("drops aborted-index entries whose marker is gone", () => {
    const log = leaderLog(1);
    writeTxn(log, 4, 0);
    log.appendMarker({
      producerId: PID,
      producerEpoch: 5,
      result: "ABORT",
      coordinatorEpoch: 0,
      transactionVersion: 2,
      ghostTxn: "t1",
    });
    expect(log.abortedTxns).toHaveLength(1);
    log.truncateTo(1);
    expect(log.abortedTxns).toHaveLength(0);
  });
});

function registration(over: Partial<PartitionRegistration> = {}): PartitionRegistration {
  return {
    partition: "orders-0",
    replicas: ["b0", "b1", "b2"],
    isr: ["b0", "b1", "b2"],
    leader: "b0",
    leaderEpoch: 3,
    partitionEpoch: 7,
    leaderRecoveryState: "RECOVERED",
    ...over,
  };
}

describe("Partition (leader): high watermark and acks=all", () => {
  const config = { minInsyncReplicas: 2, replicaLagTimeMaxMs: 100 };

  it("moves the HW to the lowest log end of the ISR (Partition.maybeIncrementLeaderHW)", () => {
    const p = new Partition("orders-0", "b0", new PartitionLog("orders-0", flags), config);
    p.makeLeader(registration(), 0);
    writeTxn(p.log, 4, 0);
    writeTxn(p.log, 4, 1);
    p.updateFollowerFetchState("b1", 2, 5);
    expect(p.maybeIncrementLeaderHW(5, () => true)).toBe(false); // b2 has not fetched: its log end is unknown
    p.updateFollowerFetchState("b2", 1, 6);
    expect(p.maybeIncrementLeaderHW(6, () => true)).toBe(true);
    expect(p.log.highWatermark).toBe(1);
    expect(p.checkEnoughReplicasReachOffset(2)).toBeNull();
    p.updateFollowerFetchState("b2", 2, 7);
    p.maybeIncrementLeaderHW(7, () => true);
    expect(p.checkEnoughReplicasReachOffset(2)).toBe(Errors.NONE);
  });

  it("freezes the HW under min.insync.replicas (KAFKA-15583) and answers NOT_ENOUGH_REPLICAS_AFTER_APPEND", () => {
    const p = new Partition("orders-0", "b0", new PartitionLog("orders-0", flags), config);
    p.makeLeader(registration({ isr: ["b0"] }), 0);
    writeTxn(p.log, 4, 0);
    expect(p.isUnderMinIsr()).toBe(true);
    expect(p.maybeIncrementLeaderHW(1, () => true)).toBe(false);
    const q = new Partition("orders-0", "b0", new PartitionLog("orders-0", flags), config);
    q.makeLeader(registration({ isr: ["b0", "b1"] }), 0);
    writeTxn(q.log, 4, 0);
    q.pendingIsr = ["b0"]; // a shrink in flight: the maximal ISR still has b1
    q.updateFollowerFetchState("b1", 1, 2);
    q.maybeIncrementLeaderHW(2, () => true);
    q.isr = ["b0"];
    q.pendingIsr = null;
    expect(q.checkEnoughReplicasReachOffset(1)).toBe(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
  });

  it("finds followers out of sync after replica.lag.time.max.ms", () => {
    const p = new Partition("orders-0", "b0", new PartitionLog("orders-0", flags), config);
    p.makeLeader(registration(), 0);
    writeTxn(p.log, 4, 0);
    p.updateFollowerFetchState("b1", 1, 10);
    p.updateFollowerFetchState("b2", 0, 10);
    expect(p.outOfSyncReplicas(50)).toEqual([]);
    expect(p.outOfSyncReplicas(120)).toEqual(["b2"]);
  });
});

describe("QuorumController elections (PartitionChangeBuilder.electAnyLeader)", () => {
  function controller(unclean = false) {
    const published: LeaderChange[][] = [];
    const sim = new Simulation(new Trace());
    const c = new QuorumController(
      sim,
      ["b0", "b1", "b2"],
      [{ partition: "orders-0", replicas: ["b0", "b1", "b2"], uncleanLeaderElectionEnable: unclean }],
      (_image, changes) => published.push([...changes]),
    );
    return { c, published };
  }

  it("fencing the leader elects the next ISR replica in assignment order and bumps the leader epoch", () => {
    const { c, published } = controller();
    c.fence("b0");
    expect(c.registration("orders-0")).toMatchObject({ leader: "b1", leaderEpoch: 1, isr: ["b1", "b2"] });
    expect(published.at(-1)?.[0]).toMatchObject({ cause: "broker-fenced", previousLeader: "b0", leader: "b1" });
  });

  it("with the last ISR member gone the partition goes offline and the ISR keeps that member", () => {
    const { c } = controller();
    c.alterPartition("orders-0", "b0", 0, 0, ["b0"]);
    c.fence("b0");
    expect(c.registration("orders-0")).toMatchObject({ leader: null, isr: ["b0"] });
    c.unfence("b0");
    expect(c.registration("orders-0")).toMatchObject({ leader: "b0", isr: ["b0"] });
  });

  it("an unclean election picks a live replica outside the ISR when the topic allows it", () => {
    const { c, published } = controller(true);
    c.alterPartition("orders-0", "b0", 0, 0, ["b0"]);
    c.fence("b0");
    expect(c.registration("orders-0")).toMatchObject({ leader: "b1", isr: ["b1"], leaderRecoveryState: "RECOVERING" });
    expect(published.at(-1)?.[0]?.cause).toBe("unclean");
  });

  it("AlterPartition is refused for a stale leader epoch or partition epoch", () => {
    const { c } = controller();
    expect(c.alterPartition("orders-0", "b0", 0, 5, ["b0", "b1"]).errorCode).toBe(Errors.INVALID_UPDATE_VERSION);
    c.moveLeader("orders-0");
    expect(c.alterPartition("orders-0", "b0", 0, 1, ["b0", "b1"]).errorCode).toBe(Errors.FENCED_LEADER_EPOCH);
  });

  it("controlled shutdown moves leadership away; preferred election brings it back once in the ISR", () => {
    const { c } = controller();
    c.controlledShutdown("b0");
    expect(c.registration("orders-0").leader).toBe("b1");
    c.unfence("b0");
    c.electPreferredLeaders();
    expect(c.registration("orders-0").leader).toBe("b1"); // b0 is not back in the ISR yet
    const reg = c.registration("orders-0");
    c.alterPartition("orders-0", "b1", reg.leaderEpoch, reg.partitionEpoch, ["b1", "b2", "b0"]);
    c.electPreferredLeaders();
    expect(c.registration("orders-0")).toMatchObject({ leader: "b0" });
  });
});

describe("a follower whose latest epoch the new leader never had (AbstractFetcherThread.truncateOnFetchResponse)", () => {
  it("truncating to its own log end still forgets that epoch, so its next fetch does not diverge again", () => {
    // The follower led at epoch 3 for a moment and wrote nothing; the leader at epoch 4 never had epoch 3.
    const log = leaderLog(2);
    writeTxn(log, 4, 0);
    log.becomeLeader(3);
    expect(log.leaderEpochCache.latestEpoch).toBe(3);
    log.truncateTo(log.logEndOffset);
    expect(log.leaderEpochCache.latestEpoch).toBe(2);
  });
});
