import { Errors } from "../kafka/common/errors.js";
import type { ProduceRefused } from "../kafka/ghost.js";
import { renderSteps, step } from "./client/explain-client.js";
import type { AppendRecord, Truncation } from "./ghost-ledger.js";
import type { Violation } from "./violation.js";

/** What the stuck-sequence check reads from the ledger. */
export interface StuckSequenceHistory {
  /** Data batches written, by transaction attempt. */
  readonly appends: ReadonlyMap<string, readonly AppendRecord[]>;
  /** Every follower truncation, in order (a truncated batch is no longer in that log). */
  readonly truncations: readonly Truncation[];
  readonly begun: ReadonlyMap<string, { producer: string }>;
}

/** Words every stuck-sequence summary has (a generic draw's allowance can leave these out). */
export const STUCK_SEQUENCE_TEXT = "stuck behind a later sequence";

/**
 * Words of a stuck-sequence summary whose later batch the leader took with a verification entry
 * that held no lower sequence: the earlier batch's verification was never there (it went to the
 * partition's leader before a leader change) or had expired. The entry's floor (KAFKA-14920) could
 * not hold it back, and a producer without state there may start at any sequence
 * (ProducerAppendInfo.checkSequence): Kafka's UnifiedLog of every release takes it
 * (test/conform/stuck-sequence-cases.ts). Not so when the entry held the lower sequence and the
 * leader took the later batch all the same (KAFKA-14920's bug).
 */
export const NO_LOWER_VERIFIED_TEXT = "verification held no lower sequence";

/**
 * A batch stuck behind a later sequence (the symptom of KAFKA-14904 / KAFKA-14920): the leader
 * refuses a producer's batch OUT_OF_ORDER_SEQUENCE_NUMBER while its own log already holds a batch
 * of the same transaction attempt, producer id and epoch with a higher sequence. Sequences of an
 * epoch only go up, so the earlier batch can never be written: the producer retries it (it is not
 * next in line after the later one's acknowledgement) until delivery.timeout.ms and must then
 * abort a transaction nobody fenced. A leader must not take a batch ahead of a lower sequence of
 * the same transaction that it has not written. Null when the refusal is not that.
 *
 * Not when the log already holds the refused batch itself (`heldAtOffset`): that is a copy of a
 * written batch the producer state no longer recognises as a duplicate, an earlier copy having
 * been written. Kafka's leader finds a duplicate only among the producer's last 5 batches
 * (ProducerStateEntry.NUM_BATCHES_TO_RETAIN), and only the last one after a restart loads a snapshot
 * (ProducerStateManager.readSnapshot); an older copy (a retry after the restart, a request delayed
 * past 5 later batches) is refused OUT_OF_ORDER_SEQUENCE_NUMBER (test/conform/forgotten-duplicate-cases.ts).
 * Nothing is missing from the log, so nothing is stuck.
 */
export function checkStuckSequence(history: StuckSequenceHistory, e: ProduceRefused): Violation | null {
  if (e.errorCode !== Errors.OUT_OF_ORDER_SEQUENCE_NUMBER || e.ghostTxn === null) return null;
  if (e.heldAtOffset !== undefined) return null;
  const later = (history.appends.get(e.ghostTxn) ?? []).find(
    (a) =>
      a.broker === e.broker &&
      a.partition === e.partition &&
      a.producerId === e.producerId &&
      a.producerEpoch === e.producerEpoch &&
      a.baseSequence > e.baseSequence &&
      !a.nonTransactional &&
      !truncatedSince(history.truncations, a),
  );
  if (!later) return null;
  const producer = history.begun.get(e.ghostTxn)?.producer ?? "the producer";
  const floor = later.verifiedFromSequence;
  const noLowerVerified = floor !== undefined && floor > e.baseSequence;
  const steps = [
    step(
      later.atMs,
      `${e.broker} wrote ${e.ghostTxn}'s batch at sequence ${later.baseSequence} to ${e.partition} (offset ${later.firstOffset}; producerId ${e.producerId}, epoch ${e.producerEpoch})`,
      `the batch at sequence ${e.baseSequence} of the same transaction had not been written there`,
      ...(noLowerVerified
        ? [
            `${e.broker}'s ${NO_LOWER_VERIFIED_TEXT} than ${floor}: the earlier batch's verification was not there (it went to the partition's leader before a leader change, or expired), so the entry's floor could not hold the later batch back, and a producer without state there may start at any sequence`,
          ]
        : []),
    ),
    step(
      e.atMs,
      `${e.broker} refused ${e.ghostTxn}'s batch at sequence ${e.baseSequence} OUT_OF_ORDER_SEQUENCE_NUMBER: ${e.reason}`,
      "sequences of an epoch only go up: the earlier batch can never be written at this partition",
      `${producer} retries it (OUT_OF_ORDER_SEQUENCE_NUMBER is retriable for a batch that is not next in line once the later one is acknowledged) until delivery.timeout.ms, then must abort a transaction nobody fenced`,
      "a leader must not take a producer's batch ahead of a lower sequence of the same transaction it has not written (KIP-890's verification keeps the lowest sequence it saw for this)",
    ),
  ];
  return {
    kind: "fatal-error",
    summary: `${e.ghostTxn}'s batch at sequence ${e.baseSequence} is ${STUCK_SEQUENCE_TEXT} at ${e.partition} on ${e.broker}: sequence ${later.baseSequence} was written first, and every retry is refused OUT_OF_ORDER_SEQUENCE_NUMBER${noLowerVerified ? `; ${e.broker}'s ${NO_LOWER_VERIFIED_TEXT}` : ""}`,
    explanation: renderSteps(steps),
    atMs: e.atMs,
    partition: e.partition,
    broker: e.broker,
    transaction: e.ghostTxn,
  };
}

/** A truncation of that log at or below the batch, after it was written, removed it. */
function truncatedSince(truncations: readonly Truncation[], a: AppendRecord): boolean {
  return truncations.some(
    (t) => t.broker === a.broker && t.partition === a.partition && t.toOffset <= a.firstOffset && t.atMs >= a.atMs,
  );
}
