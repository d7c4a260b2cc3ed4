import { z } from "zod";
import { typedEvent } from "../trace-events.js";
import { ppm, probability, type Range, range, toRange } from "./fault-settings.js";
import type { NodeFault } from "./node-fault.js";

/*
 * A cut between two brokers, both ways or one way (a partial partition): what one sends the other
 * is held until the cut heals. Every tick one cut is drawn with the probability: its two brokers,
 * its duration and whether it is one way. The network cuts (Network.block) and records
 * fault.partition.
 */

export interface LinkPartitionSpec {
  ppm: number;
  durationMs: Range;
  oneWayPpm: number;
}

const settings = z
  .strictObject({ probability, durationMs: range(), oneWayProbability: probability.default(0.5) })
  .default({ probability: 0, durationMs: [100, 500], oneWayProbability: 0.5 });

export const linkPartition: NodeFault<"linkPartition", z.output<typeof settings>, LinkPartitionSpec> = {
  field: "linkPartition",
  name: "link partition",
  schema: settings,
  toSpec: (s) => ({
    ppm: ppm(s.probability),
    durationMs: toRange(s.durationMs),
    oneWayPpm: ppm(s.oneWayProbability),
  }),
  draw({ choices, net, nowMs, brokers }, spec) {
    if (!choices.chance("nemesis:partition", spec.ppm)) return;
    if (brokers.length < 2) return;
    const from = brokers[choices.pick("nemesis:partition", brokers.length)] as string;
    const others = brokers.filter((b) => b !== from);
    const to = others[choices.pick("nemesis:partition", others.length)] as string;
    const until = nowMs + choices.between("nemesis:partition", spec.durationMs.min, spec.durationMs.max);
    const oneWay = choices.chance("nemesis:partition", spec.oneWayPpm);
    net.block(from, to, until);
    if (!oneWay) net.block(to, from, until);
  },
  traceEvent: "fault.partition",
  storyLine: () => null,
  band(e, isLane) {
    const { kind, fields } = typedEvent(e);
    if (kind !== "fault.partition") return null;
    return {
      kind: "partition",
      lanes: [e.node, fields.to].filter(isLane),
      untilMs: fields.untilMs,
      label: `link ${e.node} -> ${fields.to} cut`,
    };
  },
};
