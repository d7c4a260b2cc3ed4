import { OffsetCommitter } from "./client/offset-committer.js";
import type { Cluster } from "./cluster.js";
import type { CommittersSpec } from "./cluster-spec.js";
import { DEFAULT_OFFSET_METADATA_MAX_BYTES } from "./coordinator/group/group-coordinator-shard.js";

/**
 * The plain committers of a cluster (CommittersSpec): committer i takes the input topic's partitions
 * whose index is i modulo the count (manual assignment, so no two commit the same partition).
 */
export function newCommitters(cluster: Cluster, spec: CommittersSpec | undefined): OffsetCommitter[] {
  if (!spec) return [];
  const input = cluster.spec.consumerOffsets?.inputTopic;
  const partitions = cluster.partitions.filter((p) => p.startsWith(`${input}-`));
  const out: OffsetCommitter[] = [];
  for (let i = 0; i < spec.count; i++) {
    const mine = partitions.filter((_, j) => j % spec.count === i);
    if (mine.length === 0) continue;
    const name = `k${i}`;
    out.push(
      new OffsetCommitter(cluster.ctx, name, cluster.clientMetadataFor(name), mine, {
        groupId: spec.groupId,
        commitIntervalMs: spec.commitIntervalMs,
        commitsPerRestart: spec.commitsPerRestart,
        metadataTooLargePpm: spec.metadataTooLargePpm,
        tooLargeMetadataBytes: DEFAULT_OFFSET_METADATA_MAX_BYTES + 1,
        retryBackoffMs: cluster.spec.producers.retryBackoffMs,
        requestTimeoutMs: cluster.spec.producers.requestTimeoutMs,
      }),
    );
  }
  return out;
}
