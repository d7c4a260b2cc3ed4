import { z } from "zod";
import { ppm, probability } from "./fault-settings.js";
import { moveOneLeader } from "./leader-move.js";
import type { NodeFault } from "./node-fault.js";

/*
 * A coordinator failover: the leadership of one __transaction_state partition moves to another
 * in-sync replica, whose coordinator loads the partition and re-sends the markers of its
 * PrepareCommit/PrepareAbort transactions. Recorded as fault.leader-move, then controller.leader.
 */

export interface CoordinatorFailoverSpec {
  ppm: number;
}

const settings = z.strictObject({ probability }).default({ probability: 0 });

export const coordinatorFailover: NodeFault<
  "coordinatorFailover",
  z.output<typeof settings>,
  CoordinatorFailoverSpec
> = {
  field: "coordinatorFailover",
  name: "coordinator failover",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability) }),
  draw(ctx, spec) {
    if (ctx.choices.chance("nemesis:failover", spec.ppm))
      moveOneLeader(ctx, ctx.cluster.transactionStatePartitions, "nemesis:failover");
  },
  traceEvent: "fault.leader-move",
};
