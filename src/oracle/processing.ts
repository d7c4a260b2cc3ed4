import { inputOf, type ProcessedTxn } from "../kafka/client/processor.js";
import type { FinalPartitionRead, ProcessingView } from "../kafka/cluster-final-state.js";
import type { PartitionKey } from "../kafka/common/types.js";
import type { AcceptedTxnOffsets } from "../kafka/coordinator/group/group-coordinator-shard.js";
import type { Violation } from "./violation.js";

/** At most this many findings of one kind per run: the first explain the rest. */
const MAX_PER_KIND = 5;

/** An output record visible in the final read, with the input record its value names. */
interface VisibleOutput {
  partition: PartitionKey;
  offset: number;
  ghostTxn: string;
  input: { partition: PartitionKey; offset: number };
}

/**
 * The exactly-once processing checks (issue 17), on what a user of the application could see:
 * the committed output records (each names its input record), the group's committed offsets, and
 * the transactions the processors ran (for the explanations).
 * - duplicate-processing: one input record's output is visible twice among committed outputs;
 * - lost-processing: an input record below the committed offset has no visible output;
 * - zombie-commit: a TxnOffsetCommit of a generation the group had left behind was written and its
 *   transaction committed, so a fenced member's offsets took effect.
 */
export function checkProcessing(
  view: ProcessingView,
  reads: readonly FinalPartitionRead[],
  endMs: number,
): Violation[] {
  const outputs = visibleOutputs(view, reads);
  const txns = new Map(view.journal.map((t) => [t.ghostTxn, t]));
  return [
    ...checkDuplicateProcessing(outputs, txns, endMs),
    ...checkLostProcessing(view, reads, outputs, txns, endMs),
    ...checkZombieCommits(view, outputs, txns, endMs),
  ];
}

function visibleOutputs(view: ProcessingView, reads: readonly FinalPartitionRead[]): VisibleOutput[] {
  const out: VisibleOutput[] = [];
  for (const read of reads) {
    if (!read.partition.startsWith(`${view.outputTopic}-`)) continue;
    for (const r of read.records) {
      const input = inputOf(r.value);
      if (input && r.ghostTxn) out.push({ partition: r.partition, offset: r.offset, ghostTxn: r.ghostTxn, input });
    }
  }
  return out;
}

function describeTxn(ghostTxn: string | null, txns: ReadonlyMap<string, ProcessedTxn>): string {
  const t = ghostTxn === null ? undefined : txns.get(ghostTxn);
  if (!t) return `transaction ${ghostTxn ?? "?"}`;
  const g = t.group;
  return `transaction ${t.ghostTxn} of processor ${t.processor} (${t.transactionalId}), member ${g.memberId || "?"} of generation ${g.generationId}, at ${t.atMs} ms`;
}

function checkDuplicateProcessing(
  outputs: readonly VisibleOutput[],
  txns: ReadonlyMap<string, ProcessedTxn>,
  endMs: number,
): Violation[] {
  const byInput = new Map<string, VisibleOutput[]>();
  for (const o of outputs) {
    const key = `${o.input.partition}@${o.input.offset}`;
    const list = byInput.get(key) ?? [];
    list.push(o);
    byInput.set(key, list);
  }
  const found: Violation[] = [];
  for (const [key, list] of byInput) {
    if (list.length < 2 || found.length >= MAX_PER_KIND) continue;
    const [first, second] = list as [VisibleOutput, VisibleOutput];
    found.push({
      kind: "duplicate-processing",
      summary: `input record ${key} was processed twice: its output is committed at ${first.partition}@${first.offset} and ${second.partition}@${second.offset}`,
      explanation: [
        ...list.map(
          (o) => `output ${o.partition}@${o.offset} was written by ${describeTxn(o.ghostTxn, txns)}, which committed`,
        ),
        "each committed its own input offsets: exactly-once processing lets only one of them commit output for this input record",
      ],
      atMs: endMs,
      partition: second.partition,
      transaction: second.ghostTxn,
    });
  }
  return found;
}

