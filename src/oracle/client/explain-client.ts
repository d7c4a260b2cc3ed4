import type { PartitionKey } from "../../kafka/common/types.js";
import type { MarkerOutcome, TxnDecision } from "../../kafka/ghost.js";
import type { Observation } from "../../kafka/client/read-committed-consumer.js";
import { describePlaces, type RecordPlace } from "./client-view.js";
import { at, pastTense } from "../format.js";
import type { GhostLedger } from "../ghost-ledger.js";
import type { AppendedRecord, TxnFacts } from "./txn-facts.js";

/** Words of the explanation line of a decision a delayed EndTxn made for a later transaction (KAFKA-17754). */
export const DELAYED_END_TXN_TEXT = "a delayed EndTxn of the previous transaction";

export const INDENT = " ".repeat(10);

/** One step of a causal chain: a time, a line, and indented notes that belong to it. */
export interface Step {
  atMs: number;
  text: string;
  notes?: string[];
}

export function step(atMs: number, text: string, ...notes: string[]): Step {
  return { atMs, text, notes };
}

/** Steps oldest first (stable for equal times), each as `t=..ms text` followed by its notes. */
export function renderSteps(steps: readonly Step[]): string[] {
  const sorted = steps.map((s, i) => ({ s, i })).sort((a, b) => a.s.atMs - b.s.atMs || a.i - b.i);
  return sorted.flatMap(({ s }) => [`${at(s.atMs)} ${s.text}`, ...(s.notes ?? []).map((n) => `${INDENT} ${n}`)]);
}

/** "a COMMIT marker" / "an ABORT marker" */
export function article(word: string): string {
  return /^[AEIOU]/.test(word) ? `an ${word}` : `a ${word}`;
}

/**
 * Turns ledger facts into explanation lines for client-visible violations: who wrote the records,
 * which marker made them visible or hid them, and which decision that marker carried out.
 */
/** A batch written without the transactional flag (KAFKA-5364): the leader treats its records as committed. */
const NON_TRANSACTIONAL =
  " without the transactional flag: the producer drained the batch in ABORTABLE_ERROR, where isInTransaction() was false, so the leader appended plain records, readable at once and untouched by the abort marker";

export class ClientExplainer {
  private closingMarkers: Map<PartitionKey, MarkerOutcome[]> | null = null;

  constructor(readonly ledger: GhostLedger) {}

  /** Markers that completed a transaction at each partition, in application order. */
  private markersAt(partition: PartitionKey): MarkerOutcome[] {
    if (!this.closingMarkers) {
      this.closingMarkers = new Map();
      for (const outcomes of this.ledger.markerOutcomes.values()) {
        for (const o of outcomes) {
          if (o.errorCode !== 0 || !o.completed) continue;
          const list = this.closingMarkers.get(o.partition) ?? [];
          list.push(o);
          this.closingMarkers.set(o.partition, list);
        }
      }
      for (const list of this.closingMarkers.values())
        list.sort((a, b) => a.atMs - b.atMs || (a.markerOffset ?? 0) - (b.markerOffset ?? 0));
    }
    return this.closingMarkers.get(partition) ?? [];
  }

  /** The marker of `producerId` whose completed range covers the place (null: still open, or never closed). */
  closingMarker(place: RecordPlace, producerId: number): MarkerOutcome | null {
    return (
      this.markersAt(place.partition).find(
        (o) =>
          o.producerId === producerId &&
          o.completed &&
          o.completed.firstOffset <= place.offset &&
          place.offset <= o.completed.lastOffset,
      ) ?? null
    );
  }

  /** The decision a marker carried out: the latest one for its transaction with its result, made before it landed. */
  decisionBehind(marker: MarkerOutcome): TxnDecision | null {
    const candidates = this.ledger.decisionLog.filter(
      (d) =>
        d.ghostTxn === marker.ghostTxn &&
        d.result === marker.result &&
        d.producerId === marker.producerId &&
        d.atMs <= marker.atMs,
    );
    return candidates[candidates.length - 1] ?? null;
  }

  /** "p0.t3 wrote orders-2 offsets 4..5 on broker-1 (producerId 1000, epoch 3)", one step per partition. */
  writeSteps(f: TxnFacts, only?: (copy: AppendedRecord) => boolean): Step[] {
    const byPartition = new Map<PartitionKey, AppendedRecord[]>();
    for (const copies of f.appended.values()) {
      for (const c of copies) {
        if (only && !only(c)) continue;
        const list = byPartition.get(c.partition) ?? [];
        list.push(c);
        byPartition.set(c.partition, list);
      }
    }
    const steps: Step[] = [];
    for (const [, copies] of byPartition) {
      const first = copies.reduce((a, b) => (b.atMs < a.atMs ? b : a));
      steps.push(
        step(
          first.atMs,
          `${f.ghostTxn} wrote ${describePlaces(copies)} on ${first.broker} (producerId ${first.producerId}, epoch ${first.producerEpoch})${first.nonTransactional ? NON_TRANSACTIONAL : ""}`,
        ),
      );
    }
    return steps;
  }

  /**
   * How a record came to be visible or hidden: the marker that closed its offset and, when that
   * marker carried out a decision another transaction's EndTxn caused, that decision.
   */
  markerSteps(place: RecordPlace, f: TxnFacts): Step[] {
    const owner = f.ghostTxn;
    const copy = [...f.appended.values()]
      .flat()
      .find((c) => c.partition === place.partition && c.offset === place.offset);
    const m = copy ? this.closingMarker(place, copy.producerId) : null;
    if (!m) return [];
    const completed = m.completed as NonNullable<MarkerOutcome["completed"]>;
    const issued =
      m.ghostTxn === owner
        ? `issued for ${owner} itself`
        : `issued for ${m.ghostTxn ?? "(no transaction)"}, not for ${owner}`;
    const steps = [
      step(
        m.atMs,
        `${m.broker} (${m.brokerRelease}) applied ${article(m.result)} marker at ${m.partition} offset ${m.markerOffset} (${issued}; marker #${m.markerId} copy ${m.resend + 1}, WriteTxnMarkers v${m.requestVersion}, ${m.rule} rule), ${pastTense(m.result)} offsets ${completed.firstOffset}..${completed.lastOffset}`,
      ),
    ];
    const d = this.decisionBehind(m);
    if (d && d.requestedFor !== null && d.requestedFor !== d.ghostTxn) {
      steps.push(
        step(
          d.atMs,
          `${d.coordinator} wrote ${d.result === "COMMIT" ? "PrepareCommit" : "PrepareAbort"} for ${d.ghostTxn} (producerId ${d.producerId}, epoch ${d.producerEpoch}, TV${d.transactionVersion}) on an EndTxn sent for ${d.requestedFor}`,
          `${DELAYED_END_TXN_TEXT} reached the coordinator after ${d.ghostTxn} had begun at the same epoch, and ${d.result === "COMMIT" ? "committed" : "aborted"} it (KAFKA-17754)`,
        ),
      );
    }
    return steps;
  }

  /** "c0 polled p0.t3/1 at orders-2 offset 5" */
  static pollStep(consumer: string, o: Observation): Step {
    return step(o.atMs, `${consumer} polled ${o.value} at ${o.partition} offset ${o.offset}`);
  }
}
