import { describe, expect, it } from "vitest";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { rangeAssignment } from "../../src/kafka/coordinator/group/classic-group.js";
import {
  DEFAULT_GROUP_COORDINATOR_OPTIONS,
  GroupCoordinatorShard,
  type GroupCoordinatorOptions,
  type TxnOffsetCommitInput,
} from "../../src/kafka/coordinator/group/group-coordinator-shard.js";
import { groupPartitionFor } from "../../src/kafka/coordinator/group/group-partitioning.js";
import { MemberIds } from "../../src/kafka/coordinator/group/member-ids.js";
import { type ReleaseName, releaseProfile } from "../../src/kafka/release.js";

const GROUP = "processors";
const INPUT = ["input-0", "input-1", "input-2"];
/** A coordinator's group settings; its member ids come from one source for the whole cluster, as in Cluster. */
function groupConfig() {
  return { sessionTimeoutMs: 100, rebalanceTimeoutMs: 200, partitions: INPUT, memberIds: new MemberIds() };
}
const PID = 4000;

function shardOn(release: ReleaseName, options: Partial<GroupCoordinatorOptions> = {}) {
  const profile = releaseProfile(release);
  const log = new PartitionLog("__consumer_offsets-7", () => profile.flags);
  const config = groupConfig();
  const shard = new GroupCoordinatorShard(7, log, config, { ...DEFAULT_GROUP_COORDINATOR_OPTIONS, ...options });
  return { log, shard, config };
}

/** Two members join and sync: generation 1, both stable. */
function stableGroupOfTwo(shard: GroupCoordinatorShard) {
  const a = shard.joinGroup(GROUP, "", null, 0);
  const b = shard.joinGroup(GROUP, "", null, 0);
  // b's join started a rebalance a has to rejoin.
  shard.joinGroup(GROUP, a.memberId, null, 1);
  const generation = shard.group(GROUP).generationId;
  shard.syncGroup(GROUP, a.memberId, null, generation, 1);
  return { a: a.memberId, b: b.memberId, generation };
}

/** A TxnOffsetCommit as the producer's sendOffsetsToTransaction sends it, verified first (KAFKA-15449). */
function txnCommit(
  log: PartitionLog,
  shard: GroupCoordinatorShard,
  member: string,
  generation: number,
  epoch: number,
  offset: number,
  ghost = "t1",
) {
  const input: TxnOffsetCommitInput = {
    transactionalId: "proc-1",
    producerId: PID,
    producerEpoch: epoch,
    groupId: GROUP,
    memberId: member,
    groupInstanceId: null,
    generationId: generation,
    offsets: [{ partition: "input-0", offset }],
    verificationGuard: log.maybeStartTransactionVerification(PID, 0, epoch, true),
    ghostTxn: ghost,
  };
  return shard.commitTransactionalOffsets(input);
}

/** Under TV2: A commits input-0@10 at epoch 5 (marker epoch 6), B then holds input-0@20 pending at epoch 6. */
function commitAThenOpenB(log: PartitionLog, shard: GroupCoordinatorShard) {
  const { a, generation } = stableGroupOfTwo(shard);
  txnCommit(log, shard, a, generation, 5, 10, "A");
  shard.completeTransaction(marker(6, "COMMIT", 2, "A"));
  txnCommit(log, shard, a, generation, 6, 20, "B");
  return { a, generation };
}

const marker = (epoch: number, result: "COMMIT" | "ABORT", tv = 2, ghost = "t1") => ({
  producerId: PID,
  producerEpoch: epoch,
  coordinatorEpoch: 3,
  result,
  transactionVersion: tv,
  ghostTxn: ghost,
});

describe("__consumer_offsets partitioning (GroupCoordinatorService.partitionFor)", () => {
  it("is Utils.abs(groupId.hashCode) % offsets.topic.num.partitions", () => {
    // "test".hashCode() is 3556498 in Java; 3556498 % 50 = 48.
    expect(groupPartitionFor("test", 50)).toBe(48);
    expect(groupPartitionFor("test", 7)).toBe(3556498 % 7);
  });
});

