import { describe, expect, it } from "vitest";
import { PartitionLog } from "../../src/kafka/broker/partition-log.js";
import { Errors, IllegalStateException } from "../../src/kafka/common/errors.js";
import {
  type CommittedOffset,
  DEFAULT_GROUP_COORDINATOR_OPTIONS,
  DEFAULT_OFFSET_METADATA_MAX_BYTES,
  GroupCoordinatorShard,
  type TxnOffsetCommitInput,
} from "../../src/kafka/coordinator/group/group-coordinator-shard.js";
import { MemberIds } from "../../src/kafka/coordinator/group/member-ids.js";
import { type ReleaseFlags, releaseProfile } from "../../src/kafka/release.js";

/**
 * The group coordinator's historical bugs behind their switches (BUG-ZOO Z33-Z35): each test runs
 * the buggy order and the fixed one on the same inputs.
 */
const GROUP = "processors";
const CONFIG = {
  sessionTimeoutMs: 100,
  rebalanceTimeoutMs: 200,
  partitions: ["input-0", "input-1"],
  memberIds: new MemberIds(),
};
const PID = 4000;

function shardOn(overrides: Partial<ReleaseFlags> = {}) {
  const profile = releaseProfile("3.x", overrides);
  const log = new PartitionLog("__consumer_offsets-7", () => profile.flags);
  const options = {
    ...DEFAULT_GROUP_COORDINATOR_OPTIONS,
    pendingOffsetsKeepRejectedPartitions: profile.flags.pendingOffsetsKeepRejectedPartitions,
  };
  const shard = new GroupCoordinatorShard(7, log, CONFIG, options);
  return { log, shard };
}

/** One member, joined and synced: the group is STABLE at generation 1. */
function oneMember(shard: GroupCoordinatorShard) {
  const a = shard.joinGroup(GROUP, "", null, 0);
  shard.syncGroup(GROUP, a.memberId, null, a.generationId, 0);
  return { member: a.memberId, generation: a.generationId };
}

function commitInput(member: string, generation: number, guard: number, ghost: string): TxnOffsetCommitInput {
  return {
    transactionalId: "proc-1",
    producerId: PID,
    producerEpoch: 0,
    groupId: GROUP,
    memberId: member,
    groupInstanceId: null,
    generationId: generation,
    offsets: [{ partition: "input-0", offset: 10 }],
    verificationGuard: guard,
    ghostTxn: ghost,
  };
}

const commitMarker = { producerId: PID, producerEpoch: 0, coordinatorEpoch: 0, result: "COMMIT" as const };

/** TV1 (same epoch for every transaction): t1's offsets are verified, written and committed by its marker. */
function committedFirstTransaction(log: PartitionLog, shard: GroupCoordinatorShard) {
  const { member, generation } = oneMember(shard);
  const guard = log.maybeStartTransactionVerification(PID, -1, 0, false);
  expect(shard.commitTransactionalOffsets(commitInput(member, generation, guard, "t1"))).toBe(Errors.NONE);
  shard.completeTransaction({ ...commitMarker, transactionVersion: 0, ghostTxn: "t1" });
  return { member, generation };
}

