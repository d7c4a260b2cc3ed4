import type { TxnMetadataComparison } from "./txn-metadata-differential.js";
import {
  describeTxnMetadataInit,
  describeTxnMetadataOp,
  type MetadataView,
  type TxnMetadataResult,
} from "./txn-metadata-ops.js";

export function summarizeTxnMetadataResult(r: TxnMetadataResult): string {
  const parts = [r.error];
  if (r.completed !== undefined) parts.push(r.completed ? "completed" : "nothing to complete");
  if (r.transit)
    parts.push(
      `transit ${r.transit.txnState} pid ${r.transit.producerId} epoch ${r.transit.producerEpoch} last ${r.transit.lastProducerEpoch}${r.transit.nextProducerId >= 0 ? ` next ${r.transit.nextProducerId}` : ""}`,
    );
  return parts.join(", ");
}

function metadataLine(m: MetadataView): string {
  return `${m.state}${m.pendingState ? ` (pending ${m.pendingState})` : ""} pid ${m.producerId} epoch ${m.producerEpoch} last ${m.lastProducerEpoch} prev ${m.prevProducerId} next ${m.nextProducerId} [${m.topicPartitions.join(", ")}] TV${m.clientTransactionVersion}`;
}

/** The divergent sequence as a short story: each step's answer, and at the divergent one both sides'. */
export function txnMetadataDivergenceStory(release: string, c: TxnMetadataComparison): string[] {
  const d = c.divergence;
  if (!d) return [];
  const lines = [
    `Kafka ${release}'s TransactionMetadata and the model disagree at step ${d.step + 1} of ${c.ops.length}:`,
    `   0. ${describeTxnMetadataInit(c.init)}`,
  ];
  c.ops.forEach((op, i) => {
    const model = c.model[i] as TxnMetadataResult;
    const kafka = c.kafka[i] as TxnMetadataResult;
    const head = `  ${String(i + 1).padStart(2)}. ${describeTxnMetadataOp(op)}`;
    if (i < d.step) {
      lines.push(`${head}  -> ${summarizeTxnMetadataResult(kafka)}`);
      return;
    }
    if (i > d.step) return;
    lines.push(head);
    lines.push(
      `      Kafka: ${summarizeTxnMetadataResult(kafka)}${kafka.exception ? ` (${kafka.exception}: ${kafka.message})` : ""}`,
    );
    lines.push(`             ${metadataLine(kafka.metadata)}`);
    lines.push(`      model: ${summarizeTxnMetadataResult(model)}${model.message ? ` (${model.message})` : ""}`);
    lines.push(`             ${metadataLine(model.metadata)}`);
    lines.push(
      `      first difference: ${d.difference.path || "(the reply)"}: Kafka ${JSON.stringify(d.difference.kafka)}, model ${JSON.stringify(d.difference.model)}`,
    );
  });
  return lines;
}
