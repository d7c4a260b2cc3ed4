import chalk from "chalk";
import type { StepRecord } from "../scenario/script/script-driver.js";

/** A scripted scenario's step log: one line per step with its outcome, mismatches in red. */
export function renderScriptSteps(steps: readonly StepRecord[], totalSteps: number): string {
  const out: string[] = [chalk.bold("  script")];
  for (const s of steps) {
    const mark = s.ok ? chalk.green("ok  ") : chalk.red("FAIL");
    out.push(`  ${mark} ${`t=${s.startMs}ms`.padEnd(10)} ${String(s.index).padStart(3)}. ${s.action}`);
    if (s.note) out.push(chalk.dim(`                       ${s.note}`));
    out.push(`                       -> ${s.outcome}`);
    for (const p of s.problems) out.push(chalk.red(`                       ${p}`));
  }
  if (steps.length < totalSteps)
    out.push(
      chalk.dim(`  (${totalSteps - steps.length} later step${totalSteps - steps.length > 1 ? "s" : ""} not run)`),
    );
  return out.join("\n");
}
