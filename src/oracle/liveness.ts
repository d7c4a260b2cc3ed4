import type { ClusterSnapshot } from "../kafka/cluster-final-state.js";
import { Errors, errorName } from "../kafka/common/errors.js";
import { isPrepare } from "../kafka/coordinator/transaction-state.js";
import type { CompletionWakeupLost, MarkerOutcome, MarkerSend } from "../kafka/ghost.js";
import { at } from "./format.js";
import { LOST_TXN_LOG_RECORD_TEXT, lostOngoingRecord, lostRecordText } from "./lost-txn-log-record.js";
import type { AbandonedSending, GhostLedger, RefusedRequest } from "./ghost-ledger.js";
import { unstableOffsetsHang } from "./unstable-offsets.js";
import type { Violation } from "./violation.js";

type SnapshotTxn = ClusterSnapshot["transactions"][number];
type SnapshotPartition = ClusterSnapshot["partitions"][number];

const INDENT = " ".repeat(10);

/** What a hang's summary says when the log holds the marker that closed the transaction the producer state holds open. */
export const CLOSED_IN_LOG_TEXT = "though a marker closed it at offset";

/**
 * After faults stop and a quiet period: no transaction may stay in PrepareCommit/PrepareAbort and
 * no partition's last stable offset may stay below its high watermark. Each finding names its
 * cause, and tells apart the two ways KIP-1228 rollouts hang: a broker that never understood the
 * WriteTxnMarkers version it was sent (no ApiVersions discovery, KAFKA-20322) and a marker the
 * leader rejected, after which the coordinator gave up on the transaction (KAFKA-19999).
 */
export function checkLiveness(ledger: GhostLedger, snapshot: ClusterSnapshot, endMs: number): Violation[] {
  const out: Violation[] = [];
  const explainedGhosts = new Set<string>();
  for (const txn of snapshot.transactions) {
    const stuck = isPrepare(txn.state) || (txn.pendingState !== null && txn.pendingState !== "Ongoing");
    if (!stuck) continue;
    if (txn.ghostTxn) explainedGhosts.add(txn.ghostTxn);
    out.push(stuckAtCoordinator(ledger, txn, endMs));
  }
  for (const u of snapshot.unservedTransactionalIds) {
    out.push({
      kind: "hanging-transaction",
      summary: `no coordinator serves ${u.transactionalId} after the quiet period: ${u.partition} ${u.leader === null ? "has no leader" : `is led by ${u.leader}, which does not serve it`}`,
      explanation: [
        `${at(endMs)} ${u.transactionalId} maps to ${u.partition}; ${u.leader === null ? "no in-sync replica of it is alive, so no broker is its coordinator" : `${u.leader} leads it but has not loaded it`}: every request for ${u.transactionalId} gets NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE`,
      ],
      atMs: endMs,
      partition: u.partition,
      ...(u.leader ? { broker: u.leader } : {}),
    });
  }
  for (const p of snapshot.partitions) {
    for (const open of p.openTransactions) {
      if (open.ghostTxns.every((g) => explainedGhosts.has(g))) continue;
      out.push(stuckAtPartition(ledger, snapshot, p, open, endMs));
    }
    if (p.openTransactions.length === 0 && p.lastStableOffset < p.highWatermark)
      out.push(lsoStuckWithoutOpenTxn(p, endMs));
  }
  for (const u of snapshot.unstableOffsets ?? []) out.push(unstableOffsetsHang(u, endMs));
  return out;
}

/** Why a transaction is stuck in PrepareX, with the violation's place. */
interface HangCause {
  summary: string;
  lines: string[];
  place: { broker: string; brokerRelease: string; partition: string } | null;
}

