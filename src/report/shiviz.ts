import type { TraceEvent } from "../sim/trace.js";
import { linkMessages } from "./trace-links.js";

/** ShiViz's default log-parsing expression (applied with the g and m flags). */
export const SHIVIZ_DEFAULT_REGEX = String.raw`(?<event>.*)\n(?<host>\S*) (?<clock>{.*})`;

/** Bound on the events written to one log: ShiViz lays out every event in the browser. */
export const MAX_SHIVIZ_EVENTS = 50_000;

type Clock = Map<string, number>;

/** One event as one line: time, kind and every field, with the trace index for cross-reference. */
export function describeEventLine(e: TraceEvent): string {
  const fields = Object.entries(e.fields)
    .map(([k, v]) => `${k}=${typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`)
    .join(" ");
  return `t=${e.timeMs}ms ${e.kind}${fields ? ` ${fields}` : ""} [#${e.index}]`.replace(/[\r\n]+/g, " ");
}

function clockJson(clock: Clock): string {
  const entries = [...clock].filter(([, t]) => t > 0).map(([h, t]) => `${JSON.stringify(h)}:${t}`);
  return `{${entries.join(",")}}`;
}

/**
 * A trace as a ShiViz log: two lines per event (the event, then `host {vector clock}`), with the
 * vector clocks of the happens-before relation that the messages define: a receive merges the
 * clock its sender had when it sent. The first line is the parsing expression and the second the
 * (empty) execution delimiter, as ShiViz expects of an uploaded file.
 */
export function shivizLog(events: readonly TraceEvent[]): string {
  const slice = events.length > MAX_SHIVIZ_EVENTS ? events.slice(events.length - MAX_SHIVIZ_EVENTS) : events;
  const firstIndex = slice[0]?.index ?? 0;
  // For each receiving event (by trace index), the trace index of the matching send.
  const sendOf = new Map<number, number>();
  for (const link of linkMessages(slice)) {
    if (link.arriveIndex !== null && link.sendIndex >= firstIndex) sendOf.set(link.arriveIndex, link.sendIndex);
  }
  const clocks = new Map<string, Clock>();
  const clockAtSend = new Map<number, Clock>();
  const sendIndices = new Set(sendOf.values());
  const lines = [SHIVIZ_DEFAULT_REGEX, ""];
  for (const e of slice) {
    const clock = clocks.get(e.node) ?? new Map<string, number>();
    clocks.set(e.node, clock);
    const sent = sendOf.get(e.index);
    const senderClock = sent === undefined ? undefined : clockAtSend.get(sent);
    if (senderClock) for (const [h, t] of senderClock) clock.set(h, Math.max(clock.get(h) ?? 0, t));
    clock.set(e.node, (clock.get(e.node) ?? 0) + 1);
    if (sendIndices.has(e.index)) clockAtSend.set(e.index, new Map(clock));
    lines.push(describeEventLine(e), `${e.node} ${clockJson(clock)}`);
  }
  return `${lines.join("\n")}\n`;
}
