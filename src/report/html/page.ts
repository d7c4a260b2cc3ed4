import { type SeedTrace, seedLabel } from "../../fuzz/seeds/failure-traces.js";
import type { Violation } from "../../oracle/violation.js";
import { reportedFailures, shivizFileName } from "../failure-selection.js";
import { type RunReport, seedsCovered } from "../run-report.js";
import { buildSpaceTime, type SpaceTime } from "../space-time.js";
import { describeExpectation } from "../terminal.js";
import {
  kindByRelease,
  renderDiscoveryCurve,
  renderKindByReleaseBars,
  renderKindByReleaseTable,
} from "./campaign-charts.js";
import { CLIENT_SCRIPT } from "./client-script.js";
import { escapeXml } from "./escape.js";
import {
  coverageSection,
  determinismSection,
  otherFieldSection,
  SECTION_FIELDS,
  scriptStepsSection,
  searchSection,
  seedFilesSection,
  shrunkSection,
  statisticsSection,
} from "./run-sections.js";
import { renderLegend } from "./diagram-legend.js";
import { REPORT_CSS } from "./style.js";
import { renderSpaceTimeSvg } from "./svg-diagram.js";

/** Bound on the violation rows listed in a run page (all of them are in run.json). */
const MAX_VIOLATION_ROWS = 300;
/** Diagrams drawn in a run page (each is about 2 MB for a 5,000-event trace); later failures get links. */
export const MAX_DIAGRAMS_PER_RUN_PAGE = 3;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeXml(title)}</title><style>${REPORT_CSS}</style></head>
<body>${body}<script>${CLIENT_SCRIPT}</script></body></html>
`;
}

/** "t=651ms ..." steps become clickable: they move the slider to that time. */
function chainList(steps: readonly string[]): string {
  const items = steps.map((step) => {
    const at = /^\s*t=(\d+)ms/.exec(step);
    return `<li${at ? ` data-at-ms="${at[1]}" title="show this moment in the diagram"` : ""}>${escapeXml(step)}</li>`;
  });
  return `<ul class="chain">${items.join("")}</ul>`;
}

/**
 * One diagram with its controls: slider, step buttons, hover details, label toggles, and the
 * legend of what it draws (above it, in view). It opens at its violation (the page script).
 */
export function renderDiagramSection(st: SpaceTime, id: string, extra = "", options: { open?: boolean } = {}): string {
  const windowNote =
    st.window.first > 0 || st.window.last + 1 < st.window.total
      ? `<p class="muted">Showing trace events #${st.window.first}..#${st.window.last} of ${st.window.total} (the window that ends just after the violation).</p>`
      : "";
  const violation = st.violation;
  const head = violation
    ? `<h3><span class="pill bad">${escapeXml(violation.kind)}</span> ${escapeXml(violation.summary)}</h3>${chainList(violation.steps)}`
    : `<h3>No violation in this run</h3>`;
  return `<section class="diagram" id="${escapeXml(id)}" tabindex="0" data-violation-index="${violation?.index ?? ""}"${options.open ? " data-open" : ""}>
<div class="controls">
<button data-act="first" title="first event">|&lt;</button><button data-act="prev" title="previous event (←)">&lt;</button>
<button data-act="play">play</button><button data-act="next" title="next event (→)">&gt;</button><button data-act="last" title="last event">&gt;|</button>
${violation?.index != null ? `<button class="warn" data-act="violation">go to the violation</button>` : ""}
<input class="step" type="range" min="0" max="0" value="0" aria-label="step through the run">
<span class="step-readout"></span>
<label><input type="checkbox" data-toggle="all-labels"> all labels</label>
<label><input type="checkbox" data-toggle="hide-net"> only key messages</label>
</div>
<div class="details" aria-live="polite"></div>
<div class="explain">${head}${windowNote}${extra}</div>
${renderLegend(st)}
<div class="scroll">${renderSpaceTimeSvg(st, `${id}-svg`)}</div>
</section>`;
}

export interface ReplayView {
  trace: SeedTrace;
  /** The violation to centre on (default: the first of the run). */
  violation?: Violation | null;
  /** The command that reproduces the run. */
  replayCommand?: string;
}

/** The page of one replayed seed (`eosfuzz replay FILE --html OUT`, and each failure of a run). */
export function renderReplayHtml(view: ReplayView): string {
  const { trace } = view;
  const st = buildSpaceTime(trace, view.violation === undefined ? (trace.violations[0] ?? null) : view.violation);
  const hashNote =
    trace.recordedTraceHash === null
      ? ""
      : trace.recordedTraceHash === trace.traceHash
        ? ` <span class="pill ok">reproduced: trace hash matches the recording</span>`
        : ` <span class="pill bad">trace differs from the recording (${escapeXml(trace.recordedTraceHash)})</span>`;
  const others =
    trace.violations.length > 1
      ? `<p class="muted">${trace.violations.length} violations in this run; the diagram centres on the first.</p>`
      : "";
  const body = `<header class="top"><h1>eosfuzz · ${escapeXml(trace.scenario)} · ${seedLabel(trace.seed)}</h1>
<div class="muted">trace <code>${escapeXml(trace.traceHash)}</code>, ${trace.eventCount} events${hashNote}${view.replayCommand ? ` · replay: <code>${escapeXml(view.replayCommand)}</code>` : ""}</div></header>
<main>${others}${renderDiagramSection(st, trace.seed === null ? "tape" : `seed-${trace.seed}`)}</main>`;
  return page(`eosfuzz ${trace.scenario} ${seedLabel(trace.seed)}`, body);
}

