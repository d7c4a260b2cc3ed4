import { z } from "zod";
import { ppm, probability, type Range, range, toRange } from "./fault-settings.js";
import type { FaultDrawContext, NodeFault } from "./node-fault.js";

/*
 * A broker stops and restarts after the drawn downtime: a controlled shutdown (its leadership
 * moves first) or a crash (the controller fences it after its session timeout). Both draw a broker
 * among those running and not already down, while fewer than maxBrokersDown are down; the nemesis
 * keeps the brokers down and restarts them (at their downtime's end, or when faults end).
 * Recorded as fault.controlled-shutdown and fault.crash.
 */

export interface BrokerStopSpec {
  ppm: number;
  downtimeMs: Range;
}

const settings = z
  .strictObject({ probability, downtimeMs: range().default([200, 1_000]) })
  .default({ probability: 0, downtimeMs: [200, 1_000] });

/** One stop of `how`, drawn from `stream`: which broker, how long. */
function stopOneBroker(ctx: FaultDrawContext, how: "controlled" | "crash", spec: BrokerStopSpec): void {
  const stream = how === "controlled" ? "nemesis:shutdown" : "nemesis:crash";
  if (!ctx.choices.chance(stream, spec.ppm)) return;
  const running = ctx.cluster.stoppableBrokers();
  if (running.length < 2) return;
  const broker = running[ctx.choices.pick(stream, running.length)] as string;
  const downtime = ctx.choices.between(stream, spec.downtimeMs.min, spec.downtimeMs.max);
  ctx.cluster.stopBroker(how, broker, downtime);
}

export const controlledShutdown: NodeFault<"controlledShutdown", z.output<typeof settings>, BrokerStopSpec> = {
  field: "controlledShutdown",
  name: "controlled shutdown",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability), downtimeMs: toRange(s.downtimeMs) }),
  draw: (ctx, spec) => stopOneBroker(ctx, "controlled", spec),
  traceEvent: "fault.controlled-shutdown",
};

export const brokerCrash: NodeFault<"brokerCrash", z.output<typeof settings>, BrokerStopSpec> = {
  field: "brokerCrash",
  name: "broker crash",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability), downtimeMs: toRange(s.downtimeMs) }),
  draw: (ctx, spec) => stopOneBroker(ctx, "crash", spec),
  traceEvent: "fault.crash",
};
