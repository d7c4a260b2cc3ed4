import chalk from "chalk";
import type { Expectation } from "../scenario/schema.js";
import type { ReportedViolation, RunReport } from "./run-report.js";

const n = (x: number) => x.toLocaleString("en-US");

export function describeExpectation(e: Expectation): string {
  if (e.clean || e.find.length === 0) return "clean (no violation of any kind)";
  const where = e.where ? `, only at brokers on ${e.where.brokerRelease.join("/")}` : "";
  const allow = e.allow.length > 0 ? `; also allowed: ${e.allow.join(", ")}` : "";
  return `find ${e.find.join(", ")}${e.within ? ` within ${e.within} seeds` : ""}${where}${allow}`;
}

function whereOf(v: ReportedViolation): string {
  return v.broker ? `${v.broker} (${v.brokerRelease ?? "?"})` : "coordinator";
}

/** The human summary of a run: throughput, violations by kind and place, the verdict, one example per kind. */
export function renderRunReport(r: RunReport, options: { examples?: number } = {}): string {
  const out: string[] = [];
  const last = r.seedStart + r.seedsRun - 1;
  out.push(chalk.bold(`eosfuzz run ${r.scenario}`) + chalk.dim(`  seeds ${r.seedStart}..${last}${r.mutant ? `  mutant ${r.mutant}` : ""}${r.interrupted ? "  (interrupted)" : ""}`));
  out.push(`  ${n(r.seedsRun)} seeds, ${n(r.events)} events in ${(r.wallMs / 1000).toFixed(1)} s (${n(r.eventsPerSecond)} events/s, ${r.seedsPerSecond} seeds/s)`);
  out.push("");
  const kinds = Object.keys(r.violationsByKind);
  if (kinds.length === 0) {
    out.push(`  ${chalk.green("no violations")}`);
  } else {
    out.push("  violations");
    for (const kind of kinds) {
      const of = r.violations.filter((v) => v.kind === kind);
      const seeds = new Set(of.map((v) => v.seed)).size;
      const places = new Map<string, number>();
      for (const v of of) places.set(whereOf(v), (places.get(whereOf(v)) ?? 0) + 1);
      const placeText = [...places].map(([p, c]) => `${p} x${c}`).join(", ");
      out.push(`    ${chalk.yellow(kind.padEnd(20))} ${String(r.violationsByKind[kind]).padStart(5)} in ${seeds} seed${seeds > 1 ? "s" : ""}   at ${placeText}`);
    }
  }
  out.push("");
  out.push(`  expectation: ${describeExpectation(r.expectation)}`);
  if (r.expectationMet) out.push(`  ${chalk.green.bold("MET")}`);
  else for (const reason of r.expectationReasons) out.push(`  ${chalk.red.bold("NOT MET")} ${reason}`);
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
  return out.join("\n");
}