export interface RunPageInput {
  report: RunReport;
  /** Failing seeds traced again, for diagrams (missing ones are listed with the reason). */
  traces: readonly SeedTrace[];
  /** Why some failures have no diagram (e.g. the scenario changed since the run). */
  notes?: readonly string[];
  /** The shrunk first failure (its saved tape replayed), drawn first: the page opens at its violation. */
  shrunk?: SeedTrace | null;
  /** The report directory holds ShiViz logs and junit.xml beside index.html. */
  withFiles?: boolean;
}

/** Fields of run.json this page knows; the others (added by other commands) are shown generically. */
const KNOWN_FIELDS = new Set([
  "schemaVersion",
  "tool",
  "scenario",
  "scenarioHash",
  "scenarioSource",
  "mutant",
  "seedStart",
  "seedsRun",
  "interrupted",
  "events",
  "virtualTimeMs",
  "expectation",
  "expectationMet",
  "expectationReasons",
  "expectationChecks",
  "violationsByKind",
  "failingSeeds",
  "violations",
  "wallMs",
  "eventsPerSecond",
  "seedsPerSecond",
  "startedAt",
]);

function summaryCards(r: RunReport): string {
  const card = (label: string, value: string) =>
    `<div class="card"><span class="muted">${escapeXml(label)}</span><b>${escapeXml(value)}</b></div>`;
  const n = (x: number) => x.toLocaleString("en-US");
  return `<div class="cards">${[
    card("seeds", `${n(r.seedsRun)} (${seedsCovered(r)})`),
    card("events", n(r.events)),
    card("violations", n(r.violations.length)),
    card("failing seeds", n(r.failingSeeds.length)),
    ...(r.modelFailures && r.modelFailures.violations > 0
      ? [card("model failures (bugs in eosfuzz)", n(r.modelFailures.violations))]
      : []),
    card("events/s (wall clock)", n(r.eventsPerSecond)),
    card("seeds/s (wall clock)", String(r.seedsPerSecond)),
  ].join("")}</div>`;
}

function checksTable(r: RunReport): string {
  const rows = r.expectationChecks.map(
    (c) =>
      `<tr><td>${c.met ? `<span class="pill ok">met</span>` : `<span class="pill bad">not met</span>`}</td><td>${escapeXml(c.name)}</td><td>${escapeXml(c.detail)}</td></tr>`,
  );
  return `<table class="checks"><tr><th></th><th>expectation</th><th>result</th></tr>${rows.join("")}</table>`;
}

function violationRows(r: RunReport, withFiles: boolean, traced: ReadonlySet<number>): string {
  const rows = r.violations.slice(0, MAX_VIOLATION_ROWS).map((v) => {
    const where = v.broker
      ? `${v.broker} (${v.brokerRelease ?? "?"})${v.partition ? ` ${v.partition}` : ""}`
      : "coordinator";
    const link = traced.has(v.seed)
      ? ` <a href="#seed-${v.seed}">diagram</a>${withFiles ? ` · <a href="${shivizFileName(v.seed)}">ShiViz log</a>` : ""}`
      : "";
    return `<tr><td class="num">${v.seed}</td><td>${escapeXml(v.kind)}${v.unexpected ? ` <span class="pill bad">unexpected</span>` : ""}</td><td>${escapeXml(where)}</td><td>${escapeXml(v.summary)}${link}</td><td><code>${escapeXml(v.replay)}</code></td></tr>`;
  });
  const more =
    r.violations.length > MAX_VIOLATION_ROWS
      ? `<p class="muted">${r.violations.length - MAX_VIOLATION_ROWS} more in run.json.</p>`
      : "";
  return `<table class="violations"><tr><th>seed</th><th>kind</th><th>where</th><th>what</th><th>replay</th></tr>${rows.join("")}</table>${more}`;
}

