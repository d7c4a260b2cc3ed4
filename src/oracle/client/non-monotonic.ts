import type { ConsumedRecord } from "../../kafka/client/read-committed-consumer.js";
import type { FinalPartitionRead } from "../../kafka/cluster-final-state.js";
import type { Violation } from "../violation.js";
import { type ClientCheckContext, clientViolation } from "./check-context.js";
import { identifyRecord, type RecordIdentity } from "./client-view.js";
import { renderSteps, type Step, step } from "./explain-client.js";

function before(a: RecordIdentity, b: RecordIdentity): boolean {
  return a.txnNumber < b.txnNumber || (a.txnNumber === b.txnNumber && a.index < b.index);
}

function appendStep(ctx: ClientCheckContext, r: ConsumedRecord): Step {
  const a = ctx.facts
    .get(identifyRecord(r.value)?.ghostTxn ?? "")
    ?.appended.get(r.value)
    ?.find((c) => c.partition === r.partition && c.offset === r.offset);
  if (!a) return step(ctx.endMs, `${r.value} is at ${r.partition} offset ${r.offset}`);
  return step(
    a.atMs,
    `${a.broker} appended ${r.value} at ${r.partition} offset ${r.offset} (producerId ${a.producerId}, epoch ${a.producerEpoch}, sequence ${a.sequence})`,
  );
}

/**
 * non-monotonic: within one partition, a producer instance's visible records must appear in the
 * order it sent them (transaction number, then record index). A later offset holding an earlier
 * record is reported once per partition and producer instance.
 */
export function checkNonMonotonic(ctx: ClientCheckContext, finalReads: readonly FinalPartitionRead[]): Violation[] {
  const out: Violation[] = [];
  for (const read of finalReads) {
    const latest = new Map<string, { id: RecordIdentity; record: ConsumedRecord }>();
    const reported = new Set<string>();
    for (const record of read.records) {
      const id = identifyRecord(record.value);
      if (!id) continue;
      const prev = latest.get(id.instance);
      if (!prev || before(prev.id, id)) {
        latest.set(id.instance, { id, record });
        continue;
      }
      if (!before(id, prev.id) || reported.has(id.instance)) continue;
      reported.add(id.instance);
      const steps = [
        appendStep(ctx, prev.record),
        appendStep(ctx, record),
        step(
          ctx.endMs,
          `final read of ${read.partition}: ${prev.record.value} at offset ${prev.record.offset} comes before ${record.value} at offset ${record.offset}, though ${id.instance} sent ${record.value} first`,
        ),
      ];
      out.push(
        clientViolation(ctx, "non-monotonic", {
          summary: `${id.instance}'s records out of order at ${read.partition}: ${record.value} at offset ${record.offset} after ${prev.record.value} at offset ${prev.record.offset}`,
          explanation: renderSteps(steps),
          atMs: ctx.endMs,
          place: { partition: read.partition, offset: record.offset },
          transaction: id.ghostTxn,
        }),
      );
    }
  }
  return out;
}
