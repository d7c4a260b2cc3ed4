import { describeRule } from "../kafka/broker/partition-log.js";
import type { LogBatch } from "../kafka/broker/log-batch.js";
import { isConsumerOffsetsPartition } from "../kafka/coordinator/group/group-partitioning.js";
import type { LeaderChangeSeen, MarkerOutcome, MarkerSend, TxnDecision } from "../kafka/ghost.js";
import { RELEASES } from "../kafka/release.js";
import { at, offsetRange, pastTense } from "./format.js";
import type { GhostLedger } from "./ghost-ledger.js";
import type { Violation } from "./violation.js";

function describeSend(s: MarkerSend): string {
  const tv =
    s.version >= 2
      ? `TransactionVersion ${s.transactionVersionField}`
      : "TransactionVersion dropped (v1 has no such field)";
  return `${s.coordinator} (${s.coordinatorRelease}, coordinatorEpoch ${s.coordinatorEpoch}) sent marker #${s.markerId} copy ${s.resend + 1} to ${s.broker} as WriteTxnMarkers v${s.version}, ${tv} [request ${s.correlationId}]`;
}

/** Why this copy existed: a re-send after a timeout/disconnect, a failover re-send, or a network duplicate. */
function originOfCopy(ledger: GhostLedger, e: MarkerOutcome): string {
  const sends = ledger.markerSends.get(e.markerId) ?? [];
  const later = sends.filter((s) => s.resend > e.resend);
  const sameRequestApplied = (ledger.markerOutcomes.get(e.markerId) ?? []).filter(
    (o) => o.correlationId === e.correlationId && o.partition === e.partition,
  );
  if (sameRequestApplied.length > 1 && sameRequestApplied[0] !== e)
    return `a duplicate delivery of request ${e.correlationId} (the network delivered it twice)`;
  if (later.length > 0) {
    const next = later[0] as MarkerSend;
    return `copy ${e.resend + 1} of marker #${e.markerId}, delayed in the network; the coordinator had re-sent it as copy ${next.resend + 1} at t=${next.atMs}ms after request ${e.correlationId} timed out or its connection dropped`;
  }
  return `copy ${e.resend + 1} of marker #${e.markerId} [request ${e.correlationId}]`;
}

function whatKip1228Would(ledger: GhostLedger, e: MarkerOutcome, victimOpen: boolean): string {
  if (e.rule === "strict-tv2")
    return "the strict KIP-1228 rule accepted it: the marker epoch was above the producer epoch";
  const reject = `a KIP-1228 leader on v2 would have rejected this copy with INVALID_PRODUCER_EPOCH (${e.markerEpoch} <= ${e.storedEpochBefore}${victimOpen ? " with a transaction open" : ""})`;
  const tv2Txn = (ledger.decisions.get(e.ghostTxn ?? "") ?? []).some((d) => d.transactionVersion >= 2);
  if (e.rule === "legacy" && e.requestVersion < 2 && tv2Txn) {
    const sender = (ledger.markerSends.get(e.markerId) ?? []).find((s) => s.correlationId === e.correlationId);
    let v1Only = "the request was WriteTxnMarkers v1, so";
    if (RELEASES[e.brokerRelease].maxWriteTxnMarkersVersion < 2)
      v1Only = `${e.broker} runs ${e.brokerRelease}, which takes only WriteTxnMarkers v1, so`;
    else if (sender && RELEASES[sender.coordinatorRelease].maxWriteTxnMarkersVersion < 2)
      v1Only = `the coordinator on ${sender.coordinator} runs ${sender.coordinatorRelease}, which sends only WriteTxnMarkers v1 (${e.broker} on ${e.brokerRelease} would have read v2), so`;
    return `${v1Only} the TransactionVersion never reached it; ${reject}`;
  }
  if (e.rule === "legacy" && e.transactionVersionSeen >= 2 && isConsumerOffsetsPartition(e.partition)) {
    return `the request carried TransactionVersion ${e.transactionVersionSeen}, but ${e.partition} is an offsets partition: KafkaApis hands its marker to the group coordinator (GroupCoordinatorService.completeTransaction), and the log judged it by the legacy rule: the group coordinator's write did not carry the TransactionVersion (markerTransactionVersionReachesLog off) or the broker's strict check is off (docs/model.md, "Markers on __consumer_offsets"); ${reject}`;
  }
  if (e.rule === "legacy" && e.requestVersion >= 2 && e.transactionVersionSeen >= 2) {
    return `the request was v2 with TransactionVersion ${e.transactionVersionSeen}, yet ${e.broker} judged it by the legacy rule (its strict KIP-1228 check is off); ${reject}`;
  }
  if (e.rule === "kafka-19999-equal-epoch")
    return `the KAFKA-19999 tolerance let an equal epoch through although a transaction was open; ${reject}`;
  if (e.rule === "unchecked") return `${e.broker} did not check the producer epoch at all`;
  if (e.rule === "legacy" && e.requestVersion >= 2 && e.transactionVersionSeen < 2) {
    return "the request was v2 but carried TransactionVersion 0 (a TV0/TV1 transaction, or the coordinator did not fill the field), so the legacy rule applied";
  }
  return `${describeRule(e.rule)} cannot tell copies of one marker apart when the epoch does not move between transactions`;
}

