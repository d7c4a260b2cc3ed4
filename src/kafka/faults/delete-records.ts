import { z } from "zod";
import { typedEvent } from "../trace-events.js";
import { ppm, probability } from "./fault-settings.js";
import type { NodeFault } from "./node-fault.js";

/*
 * An application deletes the records of a data partition below its high watermark (Admin
 * deleteRecords, as Kafka Streams purges a repartition topic up to its committed offsets): the
 * leader's log start offset moves to its high watermark (UnifiedLog.maybeIncrementLogStartOffset),
 * and so does each running follower's, up to its own high watermark (the leader's log start reaches
 * a follower with its next fetch response; the model applies it at once). The producer state moves
 * with it (onLogStartOffsetIncremented; KAFKA-7190's switch evicts producers). The fault records
 * fault.delete-records.
 */

export interface DeleteRecordsSpec {
  ppm: number;
}

const settings = z.strictObject({ probability }).default({ probability: 0 });

export const deleteRecords: NodeFault<"deleteRecords", z.output<typeof settings>, DeleteRecordsSpec> = {
  field: "deleteRecords",
  name: "DeleteRecords",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability) }),
  draw(ctx, spec) {
    // Guarded: a stream asked for at all is part of the run's tape, even at rate 0.
    if (spec.ppm <= 0 || !ctx.choices.chance("nemesis:delete-records", spec.ppm)) return;
    const partitions = ctx.cluster.partitions;
    if (partitions.length === 0) return;
    const partition = partitions[ctx.choices.pick("nemesis:delete-records", partitions.length)] as string;
    ctx.cluster.deleteRecords(partition);
  },
  traceEvent: "fault.delete-records",
  storyLine(e, about) {
    const { kind, fields } = typedEvent(e);
    if (kind !== "fault.delete-records" || (about.broker !== null && about.broker !== fields.leader)) return null;
    const evicted = fields.evicted === "" ? "" : `; producer state evicted with the records: ${fields.evicted}`;
    return `fault: DeleteRecords moves ${fields.partition}'s log start offset to ${fields.logStartOffset} at ${fields.leader}${evicted}`;
  },
};