/** The page of a run (index.html of `run --out` and of `eosfuzz report`). */
export function renderRunHtml(input: RunPageInput): string {
  const r = input.report;
  const withFiles = input.withFiles ?? false;
  const verdict = r.expectationMet
    ? `<span class="pill ok">expectation met</span>`
    : `<span class="pill bad">expectation not met</span>`;
  const failures = reportedFailures(r);
  const bySeed = new Map(input.traces.map((t) => [t.seed, t]));
  const diagrams: string[] = [];
  const drawn = new Set<number>();
  const undrawn: string[] = [];
  for (const v of failures) {
    const trace = bySeed.get(v.seed);
    if (!trace || drawn.has(v.seed)) continue;
    if (drawn.size >= MAX_DIAGRAMS_PER_RUN_PAGE) {
      const log = withFiles ? ` · ShiViz: <a href="${shivizFileName(v.seed)}">${shivizFileName(v.seed)}</a>` : "";
      undrawn.push(
        `<li>seed ${v.seed}: ${escapeXml(v.kind)}${v.brokerRelease ? ` at a ${escapeXml(v.brokerRelease)} broker` : ""}${log} · replay: <code>${escapeXml(v.replay)}</code></li>`,
      );
      continue;
    }
    drawn.add(v.seed);
    const violation =
      trace.violations.find((x) => x.kind === v.kind && x.atMs === v.atMs) ?? trace.violations[0] ?? null;
    const files = withFiles
      ? `<p>ShiViz: <a href="${shivizFileName(v.seed)}">${shivizFileName(v.seed)}</a> (open it at ShiViz with the default parser) · replay: <code>${escapeXml(v.replay)}</code></p>`
      : `<p>replay: <code>${escapeXml(v.replay)}</code></p>`;
    diagrams.push(
      `<h3 id="seed-${v.seed}">seed ${v.seed}: ${escapeXml(v.kind)}${v.brokerRelease ? ` at a ${escapeXml(v.brokerRelease)} broker` : ""}</h3>`,
      renderDiagramSection(buildSpaceTime(trace, violation), `diagram-${v.seed}`, files),
    );
  }
  const fields = r as unknown as Record<string, unknown>;
  // Fields this page does not know yet (added to run.json later) still show, under a heading in words.
  const extras = Object.keys(r)
    .filter((k) => !KNOWN_FIELDS.has(k) && !SECTION_FIELDS.includes(k))
    .sort()
    .map((k) => otherFieldSection(k, fields[k]));
  const matrix = kindByRelease(r);
  const first = input.shrunk ? shrunkDiagram(r, input.shrunk, drawn) : "";
  const notes = (input.notes ?? []).map((n) => `<p class="muted">${escapeXml(n)}</p>`).join("");
  const body = `<header class="top"><h1>eosfuzz run · ${escapeXml(r.scenario)}</h1>
<div>${verdict} <span class="muted">expectation: ${escapeXml(describeExpectation(r.expectation))}${r.mutant ? ` · mutant ${escapeXml(r.mutant)}` : ""}${r.interrupted ? " · interrupted" : ""} · ${escapeXml(r.tool.name)} ${escapeXml(r.tool.version)} · scenario hash <code>${escapeXml(r.scenarioHash)}</code> · started ${escapeXml(r.startedAt ?? "")}</span></div></header>
<main>${first}${summaryCards(r)}
<h2>Expectation</h2>${checksTable(r)}${withFiles ? `<p class="muted">The same checks, with one test case per violation, are in <a href="junit.xml">junit.xml</a>; the run itself in <a href="run.json">run.json</a>.</p>` : ""}
<h2>Violations by kind and broker release</h2>${renderKindByReleaseTable(matrix)}${renderKindByReleaseBars(matrix)}
<h2>Seeds to first violation</h2>${renderDiscoveryCurve(r)}
${r.strategy ? searchSection(r) : ""}${r.statistics ? statisticsSection(r) : ""}${coverageSection(r)}${scriptStepsSection(r)}${shrunkSection(r)}${determinismSection(r)}${seedFilesSection(r)}
${extras.join("\n")}
<h2>Failures in depth</h2>${notes}${diagrams.length > 0 ? diagrams.join("\n") : `<p class="muted">${r.violations.length === 0 ? "No failures." : "No diagram could be drawn (see above)."}</p>`}
${undrawn.length > 0 ? `<p>More failures, one per kind and broker release:</p><ul>${undrawn.join("")}</ul>` : ""}
<h2>All violations</h2>${r.violations.length > 0 ? violationRows(r, withFiles, drawn) : `<p class="muted">None.</p>`}
</main>`;
  return page(`eosfuzz ${r.scenario}`, body);
}

/**
 * The first failure shrunk, drawn at the top of the page: a reader sees the violation at once, in a
 * run of a few hundred events; the full run it was shrunk from is one click away (its diagram below).
 */
function shrunkDiagram(r: RunReport, trace: SeedTrace, drawn: ReadonlySet<number>): string {
  const s = r.shrunk;
  const violation = trace.violations.find((v) => v.kind === s?.kind) ?? trace.violations[0] ?? null;
  if (!s || !violation) return "";
  const full =
    s.seed !== null && drawn.has(s.seed)
      ? `the full run: <a href="#seed-${s.seed}">seed ${s.seed}</a>, ${s.before.events.toLocaleString("en-US")} events`
      : s.seed !== null
        ? `shrunk from seed ${s.seed} (${s.before.events.toLocaleString("en-US")} events)`
        : "";
  const saved = s.savedTo ? `replay: <code>eosfuzz replay ${escapeXml(s.savedTo)}</code>` : "";
  const note = [full, saved].filter((x) => x !== "").join(" · ");
  return `<h2 id="first-failure">The first failure, shrunk to ${s.after.events.toLocaleString("en-US")} events</h2>
${renderDiagramSection(buildSpaceTime(trace, violation), "diagram-shrunk", note ? `<p>${note}</p>` : "", { open: true })}`;
}
