import { describeLeaderOp, type LeaderResult } from "./leader-ops.js";
import type { LeaderComparison } from "./leader-differential.js";

/** A result in a few words: its error and what it appended or decided. */
export function summarizeLeaderResult(r: LeaderResult): string {
  const parts = [r.error];
  if (r.guard !== undefined) parts.push(`guard ${r.guard}`);
  if (r.firstOffset !== undefined)
    parts.push(`offsets ${r.firstOffset}..${r.lastOffset}${r.duplicate ? " (duplicate)" : ""}`);
  if (r.offset !== undefined) parts.push(r.offset === null ? "nothing appended" : `appended at ${r.offset}`);
  return parts.join(", ");
}

function stateLine(r: LeaderResult): string {
  const s = r.state;
  const producers = s.producers
    .map(
      (p) =>
        `pid ${p.producerId} epoch ${p.producerEpoch} ce ${p.coordinatorEpoch}${p.currentTxnFirstOffset === null ? "" : ` open@${p.currentTxnFirstOffset}`}`,
    )
    .join("; ");
  return `LEO ${s.logEndOffset} HW ${s.highWatermark} LSO ${s.lastStableOffset}${producers ? ` | ${producers}` : ""}`;
}

/**
 * The divergent sequence as a short story: every step with the answer both sides gave, and at the
 * divergent step both answers, both states and the first field that differs.
 */
export function leaderDivergenceStory(release: string, c: LeaderComparison): string[] {
  const d = c.divergence;
  if (!d) return [];
  const lines = [`Kafka ${release}'s UnifiedLog and the model disagree at step ${d.step + 1} of ${c.ops.length}:`];
  c.ops.forEach((op, i) => {
    const model = c.model[i] as LeaderResult;
    const kafka = c.kafka[i] as LeaderResult;
    const head = `  ${String(i + 1).padStart(2)}. ${describeLeaderOp(op)}`;
    if (i !== d.step) {
      lines.push(`${head}  -> ${summarizeLeaderResult(kafka)}`);
      return;
    }
    lines.push(head);
    lines.push(
      `      Kafka: ${summarizeLeaderResult(kafka)}${kafka.exception ? ` (${kafka.exception}: ${kafka.message})` : ""}`,
    );
    lines.push(`             ${stateLine(kafka)}`);
    lines.push(`      model: ${summarizeLeaderResult(model)}${model.message ? ` (${model.message})` : ""}`);
    lines.push(`             ${stateLine(model)}`);
    lines.push(
      `      first difference: ${d.difference.path || "(the reply)"}: Kafka ${JSON.stringify(d.difference.kafka)}, model ${JSON.stringify(d.difference.model)}`,
    );
  });
  return lines;
}
