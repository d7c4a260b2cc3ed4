import { Errors } from "../../common/errors.js";
import type { PartitionKey } from "../../common/types.js";
import type { MemberIds } from "./member-ids.js";

/** ClassicGroupState: the states of a classic (JoinGroup/SyncGroup) consumer group. */
export type ClassicGroupState = "EMPTY" | "PREPARING_REBALANCE" | "COMPLETING_REBALANCE" | "STABLE" | "DEAD";

/** ClassicGroupMember, reduced to what generations and fencing need. */
export interface ClassicGroupMember {
  readonly memberId: string;
  /** group.instance.id of a static member (KIP-345), null for a dynamic one. */
  readonly groupInstanceId: string | null;
  /** Joined in the current rebalance (JoinGroup received since PREPARING_REBALANCE began). */
  joined: boolean;
  lastHeartbeatMs: number;
  /** The partitions of the input topic given to it at the last completed join. */
  assignment: readonly PartitionKey[];
}

export interface ClassicGroupConfig {
  readonly sessionTimeoutMs: number;
  readonly rebalanceTimeoutMs: number;
  /** The input partitions the members share (the subscription, resolved). */
  readonly partitions: readonly PartitionKey[];
  /** Where new member ids come from (the stand-in for Kafka's random UUID, shared by every coordinator of the cluster). */
  readonly memberIds: MemberIds;
}

export type JoinResult = { errorCode: number; memberId: string; generationId: number; leaderId: string | null };
export type SyncResult = { errorCode: number; assignment: readonly PartitionKey[] };

/** Upper bound on members of one group: a run that joins more is refused, not slowed. */
export const MAX_GROUP_MEMBERS = 64;

/** Who commits offsets: the member, its static instance, and the generation it believes current. */
export interface OffsetCommitter {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly generationId: number;
}

/**
 * ClassicGroup (group-coordinator's classic/ClassicGroup.java with the join and sync handling of
 * GroupMetadataManager): members, generations, an eager rebalance and KIP-345 static members.
 * Simplified (see docs/model.md): JoinGroup answers at once and the member learns the completed
 * generation from SyncGroup; the coordinator computes the assignment itself, as the leader's
 * RangeAssignor would (member ids in order, partitions in order), instead of taking it from the
 * leader's SyncGroup; there is no MEMBER_ID_REQUIRED round trip and no protocol selection.
 */
export class ClassicGroup {
  state: ClassicGroupState = "EMPTY";
  generationId = 0;
  leaderId: string | null = null;
  readonly members = new Map<string, ClassicGroupMember>();
  /** group.instance.id -> its current member id (the static member mapping). */
  private readonly staticMembers = new Map<string, string>();
  private rebalanceDeadlineMs = 0;

  constructor(
    readonly groupId: string,
    private readonly config: ClassicGroupConfig,
  ) {}

  /** Loaded from a GroupMetadata record: the generation, with no members (they rejoin). */
  restore(generationId: number): void {
    this.generationId = generationId;
  }

  isInState(state: ClassicGroupState): boolean {
    return this.state === state;
  }

  /**
   * JoinGroup. An empty member id joins as a new member and starts a rebalance (a static member
   * with a known instance id takes over its old member id, which is fenced from then on: KIP-345's
   * replacement, without a rebalance). A known member rejoins as classicGroupJoinExistingMember says.
   */
  join(memberId: string, groupInstanceId: string | null, nowMs: number): JoinResult {
    if (this.isInState("DEAD")) return this.joinError(Errors.COORDINATOR_NOT_AVAILABLE, memberId);
    if (memberId === "") return this.joinNewMember(groupInstanceId, nowMs);
    const member = this.members.get(memberId);
    if (!member) return this.joinError(Errors.UNKNOWN_MEMBER_ID, memberId);
    if (groupInstanceId !== null && this.staticMembers.get(groupInstanceId) !== memberId)
      return this.joinError(Errors.FENCED_INSTANCE_ID, memberId);
    member.lastHeartbeatMs = nowMs;
    // GroupMetadataManager.classicGroupJoinExistingMember (member metadata never changes here): a
    // join during the join phase counts; while the group completes, or from a stable follower, it
    // just learns the current generation; a stable leader's join starts a rebalance.
    if (this.isInState("STABLE") && this.leaderId === memberId) this.prepareRebalance(nowMs);
    if (this.isInState("PREPARING_REBALANCE")) {
      member.joined = true;
      this.maybeCompleteJoin(nowMs);
    }
    return { errorCode: Errors.NONE, memberId, generationId: this.generationId, leaderId: this.leaderId };
  }

