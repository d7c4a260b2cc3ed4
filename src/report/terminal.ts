import chalk from "chalk";
import Table from "cli-table3";
import { VIOLATION_KINDS } from "../oracle/violation.js";
import type { Expectation } from "../scenario/schema.js";
import { type ReportedViolation, type RunReport, seedsCovered } from "./run-report.js";
import { renderSearchSummary } from "./search-terminal.js";
import { describeWhere, isModelFailure } from "../fuzz/campaign/expectation.js";
import { visibleLength } from "./terminal-width.js";

const n = (x: number) => x.toLocaleString("en-US");

/** Kinds no expectation can allow (evaluateExpectation): failures of the model or of a script. */
const NEVER_ALLOWED: readonly string[] = ["model-error", "step-mismatch"];

export function describeExpectation(e: Expectation): string {
  const findAny = e.findAny ?? [];
  const seeks = e.find.length + findAny.length > 0;
  if (!seeks && e.allow.length > 0 && !e.clean) return `no violation except ${e.allow.join(", ")} (allowed)`;
  if (e.clean || !seeks) return "clean (no violation of any kind)";
  const where = e.where ? `, only ${describeWhere(e.where)}` : "";
  const allowsAll = VIOLATION_KINDS.every((k) => NEVER_ALLOWED.includes(k) || e.allow.includes(k));
  const allow = allowsAll
    ? `; any other kind allowed but ${NEVER_ALLOWED.join(" and ")}`
    : e.allow.length > 0
      ? `; also allowed: ${e.allow.join(", ")}`
      : "";
  const seek = [e.find.length > 0 ? e.find.join(", ") : "", findAny.length > 0 ? `any of ${findAny.join(", ")}` : ""]
    .filter(Boolean)
    .join(" and ");
  return `find ${seek}${e.within ? ` within ${e.within} seeds` : ""}${where}${allow}`;
}

function whereOf(v: ReportedViolation): string {
  return v.broker ? `${v.broker} (${v.brokerRelease ?? "?"})` : "coordinator";
}

const HEAD = ["kind", "violations", "seeds", "where", "first seed", "expected"];
/** The column that wraps when the table is wider than the terminal. */
const WHERE = 3;

/**
 * Violations grouped by kind: count, seeds, places, first seed, and whether the expectation allows
 * them; at most `width` columns wide (the places wrap), indent included.
 */
export function violationTable(r: RunReport, width: number | null = null, indent = 2): string {
  const rows: string[][] = [];
  for (const kind of Object.keys(r.violationsByKind).filter((k) => !isModelFailure(k))) {
    const of = r.violations.filter((v) => v.kind === kind);
    const places = new Map<string, number>();
    for (const v of of) places.set(whereOf(v), (places.get(whereOf(v)) ?? 0) + 1);
    const placeText = [...places].map(([p, c]) => `${p} x${c}`).join(", ");
    const unexpected = of.some((v) => v.unexpected);
    rows.push([
      chalk.yellow(kind),
      n(r.violationsByKind[kind] ?? 0),
      n(new Set(of.map((v) => v.seed)).size),
      placeText,
      String(of[0]?.seed ?? ""),
      unexpected ? chalk.red("no") : chalk.green("yes"),
    ]);
  }
  // A column takes its widest cell and a space each side; the borders one column each.
  const natural = HEAD.map((h, i) => Math.max(visibleLength(h), ...rows.map((row) => visibleLength(row[i] ?? ""))) + 2);
  const others = natural.reduce((sum, w, i) => (i === WHERE ? sum : sum + w), 0);
  const room = width === null ? null : width - indent - (HEAD.length + 1) - others;
  const whereWidth = room !== null && room < (natural[WHERE] ?? 0) ? Math.max(12, room) : null;
  const table = new Table({
    head: HEAD,
    style: { head: [], border: [] },
    colAligns: ["left", "right", "right", "left", "right", "left"],
    ...(whereWidth !== null
      ? { colWidths: HEAD.map((_, i) => (i === WHERE ? whereWidth : null)), wordWrap: true }
      : {}),
  });
  table.push(...rows);
  return table.toString();
}