describe("ClassicGroup membership (join, sync, heartbeat, session timeout)", () => {
  it("a new member's join rebalances the group; the completed join is a new generation with a range assignment", () => {
    const { shard } = shardOn("4.2.1");
    const { a, b, generation } = stableGroupOfTwo(shard);
    expect(generation).toBe(2);
    expect(shard.group(GROUP).state).toBe("STABLE");
    expect(shard.syncGroup(GROUP, a, null, generation, 2).assignment).toEqual(["input-0", "input-1"]);
    expect(shard.syncGroup(GROUP, b, null, generation, 2).assignment).toEqual(["input-2"]);
    const c = shard.joinGroup(GROUP, "", null, 3);
    expect(shard.heartbeat(GROUP, a, null, generation, 3)).toBe(Errors.REBALANCE_IN_PROGRESS);
    expect(c.errorCode).toBe(Errors.NONE);
  });

  it("a member silent past the session timeout is removed; its old generation is then illegal", () => {
    const { shard } = shardOn("4.2.1");
    const { a, b, generation } = stableGroupOfTwo(shard);
    shard.heartbeat(GROUP, a, null, generation, 90);
    expect(shard.tick(101)).toEqual([{ groupId: GROUP, removed: [b] }]);
    shard.joinGroup(GROUP, a, null, 102);
    expect(shard.group(GROUP).generationId).toBe(generation + 1);
    expect(shard.heartbeat(GROUP, b, null, generation, 103)).toBe(Errors.UNKNOWN_MEMBER_ID);
    expect(shard.heartbeat(GROUP, a, null, generation, 103)).toBe(Errors.ILLEGAL_GENERATION);
  });

  it("a static member restarting takes its instance's place; the old member id is fenced (FENCED_INSTANCE_ID)", () => {
    const { shard } = shardOn("4.2.1");
    const first = shard.joinGroup(GROUP, "", "instance-1", 0);
    shard.syncGroup(GROUP, first.memberId, "instance-1", 1, 0);
    const again = shard.joinGroup(GROUP, "", "instance-1", 5);
    expect(again.memberId).not.toBe(first.memberId);
    expect(shard.heartbeat(GROUP, first.memberId, "instance-1", 1, 6)).toBe(Errors.FENCED_INSTANCE_ID);
  });

  it("a known member's join (classicGroupJoinExistingMember): a stable follower learns the generation, a stable leader rebalances", () => {
    const { shard } = shardOn("4.2.1");
    const { a, b, generation } = stableGroupOfTwo(shard);
    const leader = shard.group(GROUP).leaderId;
    const follower = leader === a ? b : a;
    expect(shard.joinGroup(GROUP, follower, null, 5)).toMatchObject({
      errorCode: Errors.NONE,
      generationId: generation,
    });
    expect(shard.group(GROUP).state).toBe("STABLE");
    shard.joinGroup(GROUP, leader as string, null, 6);
    expect(shard.group(GROUP).state).toBe("PREPARING_REBALANCE");
    shard.joinGroup(GROUP, follower, null, 7);
    expect(shard.group(GROUP)).toMatchObject({ state: "COMPLETING_REBALANCE", generationId: generation + 1 });
    // A repeated join while the group completes answers the same generation.
    expect(shard.joinGroup(GROUP, follower, null, 8).generationId).toBe(generation + 1);
  });

  it("RangeAssignor gives the first members one more partition when it does not divide", () => {
    expect([...rangeAssignment(["m1", "m2"], ["p0", "p1", "p2"]).values()]).toEqual([["p0", "p1"], ["p2"]]);
  });
});