/** Every marker was acknowledged, but the wake-up that writes CompleteX was lost (a purgatory's failed tryLock). */
function completionWakeupLost(txn: SnapshotTxn, w: CompletionWakeupLost): HangCause {
  const complete = txn.state === "PrepareCommit" ? "CompleteCommit" : "CompleteAbort";
  return {
    summary: `every marker was acknowledged, but the completion wake-up was lost, so ${w.coordinator} never wrote ${complete}`,
    lines: [
      `${at(w.requestAtMs)} a request for ${w.transactionalId} reached ${w.coordinator}, which holds the transaction's lock while it handles it`,
      `${at(w.atMs)} the last marker acknowledgement woke the transaction's completion (a DelayedTxnMarker in the purgatory), whose tryLock failed on the lock held at that moment: the wake-up was skipped and nothing retries it, so ${complete} was never written`,
    ],
    place: null,
  };
}

/**
 * A transactional.id left pending Dead: its expiration's tombstone write failed and nothing cleared
 * the pending state (KAFKA-7519), so the coordinator answers CONCURRENT_TRANSACTIONS to every
 * request for it until it moves; its producer cannot initialise.
 */
function wedgedPendingDead(txn: SnapshotTxn, endMs: number): Violation {
  return {
    kind: "hanging-transaction",
    summary: `${txn.transactionalId} is wedged at ${txn.coordinator}: it stayed pending Dead after its expiration, so every request for it gets CONCURRENT_TRANSACTIONS`,
    explanation: [
      `${txn.transactionalId} expired (transactional.id.expiration.ms) in ${txn.state} and moved to pending Dead while its tombstone was written to __transaction_state`,
      `the tombstone was not written, and the pending state was not cleared (KAFKA-7519: TransactionStateManager must clear it when the tombstone's write fails)`,
      `${at(endMs)} after the quiet period ${txn.transactionalId} is still ${txn.state} (pending Dead) at coordinator ${txn.coordinator} (coordinator epoch ${txn.coordinatorEpoch}): InitProducerId, AddPartitionsToTxn and EndTxn for it get CONCURRENT_TRANSACTIONS until the coordinator moves`,
    ],
    atMs: endMs,
  };
}

function stuckAtCoordinator(ledger: GhostLedger, txn: SnapshotTxn, endMs: number): Violation {
  const ghost = txn.ghostTxn ?? "(unknown)";
  const lines: string[] = [];
  const decision = txn.ghostTxn ? ledger.decisions.get(txn.ghostTxn)?.[0] : undefined;
  if (decision)
    lines.push(
      `${at(decision.atMs)} ${decision.coordinator} wrote ${txn.state} for ${ghost} (producerId ${decision.producerId}, epoch ${decision.producerEpoch}, TV${decision.transactionVersion})`,
    );
  const sends = ledger.sendsFor(txn.ghostTxn);
  const markerIds = new Set(sends.map((s) => s.markerId));
  const abandoned = ledger.abandoned.filter(
    (a) => a.transactionalId === txn.transactionalId && a.ghostTxn === txn.ghostTxn,
  );
  const refused = ledger.refused.filter((r) => r.markerIds.some((id) => markerIds.has(id)));
  const firstAbandon = abandoned[0];
  const firstRefusal = refused[0];
  const lostWakeup = ledger.lostWakeups.find(
    (w) => w.transactionalId === txn.transactionalId && w.ghostTxn === txn.ghostTxn,
  );
  if (!isPrepare(txn.state) && txn.pendingState === "Dead") return wedgedPendingDead(txn, endMs);
  let cause: HangCause;
  if (firstAbandon) cause = rejectedAndAbandoned(ledger, txn, firstAbandon);
  else if (firstRefusal) cause = neverUnderstood(sends, refused, firstRefusal);
  else if (lostWakeup) cause = completionWakeupLost(txn, lostWakeup);
  else
    cause = {
      summary:
        sends.length > 0
          ? `its markers were still being re-sent (${sends.length} sends) when the run ended`
          : "no marker was ever sent for it",
      lines: [],
      place: null,
    };
  lines.push(...cause.lines);
  lines.push(
    `${at(endMs)} after the quiet period ${ghost} is still ${txn.state} (pending ${txn.pendingState ?? "none"}) at coordinator ${txn.coordinator} (coordinator epoch ${txn.coordinatorEpoch})`,
  );
  return {
    kind: "hanging-transaction",
    summary: `${ghost} hangs in ${txn.state} at ${txn.coordinator}: ${cause.summary}`,
    explanation: lines,
    atMs: endMs,
    ...(cause.place ?? {}),
    transaction: ghost,
  };
}