/** A marker issued for transaction A completed records of transaction B. */
export function explainStaleMarker(ledger: GhostLedger, e: MarkerOutcome, foreign: LogBatch[]): Violation {
  const issuedFor = e.ghostTxn ?? "(no transaction)";
  const victims = [...new Set(foreign.map((b) => b.ghostTxn ?? "(unknown)"))];
  const victim = victims[0] as string;
  const first = foreign[0] as LogBatch;
  const last = foreign[foreign.length - 1] as LogBatch;
  const lines: string[] = [];
  const decision = ledger.decisions.get(issuedFor)?.[0];
  if (decision) {
    lines.push(
      `${at(decision.atMs)} ${decision.coordinator} wrote ${decision.result === "COMMIT" ? "PrepareCommit" : "PrepareAbort"} for ${issuedFor} (producerId ${decision.producerId}, epoch ${decision.producerEpoch}, coordinatorEpoch ${decision.coordinatorEpoch}, TV${decision.transactionVersion}, ${decision.initiator === "client" ? "EndTxn from the producer" : "coordinator-initiated abort"})`,
    );
  }
  const sends = (ledger.markerSends.get(e.markerId) ?? []).filter((s) => s.atMs <= e.atMs);
  for (const s of sends) lines.push(`${at(s.atMs)} ${describeSend(s)}`);
  const earlier = (ledger.markerOutcomes.get(e.markerId) ?? []).find(
    (o) => o.partition === e.partition && o.errorCode === 0 && o.atMs <= e.atMs && o !== e,
  );
  if (earlier) {
    const closed = earlier.completed
      ? `, closing ${issuedFor}'s ${offsetRange(earlier.completed.firstOffset, earlier.completed.lastOffset)}`
      : "";
    lines.push(
      `${at(earlier.atMs)} ${earlier.broker} applied copy ${earlier.resend + 1} at ${e.partition} (${pastTense(earlier.result)} at offset ${earlier.markerOffset}${closed})`,
    );
  }
  const completion = ledger.completions.get(issuedFor);
  if (completion && completion.atMs <= e.atMs)
    lines.push(
      `${at(completion.atMs)} ${completion.coordinator} wrote ${completion.result === "COMMIT" ? "CompleteCommit" : "CompleteAbort"} for ${issuedFor}`,
    );
  const victimAppends = (ledger.appends.get(victim) ?? []).filter(
    (a) => a.partition === e.partition && a.atMs <= e.atMs,
  );
  if (victimAppends.length > 0) {
    const a = victimAppends[0] as (typeof victimAppends)[number];
    lines.push(
      `${at(a.atMs)} ${victim} wrote ${offsetRange(first.baseOffset, last.lastOffset)} at ${e.partition} (producerId ${a.producerId}, epoch ${a.producerEpoch}); its transaction was open there`,
    );
  }
  lines.push(
    `${at(e.atMs)} ${e.broker} (${e.brokerRelease}) received ${originOfCopy(ledger, e)}: ${describeRule(e.rule)} passed (marker epoch ${e.markerEpoch}, producer epoch ${e.storedEpochBefore}), coordinator epoch ${e.coordinatorEpoch} >= ${e.storedCoordinatorEpochBefore}`,
  );
  const completed = e.completed as NonNullable<MarkerOutcome["completed"]>;
  lines.push(
    `${" ".repeat(10)} -> ${e.result} marker at offset ${e.markerOffset} closed ${offsetRange(completed.firstOffset, completed.lastOffset)}: ${victims.join(", ")}'s records were ${pastTense(e.result)} by ${issuedFor}'s marker`,
  );
  lines.push(`${" ".repeat(10)} why: ${whatKip1228Would(ledger, e, true)}`);
  const carrier = sends.find((s) => s.correlationId === e.correlationId) ?? sends[sends.length - 1];
  lines.push(...leadershipHistory(ledger, e, sends[0]?.atMs ?? e.atMs));
  return {
    kind: "stale-marker",
    summary: `stale ${e.result} marker for ${issuedFor} ${pastTense(e.result)} ${victims.join(", ")}'s records at ${e.partition} ${offsetRange(first.baseOffset, last.lastOffset)} on ${e.broker} (${e.brokerRelease}, WriteTxnMarkers v${e.requestVersion}, ${e.rule} rule)`,
    explanation: lines,
    atMs: e.atMs,
    partition: e.partition,
    broker: e.broker,
    brokerRelease: e.brokerRelease,
    transaction: victim,
    markerIssuedFor: issuedFor,
    ...(carrier ? { coordinatorBroker: carrier.coordinator, coordinatorRelease: carrier.coordinatorRelease } : {}),
    markerVersion: e.requestVersion,
    leaderEpoch: e.leaderEpoch,
  };
}

