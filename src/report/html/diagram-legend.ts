import type { EventCategory, SpaceTime } from "../space-time.js";
import { escapeXml } from "./escape.js";

/**
 * The legend of one diagram, drawn from what that diagram contains: an entry for each kind of
 * arrow, band and node dot it draws, none for what it does not (a run without faults has no fault
 * entries). Each entry's sample uses the same colours as the SVG (style.ts).
 */

interface Entry {
  /** data-legend: what the entry stands for (the browser test matches entries to drawn elements). */
  id: string;
  sample: string;
  text: string;
}

const line = (style: string) => `<i style="${style}"></i>`;
const box = (style: string) => `<i class="box" style="${style}"></i>`;
const dot = (colour: string) => `<i class="dot" style="background:${colour}"></i>`;

/** Node dots by category, with the colours of style.ts's `.cat-*` rules. */
const DOTS: Record<EventCategory, { colour: string; text: string }> = {
  marker: { colour: "#0969da", text: "a leader judges a transaction marker (written or refused)" },
  produce: { colour: "#1a7f37", text: "a leader appends, verifies or refuses records" },
  txn: { colour: "#5b3cc4", text: "a transaction coordinator changes a transaction's state" },
  client: { colour: "#1a7f37", text: "a producer or consumer step (begin, commit, poll, error)" },
  group: { colour: "#bf3989", text: "group coordinator (JoinGroup, TxnOffsetCommit, offsets at __consumer_offsets)" },
  fault: { colour: "#cf222e", text: "a fault is injected (crash, stall, upgrade)" },
  net: { colour: "#6e7781", text: "a connection opens, closes or times out" },
  log: { colour: "#afb8c1", text: "replication (high watermark, truncation)" },
  other: { colour: "#6e7781", text: "another event (hover for its fields)" },
};

const BANDS: Record<SpaceTime["bands"][number]["kind"], { sample: string; text: string }> = {
  slow: { sample: box("background:#bf87001a;border:1px dashed #bf870066"), text: "a message's time in a slow network" },
  stall: { sample: box("background:#cf222e22"), text: "node stalled" },
  partition: { sample: box("background:#bf870033"), text: "link cut" },
  pause: { sample: box("background:#8250df22"), text: "producer or processor paused" },
  quiet: { sample: box("background:#1a7f370d;border:1px solid #1a7f3733"), text: "quiet period (no new faults)" },
  failover: {
    sample: line("border-color:#cf222e;border-top-style:dashed"),
    text: "leadership moves (failover, leader change)",
  },
  restart: { sample: line("border-color:#8250df;border-top-style:dashed"), text: "broker restart" },
  upgrade: { sample: line("border-color:#8250df;border-top-style:dashed"), text: "broker upgrade" },
};

export function legendEntries(st: SpaceTime): Entry[] {
  const entries: Entry[] = [];
  const add = (present: boolean, id: string, sample: string, text: string) => {
    if (present) entries.push({ id, sample, text });
  };
  const emphasised = (e: string) => st.arrows.some((a) => a.emphasis === e) || st.events.some((x) => x.emphasis === e);
  const staleIsMarker = st.violation?.kind === "stale-marker";
  add(
    st.arrows.some((a) => a.key),
    "markers",
    line("border-color:#0969da"),
    "WriteTxnMarkers",
  );
  add(
    st.arrows.some((a) => !a.key),
    "messages",
    line("border-color:#aab3bf"),
    "other requests and responses",
  );
  add(
    emphasised("stale"),
    "stale",
    line("border-color:#cf222e;border-top-width:3px"),
    staleIsMarker ? "the stale marker" : "where the violation happens",
  );
  add(emphasised("victim"), "victim", line("border-color:#d4660a"), "records it wrongly closed");
  add(emphasised("related"), "related", line("border-color:#8250df"), "the violation's transactions");
  add(
    st.arrows.some((a) => a.delay !== null),
    "delayed",
    line("border-color:#bf8700"),
    "delayed by a slow network",
  );
  add(
    st.arrows.some((a) => a.fate === "late"),
    "late",
    line("border-color:#bf8700;border-top-style:dotted"),
    "late: its connection had closed",
  );
  add(
    st.arrows.some((a) => a.duplicate),
    "duplicate",
    line("border-color:#aab3bf;border-top-style:dashed"),
    "duplicate copy",
  );
  add(
    st.arrows.some((a) => a.fate === "dropped"),
    "dropped",
    `<b class="cross">×</b>`,
    "dropped by the network",
  );
  add(
    st.arrows.some((a) => a.fate === "lost"),
    "lost",
    line("border-color:#aab3bf;border-top-style:dotted"),
    "still in flight when the run ended",
  );
  for (const kind of Object.keys(BANDS) as (keyof typeof BANDS)[]) {
    const band = BANDS[kind];
    add(
      st.bands.some((b) => b.kind === kind),
      `band-${kind}`,
      band.sample,
      band.text,
    );
  }
  for (const category of Object.keys(DOTS) as EventCategory[]) {
    const d = DOTS[category];
    add(
      st.events.some((e) => e.category === category),
      `dot-${category}`,
      dot(d.colour),
      d.text,
    );
  }
  return entries;
}

export function renderLegend(st: SpaceTime): string {
  const items = legendEntries(st).map(
    (e) => `<span data-legend="${escapeXml(e.id)}">${e.sample}${escapeXml(e.text)}</span>`,
  );
  return `<div class="legend" aria-label="legend">${items.join("")}</div>`;
}
