import { NODE_FAULT_LIST } from "../kafka/faults/registry.js";
import { type SeedTrace, type ServerNode, seedLabel } from "../fuzz/seeds/failure-traces.js";
import { errorName } from "../kafka/common/errors.js";
import { isEvent, type RecordedEvent, transactionOf, typedEvent } from "../kafka/trace-events.js";
import type { Violation } from "../oracle/violation.js";
import type { TraceEvent, TraceValue } from "../sim/trace.js";
import { describeEventLine } from "./shiviz.js";
import { linkMessages, type MessageLink } from "./trace-links.js";

/**
 * The space-time diagram of one run as data: lanes (one per node), events on them, messages as
 * arrows between them, fault periods as bands, and what the violation makes stand out. The SVG
 * renderer (svg-diagram.ts) and the page script draw from this; tests inspect it directly.
 */
export type LaneRole = "coordinator" | "broker" | "producer" | "processor" | "consumer";

export interface Lane {
  id: string;
  role: LaneRole;
  /** Release of a server node (after upgrades, the one it started with). */
  release: string | null;
  /** A broker's roles when the run starts (coordinator of which __transaction_state partitions, leader of which); null for clients. */
  roles: string | null;
}

/** What draws attention: the stale marker, the records it wrongly closed, other related events. */
export type Emphasis = "stale" | "victim" | "related" | null;

export type EventCategory = "net" | "marker" | "produce" | "txn" | "group" | "client" | "fault" | "log" | "other";

export interface DiagramEvent {
  index: number;
  timeMs: number;
  lane: string;
  kind: string;
  category: EventCategory;
  /** Short label drawn next to key events ("" = only on hover). */
  label: string;
  /** One full line: time, kind, every field. */
  text: string;
  emphasis: Emphasis;
}

export interface Arrow {
  from: string;
  to: string;
  conn: number;
  corr: number;
  direction: "request" | "response";
  api: string;
  label: string;
  sendIndex: number;
  sendMs: number;
  arriveIndex: number | null;
  arriveMs: number | null;
  fate: MessageLink["fate"];
  duplicate: boolean;
  /** Always labelled (WriteTxnMarkers), not only on hover. */
  key: boolean;
  emphasis: Emphasis;
  /** A network fault that delayed this message ("slow network: delayed 856 ms"), or null. */
  delay: string | null;
}

export type BandKind = "stall" | "partition" | "slow" | "failover" | "pause" | "restart" | "upgrade" | "quiet";

export interface Band {
  kind: BandKind;
  /** Lanes covered; empty = every lane. */
  lanes: string[];
  fromMs: number;
  toMs: number;
  label: string;
  index: number;
}

export interface SpaceTime {
  title: string;
  seed: number | null;
  traceHash: string;
  lanes: Lane[];
  events: DiagramEvent[];
  arrows: Arrow[];
  bands: Band[];
  violation: { kind: string; summary: string; atMs: number; steps: string[]; index: number | null } | null;
  /** Trace indices shown: [first, last] of `total` events (a window when the trace is very long). */
  window: { first: number; last: number; total: number };
  endMs: number;
}

/** Bound on the events drawn: beyond it the diagram shows a window that ends after the violation. */
export const MAX_DIAGRAM_EVENTS = 12_000;

const ROLE_ORDER: Record<LaneRole, number> = { coordinator: 0, broker: 1, producer: 2, processor: 3, consumer: 4 };

function roleOf(node: string, servers: readonly ServerNode[]): LaneRole | null {
  const server = servers.find((s) => s.id === node);
  if (server) return server.role;
  if (/^p\d/.test(node)) return "producer";
  // A processor of the consume-transform-produce workload: its producer (q0) and its consumer (q0-consumer).
  if (/^q\d/.test(node)) return "processor";
  if (/^c\d/.test(node)) return "consumer";
  return null;
}

/** Natural order: p2 before p10, p0 before p0#2. */
const natural = (a: string, b: string) => a.localeCompare(b, "en", { numeric: true });

