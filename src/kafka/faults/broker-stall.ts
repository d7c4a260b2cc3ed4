import { z } from "zod";
import { typedEvent } from "../trace-events.js";
import { ppm, probability, type Range, range, toRange } from "./fault-settings.js";
import type { NodeFault } from "./node-fault.js";

/*
 * A broker stall (a GC pause): messages to the broker wait until the stall ends, then arrive in
 * their order. Every tick, each broker stalls with the probability, for a duration drawn from the
 * range. The network holds the messages (Network.stall) and records fault.stall.
 */

export interface BrokerStallSpec {
  ppm: number;
  durationMs: Range;
}

const settings = z
  .strictObject({ probability, durationMs: range() })
  .default({ probability: 0, durationMs: [100, 500] });

export const brokerStall: NodeFault<"brokerStall", z.output<typeof settings>, BrokerStallSpec> = {
  field: "brokerStall",
  name: "broker stall",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability), durationMs: toRange(s.durationMs) }),
  draw({ choices, net, nowMs, brokers }, spec) {
    for (const broker of brokers) {
      if (choices.chance("nemesis:stall", spec.ppm)) {
        net.stall(broker, nowMs + choices.between("nemesis:stall", spec.durationMs.min, spec.durationMs.max));
      }
    }
  },
  traceEvent: "fault.stall",
  storyLine(e, about) {
    const { kind, fields } = typedEvent(e);
    if (kind !== "fault.stall" || about.broker !== e.node) return null;
    return `fault: ${e.node} stalls until t=${String(fields.untilMs ?? "?")}ms`;
  },
  band(e) {
    const { kind, fields } = typedEvent(e);
    if (kind !== "fault.stall") return null;
    return { kind: "stall", lanes: [e.node], untilMs: fields.untilMs, label: `${e.node} stalled` };
  },
};
