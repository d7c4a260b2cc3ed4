import { z } from "zod";
import { ppm, probability } from "./fault-settings.js";
import type { FaultDrawContext, NodeFault } from "./node-fault.js";

/*
 * A data partition's leadership moves to another in-sync replica (the controller's election, as
 * after a reassignment or a preferred-leader election). The controller records the move
 * (controller.leader), which the story and the diagram show; the fault records fault.leader-move.
 */

export interface LeaderMoveSpec {
  ppm: number;
}

const settings = z.strictObject({ probability }).default({ probability: 0 });

/** The leadership of one of `partitions`, drawn from `stream`, moves (if another replica is in sync). */
export function moveOneLeader(ctx: FaultDrawContext, partitions: readonly string[], stream: string): void {
  if (partitions.length === 0) return;
  const partition = partitions[ctx.choices.pick(stream, partitions.length)] as string;
  ctx.cluster.emit("nemesis", "fault.leader-move", { partition });
  ctx.cluster.moveLeader(partition);
}

export const leaderMove: NodeFault<"leaderMove", z.output<typeof settings>, LeaderMoveSpec> = {
  field: "leaderMove",
  name: "leader move",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability) }),
  draw(ctx, spec) {
    if (ctx.choices.chance("nemesis:leader", spec.ppm)) moveOneLeader(ctx, ctx.cluster.partitions, "nemesis:leader");
  },
  traceEvent: "fault.leader-move",
};