export function lanesOf(events: readonly TraceEvent[], servers: readonly ServerNode[]): Lane[] {
  const ids = new Set<string>(servers.map((s) => s.id));
  for (const e of events) ids.add(e.node);
  const lanes: Lane[] = [];
  for (const id of ids) {
    const role = roleOf(id, servers);
    const server = servers.find((s) => s.id === id);
    if (role) lanes.push({ id, role, release: server?.release ?? null, roles: server?.roles ?? null });
  }
  const serverRank = (id: string) => servers.findIndex((s) => s.id === id);
  return lanes.sort(
    (a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || serverRank(a.id) - serverRank(b.id) || natural(a.id, b.id),
  );
}

const s = (v: TraceValue) => String(v ?? "");

function categoryOf(kind: string): EventCategory {
  if (kind.startsWith("net.")) return "net";
  if (kind.startsWith("marker")) return "marker";
  if (kind.startsWith("produce.")) return "produce";
  if (kind.startsWith("txn") || kind.startsWith("coordinator.")) return "txn";
  if (kind.startsWith("group.")) return "group";
  if (kind.startsWith("producer.") || kind.startsWith("consumer.")) return "client";
  if (kind.startsWith("fault.") || kind === "broker.upgrade") return "fault";
  if (kind.startsWith("log.")) return "log";
  return "other";
}

const tvText = (tv: number) => (tv > 0 ? `TV${tv}` : "TV0");

/** A WriteTxnMarkers request's own events: the coordinator's sends and the leader's answers. */
type MarkerRequestEvent = RecordedEvent<"markers.send" | "marker.append" | "marker.rejected">;

/** The WriteTxnMarkers request as its key fields, from the coordinator's markers.send events. */
function markerSendLabel(sends: readonly RecordedEvent<"markers.send">[]): string {
  return sends
    .map(({ fields: x }) => {
      const tv = x.v >= 2 ? tvText(x.tv) : `${tvText(x.tv)} dropped (v1)`;
      return `#${s(x.marker)}.${x.resend + 1} ${s(x.result)} ${s(x.txn)} pid ${s(x.pid)} e${s(x.epoch)} ce${s(x.ce)} ${tv}`;
    })
    .join("; ");
}

/** The leader's answer per partition, from its marker.append / marker.rejected events. */
function markerResultLabel(results: readonly RecordedEvent<"marker.append" | "marker.rejected">[]): string {
  return results.map(markerResultText).join(", ");
}

function markerResultText(e: RecordedEvent<"marker.append" | "marker.rejected">): string {
  if (isEvent(e, "marker.append")) return `${s(e.fields.partition)} OK @${s(e.fields.offset)}`;
  return `${s(e.fields.partition)} ${errorName(e.fields.error)}`;
}

/** Short labels for the events a reader follows; the rest are shown on hover. */
function eventLabel(e: TraceEvent): string {
  const { kind, fields: x } = typedEvent(e);
  switch (kind) {
    case "markers.send":
      return `send #${s(x.marker)}.${x.resend + 1} ${s(x.result)} ${s(x.txn)} -> ${s(x.broker)} (v${s(x.v)})`;
    case "marker.append": {
      const closed = x.closedFrom >= 0 ? ` closes ${s(x.closedFrom)}..${x.offset - 1}` : "";
      return `${s(x.result)} ${s(x.txn)} @${s(x.offset)} ${s(x.partition)}${closed} (${s(x.rule)})`;
    }
    case "marker.rejected":
      return `reject ${s(x.txn)} ${s(x.partition)}: ${errorName(x.error)} (${s(x.rule)})`;
    case "produce.append":
      return `${s(x.txn)} @${s(x.offset)} ${s(x.partition)}`;
    case "txn.prepare":
    case "txn.complete":
      return `${s(x.state)} ${s(x.txn)}`;
    case "coordinator.elected":
      return `elected (ce ${s(x.ce)})`;
    case "producer.begin":
      return `begin ${s(x.txn)}`;
    case "producer.outcome":
      return `${s(x.txn)} ${s(x.outcome)}`;
    case "producer.fatal":
    case "producer.give-up":
      return `${kind.slice(9)}: ${s(x.reason)}`;
    default:
      return groupEventLabel(e);
  }
}

/** Short labels of the group coordinator's events (the group side of exactly-once processing). */
function groupEventLabel(e: TraceEvent): string {
  const { kind, fields: x } = typedEvent(e);
  switch (kind) {
    case "group.request": {
      const who = x.member ? ` ${x.member}${x.gen >= 0 ? ` gen ${x.gen}` : ""}` : "";
      return x.error === 0 && x.api === "Heartbeat" ? "" : `${x.api}${who}: ${errorName(x.error)}`;
    }
    case "group.txn-offsets":
      return `TxnOffsetCommit ${s(x.txn)} ${x.member} gen ${x.gen}: pending ${x.offsets}`;
    case "group.complete-txn":
      return x.result === "COMMIT"
        ? `COMMIT ${s(x.txn)} ${x.partition}: ${x.moved} of ${x.pending} pending offsets committed`
        : `ABORT ${s(x.txn)} ${x.partition}: ${x.pending} pending offsets discarded`;
    case "group.members-expired":
      return `expired: ${x.members}`;
    case "group.loaded":
      return `group coordinator of __consumer_offsets-${x.partition} (leader epoch ${x.leaderEpoch})`;
    default:
      return "";
  }
}

/** Which trace events the violation is about. */
interface Focus {
  stale: Set<number>;
  victims: Set<number>;
  related: Set<number>;
  /** Request correlation ids of the stale marker and of the victims' produce requests. */
  staleCorr: Set<number>;
  victimCorr: Set<number>;
  index: number | null;
}

function focusOf(events: readonly TraceEvent[], v: Violation | null): Focus {
  const focus: Focus = {
    stale: new Set(),
    victims: new Set(),
    related: new Set(),
    staleCorr: new Set(),
    victimCorr: new Set(),
    index: null,
  };
  if (!v) return focus;
  // The event that shows the violation: the marker append for a stale marker, else the first
  // event of the affected transaction at or before the time of detection.
  const applied = events.find(
    (e): e is RecordedEvent<"marker.append"> =>
      isEvent(e, "marker.append") &&
      e.node === v.broker &&
      e.fields.partition === v.partition &&
      e.fields.txn === v.markerIssuedFor &&
      e.timeMs === v.atMs,
  );
  if (applied && v.kind === "stale-marker") {
    focus.stale.add(applied.index);
    focus.index = applied.index;
    focus.staleCorr.add(applied.fields.corr);
    const closedFrom = applied.fields.closedFrom;
    const markerOffset = applied.fields.offset;
    for (const e of events) {
      if (isEvent(e, "markers.send") && focus.staleCorr.has(e.fields.corr) && e.fields.txn === v.markerIssuedFor)
        focus.stale.add(e.index);
      if (
        isEvent(e, "produce.append") &&
        e.node === v.broker &&
        e.fields.partition === v.partition &&
        e.fields.txn === v.transaction
      ) {
        const offset = e.fields.offset;
        if (offset >= closedFrom && offset < markerOffset) {
          focus.victims.add(e.index);
          focus.victimCorr.add(e.fields.corr);
        }
      }
    }
  }
  focusGroupSide(events, v, focus);
  const txns = new Set([v.transaction, v.markerIssuedFor].filter((t): t is string => t !== undefined));
  for (const e of events) {
    if (focus.stale.has(e.index) || focus.victims.has(e.index)) continue;
    const txn = transactionOf(e);
    if (txn !== null && txns.has(txn)) focus.related.add(e.index);
  }
  if (focus.index === null)
    focus.index =
      [...focus.related].filter((i) => (events[i - (events[0]?.index ?? 0)]?.timeMs ?? 0) <= v.atMs).pop() ?? null;
  return focus;
}

/**
 * The group side of a violation. A stale marker at an offsets partition: the group coordinator's
 * decision of the pending offsets at that moment is part of the stale marker, and the victim
 * transaction's TxnOffsetCommit there wrote what it decided. A zombie commit: the TxnOffsetCommit
 * the group coordinator should have refused.
 */
function focusGroupSide(events: readonly TraceEvent[], v: Violation, focus: Focus): void {
  for (const e of events) {
    if (v.kind === "stale-marker" && focus.index !== null) {
      if (
        isEvent(e, "group.complete-txn") &&
        e.node === v.broker &&
        e.fields.partition === v.partition &&
        e.fields.txn === v.markerIssuedFor &&
        e.timeMs === v.atMs
      )
        focus.stale.add(e.index);
      if (isEvent(e, "group.txn-offsets") && e.node === v.broker && e.fields.txn === v.transaction)
        focus.victims.add(e.index);
    }
    if (v.kind === "zombie-commit" && isEvent(e, "group.txn-offsets") && e.fields.txn === v.transaction) {
      focus.stale.add(e.index);
      focus.index = e.index;
    }
  }
}

/**
 * What the violation did on the group side, in Kafka's terms, after the oracle's explanation: for
 * a stale marker at an offsets partition, whose TxnOffsetCommit wrote the pending offsets it
 * decided (group, member, generation, input offsets).
 */
function groupSteps(events: readonly TraceEvent[], focus: Focus): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (!focus.victims.has(e.index) || !isEvent(e, "group.txn-offsets")) continue;
    const x = e.fields;
    out.push(
      `group side: the pending offsets it decided were written by ${x.txn ?? "?"}'s TxnOffsetCommit at t=${e.timeMs}ms on ${e.node}: group ${x.group}, member ${x.member}, generation ${x.gen}, producerId ${x.pid} epoch ${x.epoch}, input offsets ${x.offsets}`,
    );
  }
  return out;
}