/**
 * The leadership moves that mattered, between the marker's first send and its arrival: the
 * partition's leader changes (a late copy may meet a new leader) and the moves of the sending
 * coordinator's __transaction_state leadership (a failover re-sends with a new coordinator epoch).
 */
function leadershipHistory(ledger: GhostLedger, e: MarkerOutcome, fromMs: number): string[] {
  const coordinators = new Set((ledger.markerSends.get(e.markerId) ?? []).map((s) => s.coordinator));
  const moves = ledger.leaderChanges.filter(
    (c) =>
      c.atMs >= fromMs &&
      c.atMs <= e.atMs &&
      (c.partition === e.partition ||
        (c.partition.startsWith("__transaction_state-") &&
          ((c.previousLeader !== null && coordinators.has(c.previousLeader)) ||
            (c.leader !== null && coordinators.has(c.leader))))),
  );
  return moves.map(leadershipLine);
}

function leadershipLine(c: LeaderChangeSeen): string {
  return `${" ".repeat(10)} leadership: ${at(c.atMs)} ${c.partition} moved from ${c.previousLeader ?? "no leader"} to ${c.leader ?? "no leader"} (leader epoch ${c.leaderEpoch}, ${c.cause})`;
}

/** A marker for transaction T applied a result the coordinator never decided for T. */
export function explainOutcomeMismatch(ledger: GhostLedger, e: MarkerOutcome, decided: TxnDecision[]): Violation {
  const ghost = e.ghostTxn ?? "(none)";
  const lines = decided.map(
    (d) =>
      `${at(d.atMs)} ${d.coordinator} decided ${d.result} for ${ghost} (epoch ${d.producerEpoch}, coordinatorEpoch ${d.coordinatorEpoch})`,
  );
  for (const s of (ledger.markerSends.get(e.markerId) ?? []).filter((x) => x.atMs <= e.atMs))
    lines.push(`${at(s.atMs)} ${describeSend(s)} with result ${s.result}`);
  const completed = e.completed as NonNullable<MarkerOutcome["completed"]>;
  lines.push(
    `${at(e.atMs)} ${e.broker} (${e.brokerRelease}) applied ${e.result} to ${ghost}'s ${offsetRange(completed.firstOffset, completed.lastOffset)} at ${e.partition}`,
  );
  return {
    kind: "outcome-mismatch",
    summary: `${e.partition} on ${e.broker} ${pastTense(e.result)} ${ghost}, but the coordinator decided ${decided.map((d) => d.result).join("/")}`,
    explanation: lines,
    atMs: e.atMs,
    partition: e.partition,
    broker: e.broker,
    brokerRelease: e.brokerRelease,
    transaction: ghost,
    markerIssuedFor: ghost,
  };
}
