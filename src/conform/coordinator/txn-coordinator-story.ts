import type { TxnCoordinatorComparison } from "./txn-coordinator-differential.js";
import { describeTxnCoordinatorOp, type TxnCoordinatorResult } from "./txn-coordinator-ops.js";
import { describeTxnMetadataInit } from "./txn-metadata-ops.js";

export function summarizeTxnCoordinatorResult(r: TxnCoordinatorResult): string {
  const parts = [r.error];
  if (r.producerId !== undefined && r.producerId >= 0) parts.push(`pid ${r.producerId} epoch ${r.producerEpoch}`);
  if (r.errors)
    parts.push(
      Object.entries(r.errors)
        .map(([p, e]) => `${p} ${e}`)
        .join(" "),
    );
  if (r.acknowledged !== undefined) parts.push(`${r.acknowledged} requests acknowledged`);
  if (r.metadata !== undefined)
    parts.push(
      r.metadata === null
        ? "no metadata"
        : `${r.metadata.state}${r.metadata.pendingState ? ` (pending ${r.metadata.pendingState})` : ""} pid ${r.metadata.producerId} epoch ${r.metadata.producerEpoch} last ${r.metadata.lastProducerEpoch} [${r.metadata.topicPartitions.join(", ")}]`,
    );
  for (const m of r.markers)
    parts.push(
      `marker ${m.result} pid ${m.producerId} epoch ${m.producerEpoch} ce ${m.coordinatorEpoch} TV${m.transactionVersion} v${m.requestVersion} [${m.partitions.join(", ")}]`,
    );
  return parts.join(", ");
}

/** The divergent sequence as a short story: each step's answer, and at the divergent one both sides'. */
export function txnCoordinatorDivergenceStory(release: string, c: TxnCoordinatorComparison): string[] {
  const d = c.divergence;
  if (!d) return [];
  const lines = [
    `Kafka ${release}'s TransactionCoordinator and the model disagree at step ${d.step + 1} of ${c.ops.length} (transaction.version ${c.sequence.config.finalizedTransactionVersion}):`,
  ];
  if (c.sequence.initialMetadata) lines.push(`   0. ${describeTxnMetadataInit(c.sequence.initialMetadata)}`);
  c.ops.forEach((op, i) => {
    if (i > d.step) return;
    const model = c.model[i] as TxnCoordinatorResult;
    const kafka = c.kafka[i] as TxnCoordinatorResult;
    const head = `  ${String(i + 1).padStart(2)}. ${describeTxnCoordinatorOp(op)}`;
    if (i < d.step) {
      lines.push(`${head}  -> ${summarizeTxnCoordinatorResult(kafka)}`);
      return;
    }
    lines.push(head);
    lines.push(
      `      Kafka: ${summarizeTxnCoordinatorResult(kafka)}${kafka.exception ? ` (${kafka.exception}: ${kafka.message})` : ""}`,
    );
    lines.push(`      model: ${summarizeTxnCoordinatorResult(model)}${model.message ? ` (${model.message})` : ""}`);
    lines.push(
      `      first difference: ${d.difference.path || "(the reply)"}: Kafka ${JSON.stringify(d.difference.kafka)}, model ${JSON.stringify(d.difference.model)}`,
    );
  });
  return lines;
}
