import type { Arrow, Band, DiagramEvent, SpaceTime } from "../space-time.js";
import { escapeXml } from "./escape.js";

/**
 * The space-time diagram as inline SVG: time runs down, one vertical lane per node. Every drawn
 * element carries the trace index at which it appears (data-i) and, for messages, at which it
 * arrives (data-j), so the page script can replay the run step by step without redrawing.
 */
const LANE_WIDTH = 180;
const AXIS_WIDTH = 76;
const HEADER_HEIGHT = 58;
/** The body starts below the (separate) lane header. */
const TOP_PX = 14;
const PX_PER_MS = 2;
const MIN_GAP_PX = 7;
/** Longer idle stretches are compressed to this height (marked on the axis). */
const MAX_GAP_PX = 44;
const FOOTER_PX = 40;

/** Virtual time -> y: linear within a step between event times, idle gaps compressed. */
export class TimeAxis {
  readonly times: number[];
  readonly ys: number[];
  readonly compressed: number[] = [];

  constructor(times: readonly number[]) {
    this.times = [...new Set(times)].sort((a, b) => a - b);
    this.ys = [];
    let y = TOP_PX;
    for (let i = 0; i < this.times.length; i++) {
      if (i > 0) {
        const gap = ((this.times[i] as number) - (this.times[i - 1] as number)) * PX_PER_MS;
        if (gap > MAX_GAP_PX) this.compressed.push(i);
        y += Math.min(MAX_GAP_PX, Math.max(MIN_GAP_PX, gap));
      }
      this.ys.push(y);
    }
  }

  get height(): number {
    return (this.ys.at(-1) ?? TOP_PX) + FOOTER_PX;
  }

  y(timeMs: number): number {
    const t = this.times;
    if (t.length === 0) return TOP_PX;
    let lo = 0;
    let hi = t.length - 1;
    if (timeMs <= (t[0] as number)) return this.ys[0] as number;
    if (timeMs >= (t[hi] as number))
      return (this.ys[hi] as number) + Math.min(MAX_GAP_PX, (timeMs - (t[hi] as number)) * PX_PER_MS);
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if ((t[mid] as number) <= timeMs) lo = mid;
      else hi = mid;
    }
    const t0 = t[lo] as number;
    const t1 = t[hi] as number;
    const y0 = this.ys[lo] as number;
    const y1 = this.ys[hi] as number;
    return y0 + ((timeMs - t0) / (t1 - t0)) * (y1 - y0);
  }
}

const r1 = (n: number) => Math.round(n * 10) / 10;

function laneX(st: SpaceTime): Map<string, number> {
  return new Map(st.lanes.map((l, i) => [l.id, AXIS_WIDTH + LANE_WIDTH * i + LANE_WIDTH / 2]));
}

function emphasisClass(e: { emphasis: string | null }): string {
  return e.emphasis ? ` em-${e.emphasis}` : "";
}

