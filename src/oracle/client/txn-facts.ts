import type { PartitionKey, TransactionResult } from "../../kafka/common/types.js";
import type { TxnDecision } from "../../kafka/ghost.js";
import { type ClientView, identifyRecord, type RecordPlace } from "./client-view.js";
import type { GhostLedger, ProducerOutcome } from "../ghost-ledger.js";

/** One appended copy of a record: where, when, and the batch's producer identity. */
export interface AppendedRecord extends RecordPlace {
  broker: string;
  producerId: number;
  producerEpoch: number;
  sequence: number;
  /** The batch carried no transactional flag (KAFKA-5364's bug switch). */
  nonTransactional?: true;
  atMs: number;
}

/** What the records of a transaction must look like to consumers, and the evidence for it. */
export interface ExpectedOutcome {
  result: TransactionResult;
  /** Kafka terms, no time: who decided or acknowledged what (the time is atMs). */
  why: string;
  atMs: number;
}

/** Everything the client-visible checks need to know about one transaction attempt. */
export interface TxnFacts {
  ghostTxn: string;
  /** The producer instance that ran it (`p0`, or `p0#2` after a restart). */
  instance: string;
  outcome: ProducerOutcome | null;
  /** Null when either outcome is allowed (the producer does not know, and the coordinator decided nothing or both). */
  expected: ExpectedOutcome | null;
  /** The PrepareCommit/PrepareAbort decisions made for this transaction on its own behalf. */
  ownDecisions: TxnDecision[];
  /** When this transaction's own commit became durable (null: never). Visibility before it is premature. */
  ownCommitAtMs: number | null;
  /** Record value -> every appended copy, in append order. */
  appended: Map<string, AppendedRecord[]>;
  /** Record value -> every place the final read returned it. */
  visible: Map<string, RecordPlace[]>;
  /** Appended records at or beyond their partition's read bound at the end: behind a stuck LSO (liveness). */
  unreadable: Set<string>;
}

function factsFor(all: Map<string, TxnFacts>, ghostTxn: string): TxnFacts {
  let f = all.get(ghostTxn);
  if (!f) {
    const identity = identifyRecord(`${ghostTxn}/0`);
    f = {
      ghostTxn,
      instance: identity ? identity.instance : ghostTxn,
      outcome: null,
      expected: null,
      ownDecisions: [],
      ownCommitAtMs: null,
      appended: new Map(),
      visible: new Map(),
      unreadable: new Set(),
    };
    all.set(ghostTxn, f);
  }
  return f;
}

/**
 * A decision is a transaction's own when it was made for it (its ghost) on its own EndTxn, or by the
 * coordinator (timeout, fencing). A delayed EndTxn of an earlier transaction that ends this one
 * (KAFKA-17754) is not: the transaction never asked for it.
 */
export function isOwnDecision(d: TxnDecision, ghostTxn: string): boolean {
  return (
    d.ghostTxn === ghostTxn &&
    (d.requestedFor === ghostTxn || (d.initiator === "coordinator" && d.requestedFor === null))
  );
}

export function describeDecision(d: TxnDecision): string {
  const state = d.result === "COMMIT" ? "PrepareCommit" : "PrepareAbort";
  const by =
    d.initiator === "coordinator"
      ? "a coordinator-initiated abort (transaction timeout, or a new producer instance fencing it)"
      : `the EndTxn of ${d.requestedFor ?? "?"}`;
  return `${d.coordinator} wrote ${state} for ${d.ghostTxn} (producerId ${d.producerId}, epoch ${d.producerEpoch}) on ${by}`;
}

/**
 * The producer's own view decides when it has one (committed/aborted acknowledged). When it does
 * not know (fenced, gave up, closed), the coordinator's own decisions for it decide if they agree;
 * otherwise either outcome is allowed and only atomicity is checked.
 */
export function expectedOutcome(
  instance: string,
  outcome: ProducerOutcome | null,
  own: readonly TxnDecision[],
): ExpectedOutcome | null {
  if (outcome?.outcome === "committed")
    return { result: "COMMIT", why: `${instance} saw ${outcome.detail}`, atMs: outcome.atMs };
  if (outcome?.outcome === "aborted")
    return { result: "ABORT", why: `${instance} aborted it (${outcome.detail})`, atMs: outcome.atMs };
  const commits = own.filter((d) => d.result === "COMMIT");
  const aborts = own.filter((d) => d.result === "ABORT");
  const unknown = outcome ? `; ${instance} never learnt the outcome (${outcome.detail})` : "";
  const first = commits[0] ?? aborts[0];
  if (!first || (commits.length > 0 && aborts.length > 0)) return null;
  return { result: first.result, why: `${describeDecision(first)}${unknown}`, atMs: first.atMs };
}

/** Join the ledger (who wrote what, who decided what) with what the clients saw. */
export function collectTxnFacts(ledger: GhostLedger, view: ClientView): Map<string, TxnFacts> {
  const all = new Map<string, TxnFacts>();
  const readBound = new Map<PartitionKey, number>(view.finalReads.map((r) => [r.partition, r.readBound]));
  for (const appends of ledger.appends.values()) {
    for (const a of appends) {
      a.values.forEach((value, i) => {
        const ghost = identifyRecord(value)?.ghostTxn;
        if (!ghost) return;
        const f = factsFor(all, ghost);
        const copies = f.appended.get(value) ?? [];
        const offset = a.firstOffset + i;
        copies.push({
          partition: a.partition,
          offset,
          broker: a.broker,
          producerId: a.producerId,
          producerEpoch: a.producerEpoch,
          sequence: a.baseSequence + i,
          ...(a.nonTransactional ? { nonTransactional: true as const } : {}),
          atMs: a.atMs,
        });
        f.appended.set(value, copies);
        if (offset >= (readBound.get(a.partition) ?? Number.POSITIVE_INFINITY)) f.unreadable.add(value);
      });
    }
  }
  for (const read of view.finalReads) {
    for (const r of read.records) {
      const ghost = identifyRecord(r.value)?.ghostTxn;
      if (!ghost) continue;
      const f = factsFor(all, ghost);
      const places = f.visible.get(r.value) ?? [];
      places.push({ partition: r.partition, offset: r.offset });
      f.visible.set(r.value, places);
    }
  }
  for (const d of ledger.decisionLog) {
    if (d.ghostTxn !== null && all.has(d.ghostTxn) && isOwnDecision(d, d.ghostTxn))
      (all.get(d.ghostTxn) as TxnFacts).ownDecisions.push(d);
  }
  for (const f of all.values()) {
    f.outcome = ledger.producerOutcomes.get(f.ghostTxn) ?? null;
    f.expected = expectedOutcome(f.instance, f.outcome, f.ownDecisions);
    const commit = f.ownDecisions.find((d) => d.result === "COMMIT");
    f.ownCommitAtMs = commit ? commit.atMs : null;
  }
  return all;
}

/** Appended records of a transaction that a consumer could read (below the read bound) but did not get. */
export function missingRecords(f: TxnFacts): { value: string; copies: AppendedRecord[] }[] {
  const out: { value: string; copies: AppendedRecord[] }[] = [];
  for (const [value, copies] of f.appended)
    if (!f.visible.has(value) && !f.unreadable.has(value)) out.push({ value, copies });
  return out;
}
