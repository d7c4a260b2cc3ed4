import chalk from "chalk";
import type { ReplayResult } from "../fuzz/seeds/replay.js";
import type { TraceEvent } from "../sim/trace.js";

export interface EventRange {
  from: number;
  to: number;
}

function fieldsText(e: TraceEvent): string {
  return Object.entries(e.fields)
    .map(([k, v]) => `${k}=${typeof v === "string" && /\s/.test(v) ? JSON.stringify(v) : String(v)}`)
    .join(" ");
}

/** One event on one line: index, virtual time, node, kind and fields. */
export function describeEvent(e: TraceEvent): string {
  return `#${e.index} t=${e.timeMs}ms ${e.node} ${e.kind}${Object.keys(e.fields).length > 0 ? ` ${fieldsText(e)}` : ""}`;
}

/** Lanes in order of each node's first event in the whole trace (stable from run to run). */
function lanesOf(trace: readonly TraceEvent[]): string[] {
  const lanes: string[] = [];
  const seen = new Set<string>();
  for (const e of trace) {
    if (seen.has(e.node)) continue;
    seen.add(e.node);
    lanes.push(e.node);
  }
  return lanes;
}

/**
 * The event list in a per-node layout: one column per node, a dot in the column of the node that
 * acted, then the node's name, the event kind and its fields.
 */
export function renderTrace(trace: readonly TraceEvent[], range: EventRange, mark: number | null = null): string {
  const lanes = lanesOf(trace);
  const laneIndex = new Map(lanes.map((n, i) => [n, i]));
  const width = Math.max(...lanes.map((l) => l.length), 4);
  const out: string[] = [];
  out.push(chalk.bold(`  trace, events ${range.from}..${range.to} of ${trace.length}`));
  for (const [i, lane] of lanes.entries()) out.push(chalk.dim(`  ${" ".repeat(19)}${"│ ".repeat(i)}┌ ${lane}`));
  for (const e of trace.slice(range.from, range.to + 1)) {
    const at = laneIndex.get(e.node) ?? 0;
    const columns = lanes.map((_, i) => (i === at ? "●" : "│")).join(" ");
    const marker = e.index === mark ? chalk.red("  <- first divergent event") : "";
    out.push(
      `  ${String(`#${e.index}`).padStart(7)} ${`t=${e.timeMs}ms`.padEnd(10)} ${columns}  ${e.node.padEnd(width)} ${chalk.bold(e.kind)} ${chalk.dim(fieldsText(e))}${marker}`,
    );
  }
  return out.join("\n");
}

/** The human report of a replay: verdict, where it diverged, the causal chains, notes, and maybe the trace. */
export function renderReplay(r: ReplayResult, options: { trace?: EventRange | null } = {}): string {
  const out: string[] = [];
  out.push(chalk.bold(`eosfuzz replay ${r.file}`));
  out.push(
    `  scenario ${r.scenario} (${r.recordedScenarioHash})${r.mutant ? `, mutant ${r.mutant}` : ""}, ${r.seed !== null ? `seed ${r.seed}` : "shrunk tape"}, recorded with eosfuzz ${r.recordedToolVersion}`,
  );
  if (r.status === "reproduced") {
    out.push(`  ${chalk.green.bold("REPRODUCED")} trace ${r.traceHash} (${r.events} events), as recorded`);
  } else {
    const label = r.status === "trace-changed" ? chalk.yellow.bold("TRACE CHANGED") : chalk.red.bold("DIVERGED");
    const what =
      r.status === "trace-changed" ? "violation reproduced, trace changed" : "the recorded violation did not happen";
    out.push(
      `  ${label} ${what}: trace ${r.traceHash} (${r.events} events), recorded ${r.recordedTraceHash} (${r.recordedEvents} events)`,
    );
    const d = r.divergence;
    if (d) {
      const where =
        d.eventIndex !== null ? `at event #${d.eventIndex}` : `between events #${d.fromEvent} and #${d.toEvent}`;
      out.push(`  the hashes part ${where} (${d.how})`);
      out.push(`    replay:   ${d.replayed ? describeEvent(d.replayed) : "(the replay ended before this event)"}`);
      if (d.recorded) out.push(`    recorded: ${describeEvent(d.recorded)}`);
    }
  }
  for (const note of r.notes) out.push(chalk.dim(`  note: ${note}`));
  out.push("");
  if (r.violations.length === 0) out.push("  no violations in the replay");
  for (const v of r.violations) {
    out.push(chalk.bold(`  ${v.kind}`) + `  ${v.summary}`);
    for (const step of v.explanation) out.push(`    ${step}`);
    out.push("");
  }
  if (r.status !== "reproduced") {
    out.push(
      chalk.dim(
        `  recorded: ${r.recordedViolations.map((v) => `${v.kind}${v.brokerRelease ? ` on ${v.brokerRelease}` : ""}`).join(", ")}`,
      ),
    );
  }
  if (options.trace) {
    out.push("");
    out.push(renderTrace(r.trace, options.trace, r.divergence?.eventIndex ?? null));
  }
  return out.join("\n");
}