/**
 * 4.2.0's marker sender skips ApiVersions and sends v2; a broker that only knows v1 cannot parse the
 * header's version and closes the connection, the coordinator sees a disconnect and re-sends, forever.
 */
function neverUnderstood(sends: MarkerSend[], refused: RefusedRequest[], r: RefusedRequest): HangCause {
  const send = sends.find((s) => s.broker === r.broker);
  const by = send ? `${send.coordinator} (${send.coordinatorRelease})` : "the coordinator";
  return {
    summary: `${r.broker} (${r.brokerRelease}) never understood the request: ${by} sends WriteTxnMarkers v${r.version} without ApiVersions discovery (KAFKA-20322 missing), and ${r.broker} cannot parse v${r.version}`,
    lines: [
      `${at(r.atMs)} ${r.broker} (${r.brokerRelease}) could not take WriteTxnMarkers v${r.version} (${r.reason}) and closed the connection without a response`,
      `${INDENT} ${by} saw a disconnect and re-sent the same v${r.version} request ${refused.length} times: it never asked ${r.broker} which versions it supports, so it never fell back to v1; no marker was rejected, none was applied there`,
    ],
    place: { broker: r.broker, brokerRelease: r.brokerRelease, partition: send?.partitions[0] ?? "" },
  };
}

/** The rejection that made the coordinator abandon the transaction's markers, judged precisely. */
function rejectedAndAbandoned(ledger: GhostLedger, txn: SnapshotTxn, a: AbandonedSending): HangCause {
  const outcomes = [...ledger.markerOutcomes.values()].flat();
  const rejected = outcomes.find(
    (o) => o.ghostTxn === txn.ghostTxn && o.broker === a.broker && o.errorCode === a.errorCode && o.atMs <= a.atMs,
  );
  const lines: string[] = [];
  let why = "";
  if (rejected) {
    const earlier = outcomes.find(
      (o) =>
        o !== rejected &&
        o.markerId === rejected.markerId &&
        o.partition === rejected.partition &&
        o.errorCode === Errors.NONE &&
        o.atMs <= rejected.atMs,
    );
    if (earlier)
      lines.push(
        `${at(earlier.atMs)} ${earlier.broker} applied marker #${earlier.markerId} copy ${earlier.resend + 1} at ${earlier.partition} (offset ${earlier.markerOffset})`,
      );
    const open = rejected.openTxnBefore
      ? "a transaction of this producer was open there"
      : "no transaction was open there";
    lines.push(
      `${at(rejected.atMs)} ${rejected.broker} (${rejected.brokerRelease}) rejected ${describeCopy(rejected, earlier)} at ${rejected.partition} with ${errorName(rejected.errorCode)} (marker epoch ${rejected.markerEpoch}, producer epoch ${rejected.storedEpochBefore}, coordinator epoch ${rejected.coordinatorEpoch} vs stored ${rejected.storedCoordinatorEpochBefore}, ${rejected.rule} rule; ${open})`,
    );
    why = rejectionReason(rejected, earlier);
    if (why) lines.push(`${INDENT} ${why}`);
  }
  lines.push(
    `${at(a.atMs)} ${a.coordinator} stopped sending markers for ${txn.ghostTxn ?? "it"} on ${errorName(a.errorCode)}: CompleteX is never written and every request for ${txn.transactionalId} gets CONCURRENT_TRANSACTIONS until a coordinator reload`,
  );
  const where = rejected ? ` at ${rejected.partition}` : "";
  const harmless =
    rejected && isHarmlessDuplicate(rejected)
      ? " (a harmless duplicate refused by the strict rule without the KAFKA-19999 tolerance)"
      : "";
  return {
    summary: `${a.broker}${rejected ? ` (${rejected.brokerRelease})` : ""} rejected its marker${where} with ${errorName(a.errorCode)} and the coordinator gave up${harmless}`,
    lines,
    place: rejected
      ? { broker: rejected.broker, brokerRelease: rejected.brokerRelease, partition: rejected.partition }
      : null,
  };
}

