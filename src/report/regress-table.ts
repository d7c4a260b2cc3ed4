import chalk from "chalk";
import type { RegressResult, RegressRow } from "../fuzz/catalogue/regress.js";

function cell(text: string, width: number): string {
  return text.length <= width ? text.padEnd(width) : `${text.slice(0, width - 3)}...`;
}

function resultCell(r: RegressRow): string {
  const text = r.result.toUpperCase().padEnd(5);
  return r.result === "pass" ? chalk.green(text) : r.result === "fail" ? chalk.red.bold(text) : chalk.red(text);
}

/** The regression table: one row per scenario and per saved seed, then the totals. */
export function renderRegressTable(result: RegressResult): string {
  // Wide enough for a shrunk seed file of the longest built-in scenario name (a truncated name is unusable).
  const nameWidth = Math.min(64, Math.max(8, ...result.rows.map((r) => r.name.length)));
  const expectWidth = Math.min(44, Math.max(11, ...result.rows.map((r) => r.expectation.length)));
  const out: string[] = [];
  out.push(
    chalk.bold(
      `  ${"".padEnd(5)} ${"kind".padEnd(8)} ${"name".padEnd(nameWidth)} ${"expectation".padEnd(expectWidth)} ${"seeds".padStart(5)} ${"time".padStart(7)}  detail`,
    ),
  );
  for (const r of result.rows) {
    const time = `${(r.wallMs / 1000).toFixed(1)}s`;
    out.push(
      `  ${resultCell(r)} ${r.kind.padEnd(8)} ${cell(r.name, nameWidth)} ${cell(r.expectation, expectWidth)} ${String(r.seeds).padStart(5)} ${time.padStart(7)}  ${r.detail}`,
    );
  }
  out.push("");
  const verdict =
    result.failed === 0 && result.errors === 0 ? chalk.green.bold("ALL HOLD") : chalk.red.bold("NOT ALL HOLD");
  const part = result.shard ? ` (shard ${result.shard.index}/${result.shard.count})` : "";
  out.push(
    `  ${verdict}  ${result.passed} passed, ${result.failed} failed${result.errors > 0 ? `, ${result.errors} unreadable` : ""}${part}`,
  );
  return out.join("\n");
}
