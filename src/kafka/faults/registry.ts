import { brokerStall } from "./broker-stall.js";
import { brokerCrash, controlledShutdown } from "./broker-stop.js";
import { coordinatorFailover } from "./coordinator-failover.js";
import { deleteRecords } from "./delete-records.js";
import { leaderMove } from "./leader-move.js";
import { linkPartition } from "./link-partition.js";
import type { NodeFault } from "./node-fault.js";
import { producerPause } from "./producer-pause.js";
import { producerRestart } from "./producer-restart.js";
import { transactionLogOutage } from "./transaction-log-outage.js";

/*
 * The registered faults, in the order the nemesis draws them at each tick (the order of their
 * draws on the choice tape: a new fault goes after the last one, or every recorded seed moves).
 * The faults of the brokers draw first, in this order; then, for each running producer in turn,
 * the faults of the producers in this order (a pause, then a restart).
 * To add a fault: one file beside this one (see broker-stall.ts) and its line here.
 */
export const NODE_FAULTS = {
  brokerStall,
  linkPartition,
  coordinatorFailover,
  transactionLogOutage,
  leaderMove,
  controlledShutdown,
  brokerCrash,
  producerPause,
  producerRestart,
  deleteRecords,
} as const;

type Registry = typeof NODE_FAULTS;
type SettingsOf<F> = F extends NodeFault<string, infer S, infer _P> ? S : never;
type SpecOf<F> = F extends NodeFault<string, infer _S, infer P> ? P : never;

/** The registered faults' settings in a scenario, by field. */
export type NodeFaultSettings = { [K in keyof Registry]: SettingsOf<Registry[K]> };
/** The registered faults in the cluster spec, by field. */
export type NodeFaultSpecs = { [K in keyof Registry]: SpecOf<Registry[K]> };
export type NodeFaultField = keyof Registry;

// biome-ignore lint/suspicious/noExplicitAny: the list holds faults of different settings; each is used with its own spec
type AnyNodeFault = NodeFault<NodeFaultField, any, any>;

/** The registered faults in draw order. */
export const NODE_FAULT_LIST: readonly AnyNodeFault[] = Object.values(NODE_FAULTS);

/** The scenario schema's fields of the registered faults (zod shapes, in draw order). */
export const nodeFaultSchemas = Object.fromEntries(NODE_FAULT_LIST.map((f) => [f.field, f.schema])) as {
  [K in NodeFaultField]: Registry[K]["schema"];
};

/** The cluster spec's part of every registered fault, from a scenario's settings. */
export function nodeFaultSpecs(settings: NodeFaultSettings): NodeFaultSpecs {
  const out: Partial<Record<NodeFaultField, unknown>> = {};
  for (const fault of NODE_FAULT_LIST) out[fault.field] = fault.toSpec(settings[fault.field]);
  return out as NodeFaultSpecs;
}