/** Equal epoch, nothing open, refused by the strict rule: what KAFKA-19999 lets through. */
function isHarmlessDuplicate(o: MarkerOutcome): boolean {
  return (
    o.errorCode === Errors.INVALID_PRODUCER_EPOCH &&
    o.rule === "strict-tv2" &&
    o.markerEpoch === o.storedEpochBefore &&
    !o.openTxnBefore
  );
}

function describeCopy(o: MarkerOutcome, earlier: MarkerOutcome | undefined): string {
  if (earlier && earlier.correlationId === o.correlationId)
    return `a second delivery of the same request (the network duplicated request ${o.correlationId}) of marker #${o.markerId}`;
  return `marker #${o.markerId} copy ${o.resend + 1}`;
}

function rejectionReason(o: MarkerOutcome, earlier: MarkerOutcome | undefined): string {
  if (isHarmlessDuplicate(o)) {
    const dup = earlier ? "it duplicated a marker already applied there, so refusing it protected nothing; " : "";
    return `${dup}the strict KIP-1228 rule (marker epoch > producer epoch) refuses an equal epoch even with no transaction open; a leader with KAFKA-19999 (4.2.0 and later) appends it as a duplicate that closes nothing`;
  }
  if (o.errorCode === Errors.TRANSACTION_COORDINATOR_FENCED)
    return `the leader had stored coordinator epoch ${o.storedCoordinatorEpochBefore} from a newer coordinator`;
  if (o.errorCode === Errors.INVALID_PRODUCER_EPOCH)
    return `the ${o.rule} rule refused marker epoch ${o.markerEpoch} against producer epoch ${o.storedEpochBefore}`;
  return "";
}

function stuckAtPartition(
  ledger: GhostLedger,
  snapshot: ClusterSnapshot,
  p: SnapshotPartition,
  open: SnapshotPartition["openTransactions"][number],
  endMs: number,
): Violation {
  const ghosts = open.ghostTxns.join(", ");
  const lines = open.ghostTxns.map((g) => {
    const first = (ledger.appends.get(g) ?? []).find((a) => a.partition === p.partition);
    if (first)
      return `${at(first.atMs)} ${g} wrote offset ${first.firstOffset} at ${p.partition} (producerId ${first.producerId}, epoch ${first.producerEpoch})`;
    return offsetCommitLine(p, open, g) ?? `${INDENT} ${g} has records at ${p.partition}`;
  });
  const owner = snapshot.transactions.find(
    (t) => t.producerId === open.producerId || (t.ghostTxn !== null && open.ghostTxns.includes(t.ghostTxn)),
  );
  let cause = "no marker ever closed them";
  let why = "";
  const closing = closingMarkerInLog(p, open);
  const lost =
    closing || owner?.partitions.includes(p.partition)
      ? null
      : lostOngoingRecord(ledger.truncations, { producerId: open.producerId, partition: p.partition, beforeMs: endMs });
  if (closing) {
    // The log holds the marker that closed the transaction, yet the replica's producer state holds
    // it open: the state came back from a producer snapshot taken while it was open (a truncation
    // of a log whose producers had all expired loads the snapshot and replays nothing after it,
    // UnifiedLog.rebuildProducerState's isEmptyBeforeTruncation).
    cause = `a ${closing.control?.type ?? "marker"} marker at offset ${closing.baseOffset} closed the transaction of producer ${open.producerId} that started at offset ${open.firstOffset}, yet ${p.broker}'s producer state holds it open and no marker will close it again`;
    why = ` ${CLOSED_IN_LOG_TEXT} ${closing.baseOffset}`;
  } else if (owner) {
    const includes = owner.partitions.includes(p.partition);
    cause = `the coordinator's transaction for ${owner.transactionalId} (producerId ${owner.producerId}, epoch ${owner.producerEpoch}) is ${owner.state}${includes ? "" : ` and does not include ${p.partition}`}, so no marker will ever close them`;
  }
  if (lost) {
    lines.push(`${at(lost.atMs)} ${lostRecordText(lost)}`);
    why = `: the ${LOST_TXN_LOG_RECORD_TEXT} ${p.partition} was truncated`;
  }
  lines.push(
    `${at(endMs)} ${cause}: LSO of ${p.partition} is stuck at ${p.lastStableOffset} (high watermark ${p.highWatermark})`,
  );
  return {
    kind: "hanging-transaction",
    summary: `${p.partition} on ${p.broker} (${p.brokerRelease}): LSO stuck at ${p.lastStableOffset} behind the open transaction of producer ${open.producerId} (${ghosts})${why}`,
    explanation: lines,
    atMs: endMs,
    partition: p.partition,
    broker: p.broker,
    brokerRelease: p.brokerRelease,
    transaction: open.ghostTxns[0] ?? "(unknown)",
  };
}

