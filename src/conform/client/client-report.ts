import { type ClientAnswer, caseLabel } from "./client-cases.js";
import type { ClientCell, ClientTable } from "./client-table.js";

/** One answer in a few words: class and state, then what else it set ("+bump", "+lookup GROUP", "unsent"). */
export function answerText(a: ClientAnswer): string {
  if (!a.sent) return `unsent (${a.state})`;
  const parts = [a.class, a.state];
  if (a.epochBumpRequired) parts.push("+bump");
  if (a.coordinatorLookup) parts.push(`+lookup ${a.coordinatorLookup}`);
  if (a.requeued && a.class !== "retry") parts.push("+requeued");
  return parts.join(" ");
}

/** Kafka's answer with the exception it keeps, which says why. */
function kafkaText(a: ClientAnswer): string {
  return a.lastError && a.sent ? `${answerText(a)} [${a.lastError}]` : answerText(a);
}

/** The fields of a cell that differ, with the setup fields (before, transactionV2) named so. */
function differenceText(cell: ClientCell): string {
  return cell.differences.map((d) => `${d.path}: Kafka ${String(d.kafka)}, model ${String(d.model)}`).join("; ");
}

/** The whole table of one release, one line per cell: Kafka's answer beside the model's. */
export function clientTableLines(table: ClientTable): string[] {
  const lines = [
    `Kafka ${table.release} against model profile ${table.profile ?? "(none)"}: ${table.cells.length} cells`,
  ];
  for (const cell of table.cells) {
    const mark = cell.model === null ? "?" : cell.differences.length > 0 ? "≠" : "=";
    const model = cell.model ? answerText(cell.model) : "-";
    lines.push(
      `${mark} ${caseLabel(cell.case).padEnd(56)} Kafka ${kafkaText(cell.kafka).padEnd(64)} model ${model}${cell.differences.length > 0 ? `  differ: ${cell.differences.map((d) => d.path).join(", ")}` : ""}`,
    );
  }
  return lines;
}

/**
 * Every difference of the given tables, grouped: the errors of one api that meet the same pair of
 * answers at the same transaction versions and releases make one line, e.g.
 * "EndTxn(ABORT) TRANSACTION_ABORTABLE, TV1 TV2, at 4.1.0 4.1.2: Kafka fatal ...; model failed ...".
 */
export function clientDifferenceLines(tables: readonly ClientTable[]): string[] {
  // (api, both answers, the fields that differ) -> error -> where it holds ("TV1@4.2.1")
  const byAnswers = new Map<string, { api: string; text: string; where: Map<string, Set<string>> }>();
  for (const table of tables) {
    for (const cell of table.cells) {
      if (cell.differences.length === 0 || cell.model === null) continue;
      const text = `Kafka ${kafkaText(cell.kafka)}; model ${answerText(cell.model)} (${differenceText(cell)})`;
      const key = `${cell.case.api}\u0000${text}`;
      let group = byAnswers.get(key);
      if (!group) {
        group = { api: cell.case.api, text, where: new Map() };
        byAnswers.set(key, group);
      }
      let at = group.where.get(cell.case.error);
      if (!at) {
        at = new Set();
        group.where.set(cell.case.error, at);
      }
      at.add(`TV${cell.case.transactionVersion}@${table.release}`);
    }
  }
  const lines: string[] = [];
  for (const group of byAnswers.values()) {
    // Errors that hold at exactly the same places share a line.
    const byPlaces = new Map<string, string[]>();
    for (const [error, at] of group.where) {
      const places = placesText([...at]);
      byPlaces.set(places, [...(byPlaces.get(places) ?? []), error]);
    }
    for (const [places, errors] of byPlaces) lines.push(`${group.api} ${errors.join(" ")}, ${places}: ${group.text}`);
  }
  return lines;
}

/** "TV1 TV2 at 4.2.0 4.2.1" when the places are every pair of those; else each "TV1@4.2.0". */
function placesText(places: string[]): string {
  const tvs = [...new Set(places.map((p) => p.split("@")[0] as string))].sort();
  const releases = [...new Set(places.map((p) => p.split("@")[1] as string))];
  if (tvs.length * releases.length === places.length) return `${tvs.join(" ")} at ${releases.join(" ")}`;
  return places.join(" ");
}
