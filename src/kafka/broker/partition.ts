import { Errors } from "../common/errors.js";
import type { PartitionKey } from "../common/types.js";
import type { PartitionRegistration } from "../metadata/metadata-image.js";
import type { PartitionLog } from "./partition-log.js";

/** What a leader knows of one follower (Kafka's Replica / ReplicaState). */
export interface ReplicaState {
  readonly brokerId: string;
  /** The follower's log end offset, as its last fetch offset told (-1: not fetched under this leader yet). */
  logEndOffset: number;
  /** The last time the follower was known to have reached the leader's log end. */
  lastCaughtUpTimeMs: number;
  /** The leader's log end when the follower last fetched, and when that was. */
  lastFetchLeaderLogEndOffset: number;
  lastFetchTimeMs: number;
}

/** Replication settings of one partition (per topic, from the scenario). */
export interface PartitionConfig {
  /** min.insync.replicas (effective: at most the replication factor). */
  minInsyncReplicas: number;
  /** replica.lag.time.max.ms */
  replicaLagTimeMaxMs: number;
}

/**
 * kafka.cluster.Partition: one partition's replica on one broker. As leader it tracks the ISR
 * (committed, and the target of an AlterPartition in flight), each follower's progress, and moves
 * the high watermark; as follower it only holds the log (the fetcher drives it).
 */
export class Partition {
  leader: string | null = null;
  leaderEpoch = -1;
  partitionEpoch = -1;
  /** The log end when this replica became leader (a follower joins the ISR only past it). */
  leaderEpochStartOffset = -1;
  replicas: readonly string[] = [];
  /** The committed ISR, as the last AlterPartition answer or metadata image told this leader. */
  isr: readonly string[] = [];
  /** The ISR an AlterPartition in flight asks for (null: none in flight). */
  pendingIsr: readonly string[] | null = null;
  private readonly remote = new Map<string, ReplicaState>();

  constructor(
    readonly key: PartitionKey,
    readonly brokerId: string,
    readonly log: PartitionLog,
    readonly config: PartitionConfig,
  ) {}

  get isLeader(): boolean {
    return this.leader === this.brokerId;
  }

  /**
   * The maximal ISR: while an expansion is in flight the new member already counts for the high
   * watermark and min.insync.replicas after the append; while a shrink is in flight the old members still do.
   */
  maximalIsr(): readonly string[] {
    const pending = this.pendingIsr;
    if (pending === null) return this.isr;
    return pending.length > this.isr.length ? pending : this.isr;
  }

  private effectiveMinIsr(): number {
    return Math.min(this.config.minInsyncReplicas, this.replicas.length);
  }

  /** Fewer in-sync replicas than min.insync.replicas: acks=all appends are refused, the HW is frozen. */
  isUnderMinIsr(): boolean {
    return this.isr.length < this.effectiveMinIsr();
  }

  // ------------------------------------------------------------------ role changes

  /**
   * makeLeader for a new leader epoch: the ISR and assignment from the registration, the epoch's
   * start at the log end, followers' states reset (ISR members count as caught up now). The leader's
   * producer state is what it kept as a follower; its verification entries were its predecessor's.
   */
  makeLeader(reg: PartitionRegistration, nowMs: number): void {
    this.leader = this.brokerId;
    this.leaderEpoch = reg.leaderEpoch;
    this.partitionEpoch = reg.partitionEpoch;
    this.replicas = reg.replicas;
    this.isr = reg.isr;
    this.pendingIsr = null;
    this.leaderEpochStartOffset = this.log.logEndOffset;
    this.log.becomeLeader(reg.leaderEpoch);
    this.remote.clear();
    for (const r of reg.replicas) {
      if (r === this.brokerId) continue;
      this.remote.set(r, {
        brokerId: r,
        logEndOffset: -1,
        lastCaughtUpTimeMs: reg.isr.includes(r) ? nowMs : Number.NEGATIVE_INFINITY,
        lastFetchLeaderLogEndOffset: -1,
        lastFetchTimeMs: 0,
      });
    }
  }

  /** The registration changed without a new leader epoch (our own AlterPartition, or a reassignment). */
  updateAssignmentAndIsr(reg: PartitionRegistration): void {
    if (reg.partitionEpoch <= this.partitionEpoch) return;
    this.partitionEpoch = reg.partitionEpoch;
    this.isr = reg.isr;
    this.replicas = reg.replicas;
    if (this.pendingIsr !== null && sameMembers(this.pendingIsr, reg.isr)) this.pendingIsr = null;
  }