describe("TxnOffsetCommit fencing (KIP-447, OffsetMetadataManager.validateTransactionalOffsetCommit)", () => {
  it("a member of an older generation gets ILLEGAL_GENERATION and writes nothing", () => {
    const { log, shard } = shardOn("4.2.1");
    const { a, generation } = stableGroupOfTwo(shard);
    shard.joinGroup(GROUP, "", null, 10); // a third member: a new rebalance
    shard.joinGroup(GROUP, a, null, 10);
    const end = log.logEndOffset;
    expect(shard.group(GROUP).state).toBe("PREPARING_REBALANCE");
    expect(txnCommit(log, shard, a, generation - 1, 5, 10)).toBe(Errors.ILLEGAL_GENERATION);
    expect(log.logEndOffset).toBe(end);
  });

  it("a removed member gets UNKNOWN_MEMBER_ID", () => {
    const { log, shard } = shardOn("4.2.1");
    const { a, b, generation } = stableGroupOfTwo(shard);
    shard.heartbeat(GROUP, a, null, generation, 90);
    shard.tick(101);
    expect(txnCommit(log, shard, b, generation, 5, 10)).toBe(Errors.UNKNOWN_MEMBER_ID);
  });

  it("an unknown group refuses a managed commit with ILLEGAL_GENERATION", () => {
    const { log, shard } = shardOn("4.2.1");
    expect(txnCommit(log, shard, "nobody", 3, 5, 10)).toBe(Errors.ILLEGAL_GENERATION);
  });

  it("without the KIP-447 check (pre-2.5) the fenced member's offsets are accepted: the zombie commit", () => {
    const { log, shard } = shardOn("4.2.1", { txnOffsetCommitGenerationCheck: false });
    const { b, generation } = stableGroupOfTwo(shard);
    shard.tick(101);
    expect(txnCommit(log, shard, b, generation, 5, 10)).toBe(Errors.NONE);
  });
});