describe("Z33 KAFKA-15449: an unverified TxnOffsetCommit (GroupMetadataManager.storeOffsets in 3.6)", () => {
  it("with the bug a late copy of t1's TxnOffsetCommit, after t1's marker, opens a transaction no marker will close", () => {
    const { log, shard } = shardOn({ txnOffsetCommitUnverified: true });
    const { member, generation } = committedFirstTransaction(log, shard);
    // The late copy: the 3.6 group coordinator asks no transaction coordinator, so it has no guard.
    expect(shard.commitTransactionalOffsets(commitInput(member, generation, 0, "t1"))).toBe(Errors.NONE);
    expect(log.producers.get(PID)?.currentTxnFirstOffset).not.toBeNull();
    expect(log.lastStableOffset()).toBeLessThan(log.logEndOffset);
    // Its offsets stay pending: a require_stable OffsetFetch answers UNSTABLE_OFFSET_COMMIT.
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)[0]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
  });

  it("fixed (PR #14370): UnifiedLog.analyzeAndValidateProducerState checks the guard of origin COORDINATOR too", () => {
    const { log, shard } = shardOn();
    const { member, generation } = committedFirstTransaction(log, shard);
    const end = log.logEndOffset;
    expect(shard.commitTransactionalOffsets(commitInput(member, generation, 0, "t1"))).toBe(Errors.INVALID_TXN_STATE);
    expect(log.logEndOffset).toBe(end);
    expect(shard.fetchOffsets(GROUP, ["input-0"], true)[0]).toMatchObject({ offset: 10, errorCode: Errors.NONE });
  });

  it("the switch leaves a producer's own unverified batch (origin CLIENT) refused, as 3.6 did", () => {
    const { log } = shardOn({ txnOffsetCommitUnverified: true });
    const append = log.appendData({
      producerId: PID,
      producerEpoch: 0,
      baseSequence: 0,
      isTransactional: true,
      values: ["v"],
      ghostTxn: "t1",
      verificationGuard: 0,
    });
    expect(append).toMatchObject({ kind: "error", errorCode: Errors.INVALID_TXN_STATE });
  });
});

describe("Z34 KAFKA-15784: validation before the verification, write after it (GroupCoordinator.doTxnCommitOffsets)", () => {
  /** The member's commit is validated, then a second member joins and the join completes: a new generation. */
  function validatedThenRebalanced(shard: GroupCoordinatorShard) {
    const { member, generation } = oneMember(shard);
    const input = commitInput(member, generation, 0, "t1");
    expect(shard.validateTransactionalOffsetCommit(input)).toBe(Errors.NONE);
    shard.joinGroup(GROUP, "", null, 5);
    shard.joinGroup(GROUP, member, null, 6);
    expect(shard.group(GROUP).generationId).toBe(generation + 1);
    return input;
  }

  it("with the bug the write after the verification takes the old generation's offsets (validatedBefore)", () => {
    const { log, shard } = shardOn();
    const input = validatedThenRebalanced(shard);
    const guard = log.maybeStartTransactionVerification(PID, -1, 0, false);
    expect(shard.commitTransactionalOffsets({ ...input, verificationGuard: guard }, true)).toBe(Errors.NONE);
    expect(shard.offsets.hasPendingTransactionalOffsets(GROUP, "input-0")).toBe(true);
  });

  it("fixed (PR #14774): validation runs with the write, after the verification, and sees the new generation", () => {
    const { log, shard } = shardOn();
    const input = validatedThenRebalanced(shard);
    const guard = log.maybeStartTransactionVerification(PID, -1, 0, false);
    const end = log.logEndOffset;
    expect(shard.commitTransactionalOffsets({ ...input, verificationGuard: guard })).toBe(Errors.ILLEGAL_GENERATION);
    expect(log.logEndOffset).toBe(end);
  });
});

