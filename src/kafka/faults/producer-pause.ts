import { z } from "zod";
import { typedEvent } from "../trace-events.js";
import { ppm, probability, type Range, range, toRange } from "./fault-settings.js";
import type { NodeFault } from "./node-fault.js";

/*
 * A producer pause (a GC pause or a stalled application thread): the producer sends nothing until
 * the pause ends, then carries on where it stopped; past the transaction timeout it comes back a
 * zombie. Every tick, each running producer pauses with the probability, for a duration drawn from
 * the range. The producer records producer.pause (also left by a restart's zombie and by a
 * processor's pause, which share its band on the diagram).
 */

export interface ProducerPauseSpec {
  ppm: number;
  durationMs: Range;
}

const settings = z
  .strictObject({ probability, durationMs: range() })
  .default({ probability: 0, durationMs: [100, 1000] });

export const producerPause: NodeFault<"producerPause", z.output<typeof settings>, ProducerPauseSpec> = {
  field: "producerPause",
  name: "producer pause",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability), durationMs: toRange(s.durationMs) }),
  // Drawn per producer, not per tick.
  draw: () => {},
  drawForProducer({ choices, nowMs, cluster }, spec, producer) {
    if (choices.chance("nemesis:pause", spec.ppm))
      cluster.pauseProducer(
        producer,
        nowMs + choices.between("nemesis:pause", spec.durationMs.min, spec.durationMs.max),
      );
  },
  traceEvent: "producer.pause",
  band(e) {
    const { kind, fields } = typedEvent(e);
    if (kind !== "producer.pause") return null;
    return { kind: "pause", lanes: [e.node], untilMs: fields.untilMs, label: `${e.node} paused (zombie)` };
  },
};
