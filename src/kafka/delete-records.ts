import { maybeIncrementLogStartOffset } from "./broker/log-start-offset.js";
import type { Cluster } from "./cluster.js";
import type { PartitionKey } from "./common/types.js";

/**
 * DeleteRecords of `partition` up to its leader's high watermark (see faults/delete-records.ts):
 * the leader's log start offset moves there, each running follower's up to its own high watermark.
 * Records fault.delete-records with the producer ids the leader evicted (KAFKA-7190's switch).
 */
export function deleteRecordsUpToHighWatermark(cluster: Cluster, partition: PartitionKey): void {
  const reg = cluster.controller.registration(partition);
  if (reg.leader === null || !cluster.brokerOf(reg.leader).isRunning) return;
  const leaderLog = cluster.logOf(reg.leader, partition);
  const target = leaderLog.highWatermark;
  const evicted = maybeIncrementLogStartOffset(leaderLog, target);
  if (evicted === null) return;
  cluster.sim.emit("nemesis", "fault.delete-records", {
    partition,
    leader: reg.leader,
    logStartOffset: target,
    evicted: evicted.join(","),
  });
  for (const replica of reg.replicas) {
    if (replica === reg.leader || !cluster.brokerOf(replica).isRunning) continue;
    const log = cluster.logOf(replica, partition);
    maybeIncrementLogStartOffset(log, Math.min(target, log.highWatermark));
  }
}