function emphasisOf(focus: Focus, index: number): Emphasis {
  if (focus.stale.has(index)) return "stale";
  if (focus.victims.has(index)) return "victim";
  if (focus.related.has(index)) return "related";
  return null;
}

/** Fault periods and cluster-wide moments as bands on the time axis. */
function bandsOf(events: readonly TraceEvent[], lanes: readonly Lane[], endMs: number): Band[] {
  const bands: Band[] = [];
  const laneIds = new Set(lanes.map((l) => l.id));
  const until = (untilMs: number) => Math.min(untilMs, endMs);
  // A processor's two lanes: its producer and its consumer.
  const processorLanes = (processor: string) => [processor, `${processor}-consumer`].filter((l) => laneIds.has(l));
  for (const e of events) {
    const { kind, fields: x } = typedEvent(e);
    const at = { fromMs: e.timeMs, index: e.index };
    // A registered fault draws its own band (src/kafka/faults/).
    const fault = NODE_FAULT_LIST.find((f) => f.traceEvent === e.kind)?.band?.(e, (l) => laneIds.has(l));
    if (fault) {
      bands.push({ kind: fault.kind, lanes: [...fault.lanes], ...at, toMs: until(fault.untilMs), label: fault.label });
      continue;
    }
    switch (kind) {
      case "controller.leader":
        bands.push({
          kind: "failover",
          lanes: [x.from, x.leader].filter((l): l is string => l !== null && laneIds.has(l)),
          ...at,
          toMs: e.timeMs,
          label: `${x.partition.startsWith("__transaction_state-") ? "coordinator failover" : "leader change"}: ${x.partition} ${x.from ?? "none"} -> ${x.leader ?? "none"} (leader epoch ${x.leaderEpoch}, ${x.cause})`,
        });
        break;
      case "broker.stop":
        bands.push({ kind: "upgrade", lanes: [e.node], ...at, toMs: e.timeMs, label: `${e.node} stops (${x.reason})` });
        break;
      case "broker.start":
        bands.push({
          kind: "upgrade",
          lanes: [e.node],
          ...at,
          toMs: e.timeMs,
          label: `${e.node} starts on ${x.release}`,
        });
        break;
      case "fault.processor-pause":
        bands.push({
          kind: "pause",
          lanes: processorLanes(x.processor),
          ...at,
          toMs: until(x.untilMs),
          label: `${x.processor} paused (a zombie if past the session timeout)`,
        });
        break;
      case "fault.processor-crash":
        bands.push({
          kind: "restart",
          lanes: processorLanes(x.processor),
          ...at,
          toMs: until(e.timeMs + x.restartInMs),
          label: `${x.processor} crashed; restarts in ${x.restartInMs} ms with the same transactional.id`,
        });
        break;
      case "broker.upgrade":
        bands.push({
          kind: "upgrade",
          lanes: [e.node],
          ...at,
          toMs: e.timeMs,
          label: `${e.node} upgraded ${x.from} -> ${x.to}`,
        });
        break;
      case "quiet-period":
        bands.push({
          kind: "quiet",
          lanes: [],
          ...at,
          toMs: until(x.untilMs),
          label: "quiet period: no faults, no new transactions",
        });
        break;
    }
  }
  return bands;
}