/** Failures of the model, apart from the protocol's violations: they are bugs in eosfuzz, to be reported. */
function modelFailureLines(r: RunReport): string[] {
  const failures = r.violations.filter((v) => isModelFailure(v.kind));
  const first = failures[0];
  if (!first) return [];
  const byKind = Object.entries(r.violationsByKind)
    .filter(([k]) => isModelFailure(k))
    .map(([k, c]) => `${k} x${c}`)
    .join(", ");
  const seeds = new Set(failures.map((v) => v.seed)).size;
  return [
    "",
    chalk.red.bold(
      `  model failures: ${byKind} in ${seeds} seed${seeds === 1 ? "" : "s"}, bugs in eosfuzz, not in Kafka`,
    ),
    `    first at seed ${first.seed}: ${first.summary}`,
    chalk.dim(`    replay: ${first.replay}`),
    "    please report it to the eosfuzz maintainers with the replay command",
  ];
}

/** The commands that follow a verdict: replay the failure, confirm it on real Kafka, continue an interrupted run. */
export interface VerdictCommands {
  replay?: string | null;
  /** What the replay command replays ("the shrunk failure", "seed 15"). */
  replayWhat?: string;
  confirm?: string | null;
  resume?: string | null;
}

/**
 * The verdict: the expectation, MET or NOT MET with each reason, and the commands to go on with.
 * It ends the output of a run, where a reader looks first (vitest and Jepsen end on theirs).
 */
export function renderVerdict(r: RunReport, commands: VerdictCommands = {}): string[] {
  const out = [`  expectation: ${describeExpectation(r.expectation)}`];
  if (r.expectationMet) out.push(`  ${chalk.green.bold("MET")}`);
  else for (const reason of r.expectationReasons) out.push(`  ${chalk.red.bold("NOT MET")} ${reason}`);
  if (commands.resume) out.push(`  continue it: ${commands.resume}`);
  if (commands.replay) out.push(`  replay ${commands.replayWhat ?? "it"}: ${commands.replay}`);
  if (commands.confirm) out.push(`  confirm it on real Kafka: ${commands.confirm}`);
  return out;
}

/**
 * The human summary of a run: throughput, violations by kind and place, one example per kind, and
 * the verdict last (`verdict: false` leaves it to the caller, who prints more before it).
 */
export function renderRunReport(
  r: RunReport,
  options: { examples?: number; afterHeader?: string; verdict?: boolean; width?: number | null } = {},
): string {
  const out: string[] = [];
  const shard = r.shard ? `  shard ${r.shard.index}/${r.shard.count}` : "";
  out.push(
    chalk.bold(`eosfuzz run ${r.scenario}`) +
      chalk.dim(
        `  seeds ${seedsCovered(r)}${shard}${r.mutant ? `  mutant ${r.mutant}` : ""}${r.interrupted ? "  (interrupted)" : ""}`,
      ),
  );
  out.push(
    `  ${n(r.seedsRun)} seeds, ${n(r.events)} events in ${(r.wallMs / 1000).toFixed(1)} s (${n(r.eventsPerSecond)} events/s, ${r.seedsPerSecond} seeds/s)`,
  );
  out.push("");
  if (options.afterHeader) out.push(options.afterHeader, "");
  const protocolKinds = Object.keys(r.violationsByKind).filter((k) => !isModelFailure(k));
  if (protocolKinds.length === 0)
    out.push(
      `  ${chalk.green(Object.keys(r.violationsByKind).length === 0 ? "no violations" : "no protocol violations")}`,
    );
  else out.push(violationTable(r, options.width ?? null).replace(/^/gm, "  "));
  out.push(...modelFailureLines(r));
  out.push("");
  out.push(...renderSearchSummary(r));
  const shown = new Set<string>();
  for (const v of r.violations) {
    if (shown.has(v.kind) || shown.size >= (options.examples ?? 3)) continue;
    shown.add(v.kind);
    out.push("");
    out.push(chalk.bold(`  first ${v.kind}`) + chalk.dim(` (seed ${v.seed}, trace ${v.traceHash})`));
    out.push(`    ${v.summary}`);
    for (const step of v.steps) out.push(`      ${step}`);
    out.push(chalk.dim(`    replay: ${v.replay}`));
  }
  if (options.verdict !== false) {
    const first = r.violations[0];
    out.push("", ...renderVerdict(r, first ? { replay: first.replay, replayWhat: `seed ${first.seed}` } : {}));
  }
  return out.join("\n");
}