  /** makeFollower: `leader` leads at `leaderEpoch` (null: no leader now). */
  makeFollower(reg: PartitionRegistration): void {
    this.leader = reg.leader;
    this.leaderEpoch = reg.leaderEpoch;
    this.partitionEpoch = reg.partitionEpoch;
    this.replicas = reg.replicas;
    this.isr = reg.isr;
    this.pendingIsr = null;
    this.remote.clear();
    this.log.becomeFollower();
  }

  // ------------------------------------------------------------------ leader: followers and the HW

  /** Replica.updateFetchStateOrThrow: a follower fetched from `fetchOffset` at `nowMs`. */
  updateFollowerFetchState(replica: string, fetchOffset: number, nowMs: number): void {
    const state = this.remote.get(replica);
    if (!state) return;
    const leaderEnd = this.log.logEndOffset;
    if (fetchOffset >= leaderEnd) state.lastCaughtUpTimeMs = Math.max(state.lastCaughtUpTimeMs, nowMs);
    else if (fetchOffset >= state.lastFetchLeaderLogEndOffset)
      state.lastCaughtUpTimeMs = Math.max(state.lastCaughtUpTimeMs, state.lastFetchTimeMs);
    state.logEndOffset = fetchOffset;
    state.lastFetchLeaderLogEndOffset = leaderEnd;
    state.lastFetchTimeMs = nowMs;
  }

  private isCaughtUp(state: ReplicaState, nowMs: number): boolean {
    return (
      state.logEndOffset === this.log.logEndOffset ||
      nowMs - state.lastCaughtUpTimeMs <= this.config.replicaLagTimeMaxMs
    );
  }

  /**
   * maybeIncrementLeaderHW: the minimum log end over the leader, the maximal ISR and followers
   * caught up and eligible to join it; frozen while under min.insync.replicas (KAFKA-15583).
   * True when the high watermark moved.
   */
  maybeIncrementLeaderHW(nowMs: number, eligible: (replica: string) => boolean): boolean {
    if (!this.isLeader || this.isUnderMinIsr()) return false;
    const maximal = this.maximalIsr();
    let hw = this.log.logEndOffset;
    // Mutant highWatermarkFromIsr off: the leader acknowledges what only it has.
    if (this.log.flags().highWatermarkFromIsr)
      for (const state of this.remote.values()) {
        const replica = state.brokerId;
        const counts = maximal.includes(replica) || (this.isCaughtUp(state, nowMs) && eligible(replica));
        if (counts && state.logEndOffset < hw) hw = state.logEndOffset;
      }
    if (hw <= this.log.highWatermark) return false;
    this.log.onHighWatermarkUpdated(hw);
    return true;
  }

  /**
   * checkEnoughReplicasReachOffset for an acks=all append ending at `requiredOffset`: null while
   * waiting, else NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND when the ISR shrank below the minimum.
   */
  checkEnoughReplicasReachOffset(requiredOffset: number): number | null {
    if (!this.isLeader) return Errors.NOT_LEADER_OR_FOLLOWER;
    if (this.log.highWatermark < requiredOffset) return null;
    return this.maximalIsr().length < this.effectiveMinIsr() ? Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND : Errors.NONE;
  }

  /** ISR members other than the leader that are no longer caught up (Partition.getOutOfSyncReplicas). */
  outOfSyncReplicas(nowMs: number): string[] {
    const out: string[] = [];
    for (const replica of this.isr) {
      if (replica === this.brokerId) continue;
      const state = this.remote.get(replica);
      if (state && !this.isCaughtUp(state, nowMs)) out.push(replica);
    }
    return out;
  }

  /**
   * isFollowerInSync for an ISR expansion: a follower outside the ISR whose log reached the high
   * watermark and this leader epoch's start.
   */
  followerToAdd(replica: string): boolean {
    if (this.isr.includes(replica) || this.pendingIsr !== null) return false;
    const state = this.remote.get(replica);
    if (!state) return false;
    return state.logEndOffset >= this.log.highWatermark && state.logEndOffset >= this.leaderEpochStartOffset;
  }

  followerState(replica: string): Readonly<ReplicaState> | undefined {
    return this.remote.get(replica);
  }
}

function sameMembers(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