/**
 * Messages a network fault slowed down (or let overtake another) are marked on their arrows; for
 * the arrows the violation is about, the time they spent in the network is also a band along their
 * path (for all of them, the bands would cover the diagram: a few percent of messages are slow).
 */
function markDelays(events: readonly TraceEvent[], arrows: readonly Arrow[]): Band[] {
  const byKey = new Map<string, Arrow[]>();
  for (const a of arrows) {
    const key = `${a.direction}:${a.conn}:${a.corr}`;
    byKey.set(key, [...(byKey.get(key) ?? []), a]);
  }
  const bands: Band[] = [];
  for (const e of events) {
    if (!isEvent(e, "net.slow") && !isEvent(e, "net.overtake")) continue;
    const delayMs = e.fields.delayMs;
    // Of a duplicated message's two copies, the delayed one arrives closest to send + delay.
    const candidates = byKey.get(`${e.fields.dir}:${e.fields.conn}:${e.fields.corr}`) ?? [];
    const gap = (a: Arrow) =>
      a.arriveMs === null ? Number.MAX_SAFE_INTEGER - 1 : Math.abs(a.arriveMs - (e.timeMs + delayMs));
    const arrow = candidates.reduce<Arrow | null>((best, a) => (best === null || gap(a) < gap(best) ? a : best), null);
    if (!arrow) continue;
    const what = e.kind === "net.slow" ? `slow network: delayed ${delayMs} ms` : "overtook an earlier message";
    arrow.delay = what;
    const toMs = arrow.arriveMs ?? e.timeMs + delayMs;
    if (arrow.emphasis !== null)
      bands.push({
        kind: "slow",
        lanes: [arrow.from, arrow.to],
        fromMs: e.timeMs,
        toMs,
        label: `${arrow.api} ${arrow.direction}: ${what}`,
        index: e.index,
      });
  }
  return bands;
}

