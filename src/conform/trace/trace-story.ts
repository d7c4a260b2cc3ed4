import { describeLeaderOp } from "../leader/leader-ops.js";
import { summarizeLeaderResult } from "../leader/leader-story.js";
import type { TraceDivergence } from "./trace-validation.js";

/** Steps of the replica's trace shown before the divergent one. */
const CONTEXT = 6;

/**
 * A trace divergence as a short story: which replica, seed and release, the last steps before the
 * divergent one with Kafka's answers (the model agreed there), then both answers and the field where
 * they part.
 */
export function traceDivergenceStory(d: TraceDivergence): string[] {
  const lines = [
    `seed ${d.seed}: ${d.broker}'s replica of ${d.partition} (model ${d.profile}) and Kafka ${d.release}'s UnifiedLog part at step ${d.step + 1} of its trace:`,
  ];
  const from = Math.max(0, d.step - CONTEXT);
  if (from > 0) lines.push(`   ... ${from} steps that agree`);
  for (let i = from; i <= d.step; i++) {
    const op = d.ops[i];
    const kafka = d.kafka[i];
    const model = d.model[i];
    if (!op || !kafka || !model) continue;
    const at = op.atMs === undefined ? "" : `t=${op.atMs}ms `;
    if (i < d.step) {
      lines.push(`  ${String(i + 1).padStart(4)}. ${at}${describeLeaderOp(op)}  -> ${summarizeLeaderResult(kafka)}`);
      continue;
    }
    lines.push(`  ${String(i + 1).padStart(4)}. ${at}${describeLeaderOp(op)}`);
    lines.push(
      `        Kafka: ${summarizeLeaderResult(kafka)}${kafka.exception ? ` (${kafka.exception}: ${kafka.message})` : ""}`,
    );
    lines.push(`        model: ${summarizeLeaderResult(model)}${model.message ? ` (${model.message})` : ""}`);
    lines.push(
      `        first difference: ${d.difference.path || "(the reply)"}: Kafka ${JSON.stringify(d.difference.kafka)}, model ${JSON.stringify(d.difference.model)}`,
    );
  }
  return lines;
}
