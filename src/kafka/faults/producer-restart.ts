import { z } from "zod";
import { typedEvent } from "../trace-events.js";
import { ppm, probability, type Range, range, toRange } from "./fault-settings.js";
import type { NodeFault } from "./node-fault.js";

/*
 * The application restarts a producer: the old instance is not dead but paused for the drawn
 * zombie pause (it resumes later, a zombie), and a new instance with the same transactional.id
 * starts and fences it. Every tick, each running producer restarts with the probability, while the
 * run's bound on restarts allows; the nemesis makes the new instance. Recorded as
 * fault.producer-restart.
 */

export interface ProducerRestartSpec {
  ppm: number;
  zombiePauseMs: Range;
}

const settings = z
  .strictObject({ probability, zombiePauseMs: range().default([100, 2000]) })
  .default({ probability: 0, zombiePauseMs: [100, 2000] });

export const producerRestart: NodeFault<"producerRestart", z.output<typeof settings>, ProducerRestartSpec> = {
  field: "producerRestart",
  name: "producer restart",
  schema: settings,
  toSpec: (s) => ({ ppm: ppm(s.probability), zombiePauseMs: toRange(s.zombiePauseMs) }),
  // Drawn per producer, not per tick.
  draw: () => {},
  drawForProducer({ choices, nowMs, cluster }, spec, producer) {
    // The bound is checked first: past it, the restart stream draws nothing more.
    if (!cluster.canRestartProducer() || !choices.chance("nemesis:restart", spec.ppm)) return;
    const { min, max } = spec.zombiePauseMs;
    cluster.restartProducer(producer, nowMs + choices.between("nemesis:restart", min, max));
  },
  traceEvent: "fault.producer-restart",
  band(e, isLane) {
    const { kind, fields } = typedEvent(e);
    if (kind !== "fault.producer-restart") return null;
    return {
      kind: "restart",
      lanes: [fields.old, fields.fresh].filter(isLane),
      untilMs: e.timeMs,
      label: `restart: ${fields.fresh} replaces ${fields.old}`,
    };
  },
};