/** The window of trace positions drawn: everything, or MAX_DIAGRAM_EVENTS ending a little after the focus. */
function windowOf(count: number, focusPosition: number | null): { start: number; end: number } {
  if (count <= MAX_DIAGRAM_EVENTS) return { start: 0, end: count };
  const end = Math.min(count, (focusPosition ?? count) + Math.floor(MAX_DIAGRAM_EVENTS / 10));
  return { start: Math.max(0, end - MAX_DIAGRAM_EVENTS), end };
}

function arrowLabel(link: MessageLink, byCorr: Map<number, MarkerRequestEvent[]>, detail: string): string {
  if (link.close) return "connection closed by the server";
  const related = byCorr.get(link.corr) ?? [];
  if (link.api === "WriteTxnMarkers") {
    const text =
      link.direction === "request"
        ? markerSendLabel(related.filter((e) => isEvent(e, "markers.send")))
        : markerResultLabel(related.filter((e) => !isEvent(e, "markers.send")));
    if (text) return `WriteTxnMarkers ${text}`;
  }
  return `${link.api}${detail ? ` ${detail}` : ""}`;
}

/** Build the diagram of one traced seed, centred on its first violation (or the one given). */
export function buildSpaceTime(trace: SeedTrace, violation: Violation | null = trace.violations[0] ?? null): SpaceTime {
  const all = trace.events;
  const firstIndex = all[0]?.index ?? 0;
  const fullFocus = focusOf(all, violation);
  const win = windowOf(all.length, fullFocus.index === null ? null : fullFocus.index - firstIndex);
  const events = all.slice(win.start, win.end);
  const focus = win.start === 0 && win.end === all.length ? fullFocus : focusOf(events, violation);
  const lanes = lanesOf(events, trace.servers);
  const laneIds = new Set(lanes.map((l) => l.id));
  const endMs = events.at(-1)?.timeMs ?? 0;
  const byCorr = new Map<number, MarkerRequestEvent[]>();
  const details = new Map<number, string>();
  for (const e of events) {
    if (isEvent(e, "markers.send") || isEvent(e, "marker.append") || isEvent(e, "marker.rejected")) {
      const list = byCorr.get(e.fields.corr) ?? [];
      list.push(e);
      byCorr.set(e.fields.corr, list);
    }
    if (isEvent(e, "net.send") || isEvent(e, "net.reply")) details.set(e.index, e.fields.detail);
  }
  const arrows: Arrow[] = linkMessages(events)
    .filter((l) => laneIds.has(l.from) && laneIds.has(l.to))
    .map((l) => {
      const stale = l.api === "WriteTxnMarkers" && focus.staleCorr.has(l.corr);
      const victim = l.api === "Produce" && focus.victimCorr.has(l.corr);
      return {
        from: l.from,
        to: l.to,
        conn: l.conn,
        corr: l.corr,
        direction: l.direction,
        api: l.api,
        label: arrowLabel(l, byCorr, details.get(l.sendIndex) ?? ""),
        sendIndex: l.sendIndex,
        sendMs: l.sendMs,
        arriveIndex: l.arriveIndex,
        arriveMs: l.arriveMs,
        fate: l.fate,
        duplicate: l.duplicate,
        key: l.api === "WriteTxnMarkers",
        emphasis: stale ? "stale" : victim ? "victim" : null,
        delay: null,
      };
    });
  // The stale copy is the one whose arrival applied the marker: mark only that arrival, not a twin.
  const staleArrival = [...focus.stale]
    .map((i) => events[i - (events[0]?.index ?? 0)])
    .find((e) => e !== undefined && isEvent(e, "marker.append"));
  for (const a of arrows) {
    if (a.emphasis === "stale" && a.direction === "request" && staleArrival && a.arriveMs !== staleArrival.timeMs)
      a.emphasis = "related";
  }
  const diagramEvents: DiagramEvent[] = events
    .filter((e) => laneIds.has(e.node))
    .map((e) => ({
      index: e.index,
      timeMs: e.timeMs,
      lane: e.node,
      kind: e.kind,
      category: categoryOf(e.kind),
      label: eventLabel(e),
      text: describeEventLine(e),
      emphasis: emphasisOf(focus, e.index),
    }));
  return {
    title: `${trace.scenario} ${seedLabel(trace.seed)}`,
    seed: trace.seed,
    traceHash: trace.traceHash,
    lanes,
    events: diagramEvents,
    arrows,
    bands: [...bandsOf(events, lanes, endMs), ...markDelays(events, arrows)].sort((a, b) => a.index - b.index),
    violation: violation
      ? {
          kind: violation.kind,
          summary: violation.summary,
          atMs: violation.atMs,
          steps: [...violation.explanation, ...groupSteps(events, focus)],
          index: focus.index,
        }
      : null,
    window: { first: events[0]?.index ?? 0, last: events.at(-1)?.index ?? 0, total: trace.eventCount },
    endMs,
  };
}
