import type { UnstableOffsets } from "../kafka/cluster-final-state.js";
import { at } from "./format.js";
import type { Violation } from "./violation.js";

/**
 * After the quiet period, a require_stable OffsetFetch (KIP-447, what every read_committed Java
 * consumer sends) must be able to read every committed offset once no transaction holds a pending
 * offset of it: UNSTABLE_OFFSET_COMMIT is the answer for "a transaction is about to move this
 * offset", and a consumer that keeps getting it never starts. One that lasts with no transaction
 * open is a hang (KAFKA-16371: a partition refused for OFFSET_METADATA_TOO_LARGE left staged as
 * pending, which only a written commit of that partition or a coordinator move removes).
 */
export function unstableOffsetsHang(u: UnstableOffsets, endMs: number): Violation {
  const waiting =
    u.waiting.length > 0
      ? u.waiting.map((w) => `${w.committer} (since ${w.sinceMs}ms)`).join(", ")
      : "no committer was asking at the end";
  return {
    kind: "hanging-transaction",
    summary: `group ${u.groupId}: OffsetFetch(require_stable) of ${u.partition} answers UNSTABLE_OFFSET_COMMIT for ever at ${u.coordinator} though no transaction holds a pending offset of it`,
    explanation: [
      `${at(endMs)} ${u.coordinator}, the group coordinator of ${u.groupId} (${u.offsetsPartition}), still has ${u.partition} staged as a pending offset commit, yet no producer's transaction holds an offset of it and no commit record for it is on the way`,
      `${" ".repeat(10)} an OffsetCommit whose metadata for ${u.partition} exceeded offset.metadata.max.bytes was refused (OFFSET_METADATA_TOO_LARGE) but left staged, and only a later commit of that partition that is written clears the stage: the consumer that would send it waits on require_stable, retrying for ever (${waiting})`,
    ],
    atMs: endMs,
    partition: u.offsetsPartition,
    broker: u.coordinator,
  };
}