  private joinNewMember(groupInstanceId: string | null, nowMs: number): JoinResult {
    // ClassicGroup.generateMemberId: unique whichever coordinator asks (Kafka's is a random UUID).
    const newMemberId = this.config.memberIds.generateMemberId(this.groupId);
    const previous = groupInstanceId === null ? undefined : this.staticMembers.get(groupInstanceId);
    const old = previous === undefined ? undefined : this.members.get(previous);
    if (groupInstanceId !== null && old) {
      // A static member restarted: it takes the old member's place and assignment; the old id is fenced.
      this.members.delete(old.memberId);
      this.members.set(newMemberId, { ...old, memberId: newMemberId, lastHeartbeatMs: nowMs, joined: true });
      this.staticMembers.set(groupInstanceId, newMemberId);
      if (this.leaderId === old.memberId) this.leaderId = newMemberId;
      if (!this.isInState("STABLE")) this.maybeCompleteJoin(nowMs);
      return {
        errorCode: Errors.NONE,
        memberId: newMemberId,
        generationId: this.generationId,
        leaderId: this.leaderId,
      };
    }
    if (this.members.size >= MAX_GROUP_MEMBERS)
      throw new Error(`group ${this.groupId} would exceed ${MAX_GROUP_MEMBERS} members`);
    if (!this.isInState("PREPARING_REBALANCE")) this.prepareRebalance(nowMs);
    this.members.set(newMemberId, {
      memberId: newMemberId,
      groupInstanceId,
      joined: true,
      lastHeartbeatMs: nowMs,
      assignment: [],
    });
    if (groupInstanceId !== null) this.staticMembers.set(groupInstanceId, newMemberId);
    this.maybeCompleteJoin(nowMs);
    return { errorCode: Errors.NONE, memberId: newMemberId, generationId: this.generationId, leaderId: this.leaderId };
  }

  private joinError(errorCode: number, memberId: string): JoinResult {
    return { errorCode, memberId, generationId: -1, leaderId: null };
  }

  /** SyncGroup: the member's assignment once its generation's join has completed. */
  sync(memberId: string, groupInstanceId: string | null, generationId: number, nowMs: number): SyncResult {
    const invalid = this.validateMemberAndGeneration(memberId, groupInstanceId, generationId);
    if (invalid !== Errors.NONE) return { errorCode: invalid, assignment: [] };
    if (this.isInState("PREPARING_REBALANCE")) return { errorCode: Errors.REBALANCE_IN_PROGRESS, assignment: [] };
    const member = this.members.get(memberId) as ClassicGroupMember;
    member.lastHeartbeatMs = nowMs;
    if (this.isInState("COMPLETING_REBALANCE")) this.state = "STABLE";
    return { errorCode: Errors.NONE, assignment: member.assignment };
  }

  /** Heartbeat (GroupMetadataManager.classicGroupHeartbeat): member, instance and generation checks, then the rebalance news. */
  heartbeat(memberId: string, groupInstanceId: string | null, generationId: number, nowMs: number): number {
    const invalid = this.validateMemberAndGeneration(memberId, groupInstanceId, generationId);
    if (invalid !== Errors.NONE) return invalid;
    (this.members.get(memberId) as ClassicGroupMember).lastHeartbeatMs = nowMs;
    return this.isInState("PREPARING_REBALANCE") ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
  }

  /** LeaveGroup: the member goes and the others rebalance. */
  leave(memberId: string, groupInstanceId: string | null, nowMs: number): number {
    const invalid = this.validateMember(memberId, groupInstanceId);
    if (invalid !== Errors.NONE) return invalid;
    this.removeMember(memberId, nowMs);
    return Errors.NONE;
  }

  /**
   * Time passes (the heartbeat and rebalance timers of GroupMetadataManager): members silent past the
   * session timeout are removed; a join phase past its rebalance timeout completes without the
   * members that did not rejoin. Returns the member ids removed.
   */
  tick(nowMs: number): string[] {
    const removed: string[] = [];
    for (const member of [...this.members.values()]) {
      if (member.lastHeartbeatMs + this.config.sessionTimeoutMs <= nowMs) {
        removed.push(member.memberId);
        this.removeMember(member.memberId, nowMs);
      }
    }
    if (this.isInState("PREPARING_REBALANCE") && nowMs >= this.rebalanceDeadlineMs) {
      for (const member of [...this.members.values()])
        if (!member.joined) {
          removed.push(member.memberId);
          this.members.delete(member.memberId);
          if (member.groupInstanceId !== null) this.staticMembers.delete(member.groupInstanceId);
        }
      this.completeJoin();
    }
    return removed;
  }

