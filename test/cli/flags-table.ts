import { FLAG_NAMES, RELEASE_NAMES, RELEASES } from "../../src/kafka/release.js";

/** The first lines of the table's header: the row every rewrite looks for. */
const HEADER = "| flag | what it switches |";

function cell(value: unknown): string {
  if (value === true) return "on";
  if (value === false) return "off";
  return String(value);
}

/** Each flag's doc comment in release-flags.ts, on one line (for a flag the table has no row for yet). */
function docComments(releaseSource: string): Map<string, string> {
  const body = releaseSource.slice(
    releaseSource.indexOf("export interface ReleaseFlags"),
    releaseSource.indexOf("export type FlagName"),
  );
  const out = new Map<string, string>();
  for (const m of body.matchAll(/\/\*\*([\s\S]*?)\*\/\s*(\w+):/g)) {
    const text = (m[1] ?? "")
      .split("\n")
      .map((l) => l.trim().replace(/^\*\s?/, ""))
      .join(" ")
      .trim()
      .replaceAll("|", "/");
    out.set(m[2] as string, text);
  }
  return out;
}

/**
 * docs/model/releases.md with its flags table as the model has it: one row per flag in FLAG_NAMES order, one
 * column per release profile; descriptions kept from the existing rows.
 */
export function flagsTable(markdown: string, releaseSource: string): string {
  const lines = markdown.split("\n");
  const start = lines.findIndex((l) => l.startsWith(HEADER));
  if (start < 0) throw new Error("docs/model/releases.md has no flags table");
  let end = start + 2;
  while (end < lines.length && (lines[end] as string).startsWith("|")) end++;
  const described = new Map<string, string>();
  for (const row of lines.slice(start + 2, end)) {
    const cells = row.split(" | ");
    const flag = (cells[0] ?? "").replace(/^\|\s*`?/, "").replace(/`$/, "");
    described.set(flag, cells[1] ?? "");
  }
  const docs = docComments(releaseSource);
  const rows = FLAG_NAMES.map((flag) => {
    const what = described.get(flag) ?? docs.get(flag) ?? "";
    return `| \`${flag}\` | ${what} | ${RELEASE_NAMES.map((r) => cell(RELEASES[r][flag])).join(" | ")} |`;
  });
  const header = `${HEADER} ${RELEASE_NAMES.map((r) => `\`${r}\``).join(" | ")} |`;
  const rule = `|---|---|${RELEASE_NAMES.map(() => "---|").join("")}`;
  lines.splice(start, end - start, header, rule, ...rows);
  return lines.join("\n");
}