function checkLostProcessing(
  view: ProcessingView,
  reads: readonly FinalPartitionRead[],
  outputs: readonly VisibleOutput[],
  txns: ReadonlyMap<string, ProcessedTxn>,
  endMs: number,
): Violation[] {
  const processed = new Set(outputs.map((o) => `${o.input.partition}@${o.input.offset}`));
  const found: Violation[] = [];
  for (const { partition, offset: committed } of view.committed) {
    if (committed === null) continue;
    const read = reads.find((r) => r.partition === partition);
    for (const r of read?.records ?? []) {
      if (r.offset >= committed.offset || found.length >= MAX_PER_KIND) break;
      if (processed.has(`${partition}@${r.offset}`)) continue;
      const attempts = view.journal.filter((t) =>
        t.inputs.some((i) => i.partition === partition && i.offset === r.offset),
      );
      found.push({
        kind: "lost-processing",
        summary: `input record ${partition}@${r.offset} is below the group's committed offset ${committed.offset} but no output of it is visible`,
        explanation: [
          `the group ${view.groupId} committed offset ${committed.offset} of ${partition} (${view.offsetsPartition}) in ${describeTxn(committed.ghostTxn, txns)}; the committing member was ${committed.memberId || "?"} of generation ${committed.generationId}`,
          ...(attempts.length === 0
            ? ["no processor transaction read this input record: the committed offset skipped it"]
            : attempts.map(
                (t) => `${describeTxn(t.ghostTxn, txns)} read it; its output is not among the committed records`,
              )),
          "a consumer of the group restarting from the committed offset never processes it again: the record is lost to the output",
        ],
        atMs: endMs,
        partition,
        transaction: committed.ghostTxn ?? "?",
      });
    }
  }
  return found;
}

function checkZombieCommits(
  view: ProcessingView,
  outputs: readonly VisibleOutput[],
  txns: ReadonlyMap<string, ProcessedTxn>,
  endMs: number,
): Violation[] {
  const committedTxns = new Set(outputs.map((o) => o.ghostTxn));
  const found: Violation[] = [];
  for (const a of view.accepted) {
    if (found.length >= MAX_PER_KIND) break;
    if (a.groupId !== view.groupId || a.ghostTxn === null || !committedTxns.has(a.ghostTxn)) continue;
    if (!isFencedCommit(a)) continue;
    found.push({
      kind: "zombie-commit",
      summary: `offsets committed by ${a.ghostTxn} of a fenced member took effect: ${fencedBy(a)}`,
      explanation: [
        `${describeTxn(a.ghostTxn, txns)} sent TxnOffsetCommit for ${a.offsets.map((o) => `${o.partition}@${o.offset}`).join(", ")}`,
        `the group coordinator of ${view.offsetsPartition} wrote it at offset ${a.atOffset} although the group ${a.groupId} was at generation ${a.groupGenerationId}${a.memberKnown ? "" : ` and member ${a.memberId || "?"} was no longer in it`}`,
        `the transaction committed, so a fenced member's offsets took effect: KIP-447 answers ILLEGAL_GENERATION (or UNKNOWN_MEMBER_ID) to such a commit`,
      ],
      atMs: endMs,
      partition: view.offsetsPartition,
      transaction: a.ghostTxn,
    });
  }
  return found;
}

function fencedBy(a: AcceptedTxnOffsets): string {
  if (a.generationId !== a.groupGenerationId)
    return `generation ${a.generationId}, while the group was at generation ${a.groupGenerationId}`;
  return `member ${a.memberId || "?"} of generation ${a.generationId} was no longer in the group`;
}

/** A commit the group's generation had left behind, or from a member no longer in the group. */
function isFencedCommit(a: AcceptedTxnOffsets): boolean {
  if (a.generationId < 0) return false;
  return a.generationId !== a.groupGenerationId || !a.memberKnown;
}
