import chalk from "chalk";
import type { DeterminismReport } from "../fuzz/run/determinism-check.js";
import { DEFAULT_SHRINK_BUDGET_MS, type ShrinkSummary } from "../fuzz/shrink/shrink-seed.js";
import type { RunSize } from "../fuzz/shrink/shrink.js";
import { shellWord } from "../fuzz/search/replay-commands.js";

const ROWS: [keyof RunSize, string][] = [
  ["events", "simulation events"],
  ["messages", "messages"],
  ["faults", "faults"],
  ["transactions", "transactions"],
  ["producers", "producers"],
  ["tapeLength", "choices on the tape"],
  ["nonZeroChoices", "non-default choices"],
];

export interface ShrinkRenderOptions {
  /** Where the shrunk tape was saved (its replay command follows the story). */
  savedTo?: string | null;
  /** The command that shrinks on from where a shrink that spent its budget stopped. */
  shrinkFurther?: string | null;
}

const n = (x: number) => x.toLocaleString("en-US");

/**
 * The story's heading: "minimal" only when the shrink reached a fixpoint (no smaller candidate
 * fails); a shrink that spent its budget says what is left, so a reader knows how much of the story
 * may still be noise.
 */
export function storyHeading(s: Pick<ShrinkSummary, "stoppedBy" | "after">): string {
  if (s.stoppedBy === "fixpoint") return "minimal counterexample";
  const faults = `${n(s.after.faults)} fault${s.after.faults === 1 ? "" : "s"}`;
  return `shrunk, budget spent: ${faults} and ${n(s.after.events)} events left (not minimal)`;
}

/** The command that continues a shrink from its saved tape with twice the budget it had (at least the default). */
export function shrinkFurtherCommand(tapeFile: string, budgetMs: number): string {
  const budget = Math.min(86_400_000, Math.max(DEFAULT_SHRINK_BUDGET_MS, 2 * budgetMs));
  return `eosfuzz shrink ${shellWord(tapeFile)} --budget-ms ${budget}`;
}

/** Before/after sizes, the reduction, and the story of a shrink. */
export function renderShrink(s: ShrinkSummary, options: ShrinkRenderOptions = {}): string {
  const out: string[] = [];
  const where = s.broker ? ` at ${s.broker}` : "";
  out.push(
    chalk.bold(`  shrunk ${s.kind}${where}`) +
      chalk.dim(
        ` (${s.runs} candidate runs, ${(s.timeMs / 1000).toFixed(1)} s, ${s.stoppedBy === "fixpoint" ? "minimal: no smaller candidate fails" : "budget spent: the best so far, not minimal"})`,
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
  out.push(chalk.bold(`  ${storyHeading(s)}`));
  for (const line of s.story) out.push(`    ${line}`);
  if (s.stoppedBy === "budget" && options.shrinkFurther)
    out.push(chalk.dim(`\n    shrink further: ${options.shrinkFurther}`));
  if (options.savedTo) out.push(chalk.dim(`\n    saved: ${options.savedTo}`));
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
