import chalk from "chalk";
import type { DeterminismReport } from "../fuzz/determinism-check.js";
import type { ShrinkSummary } from "../fuzz/shrink-seed.js";
import type { RunSize } from "../fuzz/shrink.js";

const ROWS: [keyof RunSize, string][] = [
  ["events", "simulation events"],
  ["messages", "messages"],
  ["faults", "faults"],
  ["transactions", "transactions"],
  ["producers", "producers"],
  ["tapeLength", "choices on the tape"],
  ["nonZeroChoices", "non-default choices"],
];

/** Before/after sizes, the reduction, and the minimal story of a shrink. */
export function renderShrink(s: ShrinkSummary, options: { savedTo?: string | null } = {}): string {
  const out: string[] = [];
  const where = s.broker ? ` at ${s.broker}` : "";
  out.push(
    chalk.bold(`  shrunk ${s.kind}${where}`) +
      chalk.dim(
        ` (${s.runs} candidate runs, ${(s.timeMs / 1000).toFixed(1)} s, ${s.stoppedBy === "fixpoint" ? "minimal: no smaller candidate fails" : "budget spent: best so far"})`,
      ),
  );
  out.push(`    ${"".padEnd(22)}${"before".padStart(9)}${"after".padStart(9)}`);
  for (const [key, label] of ROWS)
    out.push(`    ${label.padEnd(22)}${String(s.before[key]).padStart(9)}${String(s.after[key]).padStart(9)}`);
  if (s.reduction) {
    const r = s.reduction;
    out.push(
      `    scenario reduced to ${r.producers[1]} producer${r.producers[1] > 1 ? "s" : ""} x ${r.transactions[1]} transactions, ${r.consumers[1]} consumers${r.singleReplica ? ", one replica per partition" : ""} (found at its seed ${r.seed}), then its tape was shrunk`,
    );
  }
  if (!s.deterministic)
    out.push(
      chalk.red(
        `    the shrunk tape does not replay deterministically:\n      ${s.determinismProblem.join("\n      ")}`,
      ),
    );
  out.push("");
  out.push(chalk.bold("  minimal counterexample"));
  for (const line of s.story) out.push(`    ${line}`);
  if (options.savedTo) out.push(chalk.dim(`\n    saved: ${options.savedTo}   (eosfuzz replay ${options.savedTo})`));
  return out.join("\n");
}

/** The --check-determinism verdict. */
export function renderDeterminism(d: DeterminismReport): string {
  if (d.mismatches.length === 0) return `  determinism: ${d.checked} seeds run twice, identical traces`;
  const lines = [
    chalk.red.bold(`  determinism: ${d.mismatches.length} of ${d.checked} seeds gave a different trace when run again`),
  ];
  for (const m of d.mismatches) for (const l of m.lines) lines.push(`    ${l}`);
  return lines.join("\n");
}
