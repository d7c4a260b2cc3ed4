import type { PartitionLog } from "../../broker/partition-log.js";
import { Errors } from "../../common/errors.js";
import type { ClassicGroupConfig } from "./classic-group.js";
import { type GroupCoordinatorOptions, GroupCoordinatorShard } from "./group-coordinator-shard.js";
import { groupPartitionFor } from "./group-partitioning.js";

export type ShardLookup = { kind: "error"; errorCode: number } | { kind: "ok"; shard: GroupCoordinatorShard };

/** The group coordinator's settings on every broker of a cluster that has __consumer_offsets. */
export interface GroupCoordinatorSettings {
  /** offsets.topic.num.partitions */
  readonly partitionCount: number;
  readonly group: ClassicGroupConfig;
  readonly options: GroupCoordinatorOptions;
}

/**
 * GroupCoordinatorService on one broker: a GroupCoordinatorShard for each __consumer_offsets
 * partition it leads, loaded from the local log on election (CoordinatorRuntime.scheduleLoadOperation,
 * here at once) and dropped on resignation (scheduleUnloadOperation).
 */
export class GroupCoordinator {
  private readonly shards = new Map<number, { leaderEpoch: number; shard: GroupCoordinatorShard }>();

  constructor(readonly settings: GroupCoordinatorSettings) {}

  partitionFor(groupId: string): number {
    return GroupCoordinator.partitionOf(groupId, this.settings);
  }

  static partitionOf(groupId: string, settings: GroupCoordinatorSettings): number {
    return groupPartitionFor(groupId, settings.partitionCount);
  }

  /** onElection: this broker leads the partition at `leaderEpoch`; its shard replays the log to its end. */
  onElection(index: number, leaderEpoch: number, log: PartitionLog): void {
    const shard = GroupCoordinatorShard.load(index, log, this.settings.group, this.settings.options);
    this.shards.set(index, { leaderEpoch, shard });
  }

  /** onResignation: another broker leads it from `leaderEpoch`; an older shard goes. */
  onResignation(index: number, leaderEpoch: number): void {
    const owned = this.shards.get(index);
    if (owned && owned.leaderEpoch < leaderEpoch) this.shards.delete(index);
  }

  /** The shard of a group (NOT_COORDINATOR when this broker does not lead its partition). */
  shardForGroup(groupId: string): ShardLookup {
    return this.shardFor(this.partitionFor(groupId));
  }

  shardFor(index: number): ShardLookup {
    const owned = this.shards.get(index);
    return owned ? { kind: "ok", shard: owned.shard } : { kind: "error", errorCode: Errors.NOT_COORDINATOR };
  }

  /** The group timers of every shard (session and rebalance timeouts). */
  tick(nowMs: number): { groupId: string; removed: string[] }[] {
    return [...this.shards.values()].flatMap((o) => o.shard.tick(nowMs));
  }
}