describe("pending transactional offsets, require_stable and markers (replayEndTransactionMarker)", () => {
  it("OffsetFetch with require_stable answers UNSTABLE_OFFSET_COMMIT while offsets are pending; COMMIT materializes them", () => {
    const { log, shard } = shardOn("4.2.1");
    const { a, generation } = stableGroupOfTwo(shard);
    expect(txnCommit(log, shard, a, generation, 5, 10)).toBe(Errors.NONE);
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)).toEqual([
      { partition: "input-0", offset: -1, errorCode: Errors.UNSTABLE_OFFSET_COMMIT },
    ]);
    // Without require_stable the old (here: no) offset is read: the pre-KIP-447 reprocessing window.
    expect(shard.fetchOffsets(GROUP, ["input-0"], false)[0]).toMatchObject({ offset: -1, errorCode: Errors.NONE });
    const done = shard.completeTransaction(marker(6, "COMMIT"));
    expect(done.errorCode).toBe(Errors.NONE);
    expect(done.materialized?.entries).toMatchObject([{ partition: "input-0", materialized: true }]);
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)[0]).toMatchObject({ offset: 10, errorCode: Errors.NONE });
  });

  it("ABORT discards the pending offsets; the committed offset stays", () => {
    const { log, shard } = shardOn("4.2.1");
    const { a, generation } = stableGroupOfTwo(shard);
    txnCommit(log, shard, a, generation, 5, 10);
    shard.completeTransaction(marker(6, "COMMIT"));
    txnCommit(log, shard, a, generation, 6, 20, "t2");
    const done = shard.completeTransaction(marker(7, "ABORT", 2, "t2"));
    expect(done.materialized?.entries).toMatchObject([{ materialized: false }]);
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)[0]).toMatchObject({ offset: 10 });
  });

  it("4.2.1 (the marker's TransactionVersion reaches the log): the strict check refuses a stale copy of A's TV2 marker; B's offsets stay pending (reverted)", () => {
    const { log, shard } = shardOn("4.2.1");
    commitAThenOpenB(log, shard);
    const stale = shard.completeTransaction(marker(6, "COMMIT", 2, "A"));
    expect(stale.transactionVersionSeen).toBe(2);
    expect(stale).toMatchObject({ errorCode: Errors.INVALID_PRODUCER_EPOCH, materialized: null });
    expect(stale.append).toMatchObject({ kind: "error", rule: "strict-tv2" });
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)[0]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
    expect(shard.fetchOffsets(GROUP, ["input-0"], false)[0]?.offset).toBe(10);
  });

  for (const [what, release, tv, options] of [
    ["a 4.1 leader (v1: TransactionVersion 0, legacy rule)", "4.1", 0, {}],
    [
      "4.2.1 if the group coordinator's path dropped the TransactionVersion",
      "4.2.1",
      2,
      { markerTransactionVersionReachesLog: false },
    ],
  ] as const) {
    it(`${what}: the stale copy of A's marker completes B's pending offsets`, () => {
      const { log, shard } = shardOn(release, options);
      commitAThenOpenB(log, shard);
      const stale = shard.completeTransaction(marker(6, "COMMIT", tv, "A"));
      expect(stale.append).toMatchObject({ kind: "appended", rule: "legacy" });
      expect(stale.materialized?.entries).toMatchObject([
        { offset: { ghostTxn: "B", offset: 20 }, materialized: true },
      ]);
    });
  }

  it("a marker refused by the producer-state check reverts replayEndTransactionMarker (an older epoch, any release)", () => {
    const { log, shard } = shardOn("4.1");
    const { a, generation } = stableGroupOfTwo(shard);
    txnCommit(log, shard, a, generation, 5, 10);
    const old = shard.completeTransaction(marker(4, "COMMIT"));
    expect(old.errorCode).toBe(Errors.INVALID_PRODUCER_EPOCH);
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)[0]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
  });

  it("a new leader loads committed and pending offsets and the generation from the log (CoordinatorLoaderImpl)", () => {
    const { log, shard, config } = shardOn("4.2.1");
    const { a, generation } = commitAThenOpenB(log, shard);
    const loaded = GroupCoordinatorShard.load(7, log, config);
    expect(loaded.fetchOffsets(GROUP, ["input-0"], false)[0]?.offset).toBe(10);
    expect(loaded.fetchOffsets(GROUP, ["input-0"], true)[0]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
    expect(loaded.group(GROUP).generationId).toBe(generation);
    // Members rejoin: the old member id is unknown, and a new id never repeats an old one.
    expect(txnCommit(log, loaded, a, generation, 6, 30, "B")).toBe(Errors.UNKNOWN_MEMBER_ID);
    expect(loaded.joinGroup(GROUP, "", null, 50).memberId).not.toBe(a);
  });

  it("a new coordinator never gives a new member the id of one the old coordinator admitted unwritten (everything's seed 4806)", () => {
    // ClassicGroup.generateMemberId takes a random UUID: ids are unique whichever coordinator hands
    // them out. a's join completes generation 1 (a GroupMetadata record); b's join only starts the
    // next rebalance, so nothing in the log says b's id was ever handed out.
    const { log, shard, config } = shardOn("4.2.1");
    const a = shard.joinGroup(GROUP, "", null, 0);
    expect(a.generationId).toBe(1);
    const b = shard.joinGroup(GROUP, "", null, 0);
    expect(b.generationId).toBe(1);
    // The partition's leadership moves: the new coordinator loads the log and its members rejoin.
    const loaded = GroupCoordinatorShard.load(7, log, config);
    const c = loaded.joinGroup(GROUP, "", null, 10);
    expect(c.errorCode).toBe(Errors.NONE);
    expect([a.memberId, b.memberId]).not.toContain(c.memberId);
    // So b, still believing in its id, is not taken for c: it must join as a new member.
    expect(loaded.joinGroup(GROUP, b.memberId, null, 20).errorCode).toBe(Errors.UNKNOWN_MEMBER_ID);
  });
});
