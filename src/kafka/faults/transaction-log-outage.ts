import { z } from "zod";
import { ppm, probability, type Range, range, toRange } from "./fault-settings.js";
import type { NodeFault } from "./node-fault.js";

/*
 * A __transaction_state partition refuses appends (NOT_ENOUGH_REPLICAS, as under
 * min.insync.replicas) for the drawn duration: the coordinator's writes fail (BUG-ZOO's TLOGF).
 * Recorded as fault.txnlog-outage.
 */

export interface TransactionLogOutageSpec {
  ppm: number;
  durationMs: Range;
}

const settings = z
  .strictObject({ probability, durationMs: range().default([100, 1_000]) })
  .default({ probability: 0, durationMs: [100, 1_000] });

export const transactionLogOutage: NodeFault<
  "transactionLogOutage",
  z.output<typeof settings>,
  TransactionLogOutageSpec
> = {
  field: "transactionLogOutage",
  name: "transaction log outage",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability), durationMs: toRange(s.durationMs) }),
  // Not one of the swarm's knobs: the swarm draws the faults it had before this one was added.
  swarm: false,
  draw({ choices, nowMs, cluster }, spec) {
    // Guarded: a stream asked for at all is part of the run's tape, even at rate 0.
    if (!(spec.ppm > 0 && choices.chance("nemesis:txnlog-outage", spec.ppm))) return;
    const count = cluster.transactionStatePartitions.length;
    if (count === 0) return;
    const partition = choices.pick("nemesis:txnlog-outage", count);
    const durationMs = choices.between("nemesis:txnlog-outage", spec.durationMs.min, spec.durationMs.max);
    cluster.emit("nemesis", "fault.txnlog-outage", { partition, durationMs });
    cluster.startTransactionLogOutage(partition, nowMs + durationMs);
  },
  traceEvent: "fault.txnlog-outage",
};
