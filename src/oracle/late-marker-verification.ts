import { Errors } from "../kafka/common/errors.js";
import { isConsumerOffsetsPartition } from "../kafka/coordinator/group/group-partitioning.js";
import type { MarkerOutcome, ProducerFatal } from "../kafka/ghost.js";

/** Words every summary of this cause has (a generic draw's allowance matches on them). */
export const LATE_MARKER_CLEARED_TEXT = "cleared its verification";

/** What the check reads from the ledger. */
export interface LateMarkerHistory {
  /** Every marker a leader judged, by marker id (insertion order: the order they were judged). */
  readonly markerOutcomes: ReadonlyMap<number, readonly MarkerOutcome[]>;
  readonly begun: ReadonlyMap<string, { atMs: number }>;
}

/**
 * INVALID_TXN_STATE answering a transaction's first write at a partition (a Produce, or a group
 * coordinator's TxnOffsetCommit append) because a late copy of an earlier transaction's marker was
 * written there meanwhile: a marker of the same producer id at an older epoch, appended while no
 * transaction of the producer was open (it closed nothing), after this transaction began.
 *
 * Such a copy passes the leader's epoch check when its epoch equals the stored one (a transaction
 * in between bumped the epoch without writing at this partition): KAFKA-19999 appends it from
 * 4.2.0, the legacy rule (`epoch < current`) before. Writing any transactional batch clears the
 * producer's verification entry unless it is a TV2 marker at the entry's own epoch
 * (UnifiedLog.updateProducers), so the write verified before the copy arrived finds no entry.
 * Kafka's UnifiedLog of every release answers so (test/conform/late-marker-verification-cases.ts).
 * Null when the refusal is not that.
 */
export function lateMarkerClearedVerification(history: LateMarkerHistory, e: ProducerFatal): MarkerOutcome | null {
  if (e.errorCode !== Errors.INVALID_TXN_STATE || (e.api !== "Produce" && e.api !== "TxnOffsetCommit")) return null;
  const began = e.ghostTxn !== null ? history.begun.get(e.ghostTxn) : undefined;
  if (!began) return null;
  let latest: MarkerOutcome | null = null;
  for (const outcomes of history.markerOutcomes.values())
    for (const m of outcomes) {
      const written = m.errorCode === Errors.NONE && m.markerOffset !== null && !m.openTxnBefore;
      const earlier = m.producerId === e.producerId && m.markerEpoch < e.producerEpoch;
      // A TxnOffsetCommit writes at the group's __consumer_offsets partition, a Produce at a data partition.
      const place = isConsumerOffsetsPartition(m.partition) === (e.api === "TxnOffsetCommit");
      if (written && earlier && place && m.atMs >= began.atMs && m.atMs <= e.atMs && (!latest || m.atMs >= latest.atMs))
        latest = m;
    }
  return latest;
}

/** The summary's tail: which copy, where. */
export function lateMarkerSummary(m: MarkerOutcome): string {
  return `a late copy of ${m.ghostTxn ?? "an earlier transaction"}'s marker (epoch ${m.markerEpoch}) written again at ${m.partition} on ${m.broker} ${LATE_MARKER_CLEARED_TEXT}`;
}

/** The explanation's line. */
export function lateMarkerText(m: MarkerOutcome, e: ProducerFatal): string {
  return `${m.broker} wrote a copy of ${m.ghostTxn ?? "an earlier transaction"}'s ${m.result} marker (epoch ${m.markerEpoch}, rule ${m.rule}) at ${m.partition} offset ${m.markerOffset} at t=${m.atMs}ms, after ${e.ghostTxn} began: it closed nothing (no transaction of producerId ${m.producerId} was open there), but writing a transactional batch clears the producer's verification entry unless it is a TV2 marker at the entry's own epoch (UnifiedLog.updateProducers), so the write verified at epoch ${e.producerEpoch} found no entry and was refused INVALID_TXN_STATE`;
}