describe("Z35 KAFKA-16371: partitions refused for their metadata (GroupMetadataManager.storeOffsets)", () => {
  const TOO_LARGE = "s".repeat(DEFAULT_OFFSET_METADATA_MAX_BYTES + 1);
  /** GroupMetadataManagerTest.testOffsetMetadataTooLargePartialFailure's request: one partition fits, one does not. */
  const PARTIAL: CommittedOffset[] = [
    { partition: "input-0", offset: 37, metadata: "" },
    { partition: "input-1", offset: 38, metadata: TOO_LARGE },
  ];
  const simple = { groupId: GROUP, memberId: "", groupInstanceId: null, generationId: -1 };
  const stable = (shard: GroupCoordinatorShard) => shard.fetchOffsets(GROUP, ["input-0", "input-1"], true);
  const txnPartial = (log: PartitionLog, shard: GroupCoordinatorShard) => {
    const guard = log.maybeStartTransactionVerification(PID, -1, 0, false);
    return shard.commitTransactionalOffsets({ ...commitInput("", -1, guard, "t1"), offsets: PARTIAL });
  };

  it("a plain OffsetCommit writes the partition that fits and refuses the other (OFFSET_METADATA_TOO_LARGE)", () => {
    const { shard } = shardOn();
    expect(shard.commitOffsets(simple, PARTIAL)).toBe(Errors.OFFSET_METADATA_TOO_LARGE);
    expect(stable(shard)).toEqual([
      { partition: "input-0", offset: 37, errorCode: Errors.NONE },
      { partition: "input-1", offset: -1, errorCode: Errors.NONE },
    ]);
  });

  it("with the bug the refused partition of a plain OffsetCommit stays pending: UNSTABLE_OFFSET_COMMIT for ever", () => {
    const { shard } = shardOn({ pendingOffsetsKeepRejectedPartitions: true });
    expect(shard.commitOffsets(simple, PARTIAL)).toBe(Errors.OFFSET_METADATA_TOO_LARGE);
    expect(stable(shard)[1]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
    // A later commit of the other partition, or any marker, does not clear it.
    expect(shard.commitOffsets(simple, [{ partition: "input-0", offset: 40 }])).toBe(Errors.NONE);
    shard.completeTransaction({ ...commitMarker, result: "ABORT", transactionVersion: 0, ghostTxn: null });
    expect(stable(shard)[1]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
  });

  it("every partition refused: nothing is written or staged, with or without the bug", () => {
    const { log, shard } = shardOn({ pendingOffsetsKeepRejectedPartitions: true });
    const end = log.logEndOffset;
    expect(shard.commitOffsets(simple, [PARTIAL[1] as CommittedOffset])).toBe(Errors.OFFSET_METADATA_TOO_LARGE);
    expect(log.logEndOffset).toBe(end);
    expect(stable(shard)[1]?.errorCode).toBe(Errors.NONE);
  });

  it("with the bug a TxnOffsetCommit's refused partition is pending until the producer's next marker (ABORT clears it)", () => {
    const { log, shard } = shardOn({ pendingOffsetsKeepRejectedPartitions: true });
    expect(txnPartial(log, shard)).toBe(Errors.OFFSET_METADATA_TOO_LARGE);
    expect(stable(shard).map((p) => p.errorCode)).toEqual([
      Errors.UNSTABLE_OFFSET_COMMIT,
      Errors.UNSTABLE_OFFSET_COMMIT,
    ]);
    shard.completeTransaction({ ...commitMarker, result: "ABORT", transactionVersion: 0, ghostTxn: "t1" });
    expect(stable(shard).map((p) => p.errorCode)).toEqual([Errors.NONE, Errors.NONE]);
  });

  it("with the bug a COMMIT marker meets the unwritten entry: IllegalStateException (completePendingTxnOffsetCommit)", () => {
    const { log, shard } = shardOn({ pendingOffsetsKeepRejectedPartitions: true });
    txnPartial(log, shard);
    expect(() => shard.completeTransaction({ ...commitMarker, transactionVersion: 0, ghostTxn: "t1" })).toThrow(
      IllegalStateException,
    );
  });

  it("fixed (PR #16072): only the written partition is pending, and COMMIT materializes it", () => {
    const { log, shard } = shardOn();
    expect(txnPartial(log, shard)).toBe(Errors.OFFSET_METADATA_TOO_LARGE);
    expect(stable(shard).map((p) => p.errorCode)).toEqual([Errors.UNSTABLE_OFFSET_COMMIT, Errors.NONE]);
    shard.completeTransaction({ ...commitMarker, transactionVersion: 0, ghostTxn: "t1" });
    expect(stable(shard)).toEqual([
      { partition: "input-0", offset: 37, errorCode: Errors.NONE },
      { partition: "input-1", offset: -1, errorCode: Errors.NONE },
    ]);
  });
});