  /**
   * ClassicGroup.validateOffsetCommit, in its order: a dead group is not served; generation -1 with
   * an empty group is a simple (unmanaged) commit; otherwise the member and instance must be current
   * and the generation equal; a non-transactional commit is refused while the join completes.
   */
  validateOffsetCommit(committer: OffsetCommitter, commit: { isTransactional: boolean }): number {
    const { memberId, groupInstanceId, generationId } = committer;
    const isTransactional = commit.isTransactional;
    if (this.isInState("DEAD")) return Errors.COORDINATOR_NOT_AVAILABLE;
    if (generationId < 0 && this.isInState("EMPTY")) return Errors.NONE;
    if (generationId >= 0 || memberId !== "" || groupInstanceId !== null) {
      const invalid = this.validateMember(memberId, groupInstanceId);
      if (invalid !== Errors.NONE) return invalid;
      if (generationId !== this.generationId) return Errors.ILLEGAL_GENERATION;
    } else if (!isTransactional && !this.isInState("EMPTY")) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    if (!isTransactional && this.isInState("COMPLETING_REBALANCE")) return Errors.REBALANCE_IN_PROGRESS;
    return Errors.NONE;
  }

  /** ClassicGroup.validateMember: a static member's instance must map to this member id; the member must exist. */
  private validateMember(memberId: string, groupInstanceId: string | null): number {
    if (groupInstanceId !== null) {
      const current = this.staticMembers.get(groupInstanceId);
      if (current !== undefined && current !== memberId) return Errors.FENCED_INSTANCE_ID;
    }
    return this.members.has(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
  }

  private validateMemberAndGeneration(memberId: string, groupInstanceId: string | null, generationId: number): number {
    if (this.isInState("DEAD")) return Errors.COORDINATOR_NOT_AVAILABLE;
    const invalid = this.validateMember(memberId, groupInstanceId);
    if (invalid !== Errors.NONE) return invalid;
    return generationId === this.generationId ? Errors.NONE : Errors.ILLEGAL_GENERATION;
  }

  private removeMember(memberId: string, nowMs: number): void {
    const member = this.members.get(memberId);
    if (!member) return;
    this.members.delete(memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId)
      this.staticMembers.delete(member.groupInstanceId);
    if (this.isInState("STABLE") || this.isInState("COMPLETING_REBALANCE")) this.prepareRebalance(nowMs);
    this.maybeCompleteJoin(nowMs);
  }

  /** prepareRebalance: every member must rejoin before the rebalance timeout. */
  private prepareRebalance(nowMs: number): void {
    this.state = "PREPARING_REBALANCE";
    this.rebalanceDeadlineMs = nowMs + this.config.rebalanceTimeoutMs;
    for (const member of this.members.values()) member.joined = false;
  }

  private maybeCompleteJoin(_nowMs: number): void {
    if (!this.isInState("PREPARING_REBALANCE")) return;
    for (const member of this.members.values()) if (!member.joined) return;
    this.completeJoin();
  }

  /**
   * onCompleteJoin: a new generation. With members it awaits SyncGroup (COMPLETING_REBALANCE) and
   * the first member is the leader; without, the group is EMPTY at the new generation.
   */
  private completeJoin(): void {
    this.generationId++;
    const ids = [...this.members.keys()].sort();
    this.leaderId = ids[0] ?? null;
    if (ids.length === 0) {
      this.state = "EMPTY";
      return;
    }
    this.state = "COMPLETING_REBALANCE";
    const assignment = rangeAssignment(ids, this.config.partitions);
    for (const id of ids) (this.members.get(id) as ClassicGroupMember).assignment = assignment.get(id) ?? [];
  }
}

/** RangeAssignor over one topic: contiguous ranges, the first members taking one more when it does not divide. */
export function rangeAssignment(
  memberIds: readonly string[],
  partitions: readonly PartitionKey[],
): Map<string, PartitionKey[]> {
  const out = new Map<string, PartitionKey[]>();
  const per = Math.floor(partitions.length / Math.max(1, memberIds.length));
  const extra = partitions.length % Math.max(1, memberIds.length);
  let next = 0;
  memberIds.forEach((id, i) => {
    const count = per + (i < extra ? 1 : 0);
    out.set(id, partitions.slice(next, next + count));
    next += count;
  });
  return out;
}