/** A control batch of the open transaction's producer after its first offset: a marker that closed it. */
function closingMarkerInLog(
  p: SnapshotPartition,
  open: SnapshotPartition["openTransactions"][number],
): SnapshotPartition["batches"][number] | null {
  return (
    p.batches.find((b) => b.control !== null && b.producerId === open.producerId && b.baseOffset > open.firstOffset) ??
    null
  );
}

/**
 * At an offsets partition the open transaction's first batch is a group coordinator's write of a
 * TxnOffsetCommit (not a producer's append, so the ledger has no record of it): say which offsets.
 */
function offsetCommitLine(
  p: SnapshotPartition,
  open: SnapshotPartition["openTransactions"][number],
  ghost: string,
): string | null {
  const batch = p.batches.find((b) => b.baseOffset === open.firstOffset && b.ghostTxn === ghost);
  if (!batch?.offsetCommits) return null;
  const offsets = batch.offsetCommits.map((o) => `${o.partition}@${o.offset}`).join(", ");
  const when = batch.maxTimestamp === undefined ? INDENT : at(batch.maxTimestamp);
  return `${when} the group coordinator wrote ${ghost}'s TxnOffsetCommit (group ${batch.offsetCommits[0]?.groupId}: ${offsets}) at ${p.partition} offset ${batch.baseOffset}, a transactional batch of producerId ${batch.producerId}, epoch ${batch.producerEpoch}`;
}

/** Every transaction at the partition is closed, yet the LSO stays below the high watermark. */
function lsoStuckWithoutOpenTxn(p: SnapshotPartition, endMs: number): Violation {
  const batch = p.batches.find((b) => b.baseOffset <= p.lastStableOffset && p.lastStableOffset <= b.lastOffset);
  const ghost = batch?.ghostTxn ?? "(unknown)";
  return {
    kind: "hanging-transaction",
    summary: `${p.partition} on ${p.broker} (${p.brokerRelease}): LSO stuck at ${p.lastStableOffset} below the high watermark ${p.highWatermark} though no transaction is open there`,
    explanation: [
      `${INDENT} offset ${p.lastStableOffset} holds a record of ${ghost} (producerId ${batch?.producerId ?? "?"}), whose transaction a marker has closed`,
      `${at(endMs)} the leader never moved the completed transaction out of its unstable set: read_committed consumers stop at offset ${p.lastStableOffset} for ever`,
    ],
    atMs: endMs,
    partition: p.partition,
    broker: p.broker,
    brokerRelease: p.brokerRelease,
    transaction: ghost,
  };
}