/** Lane names in their own SVG, which the page keeps in view (sticky) while the diagram scrolls. */
function drawHeader(st: SpaceTime, xs: Map<string, number>, width: number): string {
  const names = st.lanes.map((lane) => {
    const x = xs.get(lane.id) as number;
    // A broker is a coordinator too when it leads a __transaction_state partition; the tooltip says which.
    const coordinator = lane.roles?.startsWith("coordinator") ? "coordinator" : null;
    const sub = [lane.role, coordinator, lane.release].filter(Boolean).join(" · ");
    const title = lane.roles ? `<title>${escapeXml(`${lane.id} at the start: ${lane.roles}`)}</title>` : "";
    return `<g class="lane lane-${lane.role}" data-lane="${escapeXml(lane.id)}">${title}<text class="lane-name" x="${x}" y="22">${escapeXml(lane.id)}</text><text class="lane-sub" x="${x}" y="40">${escapeXml(sub)}</text></g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" class="lanes-head" width="${width}" height="${HEADER_HEIGHT - 6}">${names.join("")}</svg>`;
}

function drawLaneLines(st: SpaceTime, xs: Map<string, number>, height: number): string[] {
  return st.lanes.map((lane) => {
    const x = xs.get(lane.id) as number;
    return `<g class="lane lane-${lane.role}"><line x1="${x}" y1="0" x2="${x}" y2="${r1(height - FOOTER_PX / 2)}"/></g>`;
  });
}

function drawBand(b: Band, axis: TimeAxis, xs: Map<string, number>, width: number): string {
  const y0 = r1(axis.y(b.fromMs));
  const title = `<title>${escapeXml(`t=${b.fromMs}ms${b.toMs > b.fromMs ? `..${b.toMs}ms` : ""} ${b.label}`)}</title>`;
  const attrs = `class="band band-${b.kind}" data-i="${b.index}"`;
  if (b.toMs <= b.fromMs) {
    // An instant (failover, restart, upgrade): a line across its lanes, or across the diagram.
    const lanes = b.lanes.map((l) => xs.get(l) as number);
    const x0 = lanes.length > 0 ? Math.min(...lanes) - LANE_WIDTH / 2 + 6 : AXIS_WIDTH;
    const x1 = lanes.length > 0 ? Math.max(...lanes) + LANE_WIDTH / 2 - 6 : width;
    return `<g ${attrs}>${title}<line x1="${x0}" y1="${y0}" x2="${x1}" y2="${y0}"/><text x="${x0 + 4}" y="${y0 - 4}">${escapeXml(b.label)}</text></g>`;
  }
  const y1 = r1(Math.max(axis.y(b.toMs), y0 + 4));
  const lanes = b.lanes.map((l) => xs.get(l) as number);
  const x0 = lanes.length > 0 ? Math.min(...lanes) - LANE_WIDTH / 2 + 10 : AXIS_WIDTH;
  const x1 = lanes.length > 0 ? Math.max(...lanes) + LANE_WIDTH / 2 - 10 : width;
  return `<g ${attrs}>${title}<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${r1(y1 - y0)}" rx="3"/><text x="${x0 + 4}" y="${y0 + 12}">${escapeXml(b.label)}</text></g>`;
}

function drawArrow(a: Arrow, axis: TimeAxis, xs: Map<string, number>, endMs: number): string {
  const x0 = xs.get(a.from) as number;
  const xTo = xs.get(a.to) as number;
  const y0 = axis.y(a.sendMs);
  let x1 = xTo;
  let y1 = axis.y(a.arriveMs ?? endMs);
  let tail = "";
  if (a.fate === "dropped" || a.fate === "lost") {
    // Never arrived: the arrow stops halfway and ends in a cross (dropped) or fades out (in flight at the end).
    x1 = x0 + (xTo - x0) * 0.45;
    y1 = a.fate === "dropped" ? y0 + 6 : y1;
    if (a.fate === "dropped") tail = `<path class="cross" d="M${r1(x1 - 4)},${r1(y1 - 4)}l8,8m0,-8l-8,8"/>`;
  }
  const classes =
    [
      "msg",
      `msg-${a.direction}`,
      `api-${a.api}`,
      `fate-${a.fate}`,
      a.duplicate ? "dup" : "",
      a.key ? "key" : "",
      a.delay ? "delayed" : "",
    ]
      .filter(Boolean)
      .join(" ") + emphasisClass(a);
  const arrived = a.arriveIndex === null ? "" : ` data-j="${a.arriveIndex}"`;
  const head = a.fate === "delivered" || a.fate === "late" ? ' marker-end="url(#head)"' : "";
  const mx = r1((x0 + x1) / 2);
  const my = r1((y0 + y1) / 2);
  const angle = r1((Math.atan2(y1 - y0, x1 - x0) * 180) / Math.PI);
  const upright = Math.abs(angle) > 90 ? r1(angle + 180) : angle;
  const fate =
    a.fate === "delivered"
      ? ""
      : ` (${a.fate === "late" ? "late: connection already closed" : a.fate === "lost" ? "still in flight when the run ended" : "dropped"})`;
  const title = `t=${a.sendMs}ms${a.arriveMs !== null ? `..${a.arriveMs}ms` : ""} ${a.from} -> ${a.to}: ${a.label}${a.duplicate ? " (duplicate copy)" : ""}${a.delay ? ` (${a.delay})` : ""}${fate}`;
  return `<g class="${classes}" data-i="${a.sendIndex}"${arrived}><title>${escapeXml(title)}</title><line x1="${r1(x0)}" y1="${r1(y0)}" x2="${r1(x1)}" y2="${r1(y1)}"${head}/>${tail}<text class="alabel" x="${mx}" y="${my - 3}" transform="rotate(${upright} ${mx} ${my})">${escapeXml(a.label)}</text></g>`;
}

function drawEvent(e: DiagramEvent, axis: TimeAxis, xs: Map<string, number>): string {
  const x = xs.get(e.lane) as number;
  const y = r1(axis.y(e.timeMs));
  const radius = e.category === "net" || e.category === "log" ? 2.2 : 4;
  const label = e.label ? `<text class="elabel" x="${x + 7}" y="${y + 3.5}">${escapeXml(e.label)}</text>` : "";
  return `<g class="ev cat-${e.category}${e.label ? " labelled" : ""}${emphasisClass(e)}" data-i="${e.index}"><title>${escapeXml(`${e.lane} ${e.text}`)}</title><circle cx="${x}" cy="${y}" r="${radius}"/>${label}</g>`;
}

function drawAxis(axis: TimeAxis, width: number): string[] {
  const out: string[] = [`<g class="axis">`];
  let lastY = -Infinity;
  axis.times.forEach((t, i) => {
    const y = axis.ys[i] as number;
    if (y - lastY < 46) return;
    lastY = y;
    out.push(
      `<line class="tick" x1="${AXIS_WIDTH - 6}" y1="${r1(y)}" x2="${width}" y2="${r1(y)}"/><text x="${AXIS_WIDTH - 9}" y="${r1(y + 3.5)}">${t} ms</text>`,
    );
  });
  for (const i of axis.compressed) {
    const y = ((axis.ys[i] as number) + (axis.ys[i - 1] as number)) / 2;
    const gap = (axis.times[i] as number) - (axis.times[i - 1] as number);
    out.push(
      `<path class="gap" d="M${AXIS_WIDTH - 14},${r1(y - 3)}l5,3l-5,3"><title>${gap} ms with nothing drawn, compressed</title></path>`,
    );
  }
  out.push("</g>");
  return out;
}

/** The whole diagram (lane header, then the body); `id` keeps several diagrams on one page apart. */
export function renderSpaceTimeSvg(st: SpaceTime, id: string): string {
  const times = [
    ...st.events.map((e) => e.timeMs),
    ...st.arrows.flatMap((a) => (a.arriveMs === null ? [a.sendMs] : [a.sendMs, a.arriveMs])),
  ];
  const axis = new TimeAxis(times);
  const xs = laneX(st);
  const width = AXIS_WIDTH + LANE_WIDTH * st.lanes.length + 8;
  const height = Math.ceil(axis.height);
  const parts: string[] = [
    drawHeader(st, xs, width),
    `<svg xmlns="http://www.w3.org/2000/svg" class="spacetime" id="${escapeXml(id)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<defs><marker id="head" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="context-stroke"/></marker></defs>`,
    ...drawAxis(axis, width),
    `<g class="bands">`,
    ...st.bands.map((b) => drawBand(b, axis, xs, width)),
    `</g>`,
    ...drawLaneLines(st, xs, height),
    `<g class="arrows">`,
    ...st.arrows.map((a) => drawArrow(a, axis, xs, st.endMs)),
    `</g><g class="events">`,
    ...st.events.map((e) => drawEvent(e, axis, xs)),
    `</g>`,
  ];
  if (st.violation) {
    const y = r1(axis.y(st.violation.atMs));
    parts.push(
      `<g class="violation-line"><line x1="${AXIS_WIDTH}" y1="${y}" x2="${width}" y2="${y}"/><text x="${width - 6}" y="${y - 5}">${escapeXml(`${st.violation.kind} at t=${st.violation.atMs}ms`)}</text></g>`,
    );
  }
  parts.push(`<line class="cursor" x1="${AXIS_WIDTH}" x2="${width}" y1="-10" y2="-10"/></svg>`);
  return parts.join("\n");
}
