import { errorName } from "../kafka/common/errors.js";
import type { ClusterSnapshot } from "../kafka/cluster.js";
import { isPrepare } from "../kafka/coordinator/transaction-state.js";
import { at } from "./format.js";
import type { GhostLedger } from "./ghost-ledger.js";
import type { Violation } from "./violation.js";

type SnapshotTxn = ClusterSnapshot["transactions"][number];
type SnapshotPartition = ClusterSnapshot["partitions"][number];

/**
 * After faults stop and a quiet period: no transaction may stay in PrepareCommit/PrepareAbort and
 * no partition's last stable offset may stay behind an open transaction. Each finding names its cause.
 */
export function checkLiveness(ledger: GhostLedger, snapshot: ClusterSnapshot, endMs: number): Violation[] {
  const out: Violation[] = [];
  const explainedGhosts = new Set<string>();
  for (const txn of snapshot.transactions) {
    const stuck = isPrepare(txn.state) || (txn.pendingState !== null && txn.pendingState !== "Ongoing");
    if (!stuck) continue;
    if (txn.ghostTxn) explainedGhosts.add(txn.ghostTxn);
    out.push(stuckAtCoordinator(ledger, snapshot, txn, endMs));
  }
  for (const p of snapshot.partitions) {
    for (const open of p.openTransactions) {
      if (open.ghostTxns.every((g) => explainedGhosts.has(g))) continue;
      out.push(stuckAtPartition(ledger, p, open, endMs));
    }
  }
  return out;
}

function stuckAtCoordinator(ledger: GhostLedger, snapshot: ClusterSnapshot, txn: SnapshotTxn, endMs: number): Violation {
  const ghost = txn.ghostTxn ?? "(unknown)";
  const lines: string[] = [];
  const decision = txn.ghostTxn ? ledger.decisions.get(txn.ghostTxn)?.[0] : undefined;
  if (decision) lines.push(`${at(decision.atMs)} ${decision.coordinator} wrote ${txn.state} for ${ghost} (producerId ${decision.producerId}, epoch ${decision.producerEpoch}, TV${decision.transactionVersion})`);
  const sends = ledger.sendsFor(txn.ghostTxn);
  const markerIds = new Set(sends.map((s) => s.markerId));
  const refused = ledger.refused.filter((r) => r.markerIds.some((id) => markerIds.has(id)));
  const abandoned = ledger.abandoned.filter((a) => a.transactionalId === txn.transactionalId && a.ghostTxn === txn.ghostTxn);
  let cause: string;
  let broker: string | undefined;
  let brokerRelease: string | undefined;
  if (refused.length > 0) {
    const r = refused[0] as (typeof refused)[number];
    const coordinatorSend = sends.find((s) => s.broker === r.broker);
    broker = r.broker;
    brokerRelease = r.brokerRelease;
    lines.push(`${at(r.atMs)} ${r.broker} (${r.brokerRelease}) could not take WriteTxnMarkers v${r.version} (${r.reason}) and closed the connection without a response`);
    lines.push(`${" ".repeat(10)} the coordinator${coordinatorSend ? ` (${coordinatorSend.coordinatorRelease})` : ""} saw a disconnect and re-sent the same v${r.version} request ${refused.length} times: it never asks ${r.broker} which versions it supports`);
    cause = `${r.broker} (${r.brokerRelease}) never understood the request: the coordinator sends WriteTxnMarkers v${r.version} without ApiVersions discovery (KAFKA-20322 missing)`;
  } else if (abandoned.length > 0) {
    const a = abandoned[0] as (typeof abandoned)[number];
    const rejected = [...(ledger.markerOutcomes.values())].flat().find((o) => o.ghostTxn === txn.ghostTxn && o.broker === a.broker && o.errorCode === a.errorCode);
    broker = a.broker;
    brokerRelease = rejected?.brokerRelease;
    if (rejected) {
      lines.push(`${at(rejected.atMs)} ${rejected.broker} (${rejected.brokerRelease}) rejected marker #${rejected.markerId} copy ${rejected.resend + 1} at ${rejected.partition} with ${errorName(rejected.errorCode)} (marker epoch ${rejected.markerEpoch}, producer epoch ${rejected.storedEpochBefore}, ${rejected.rule} rule, no transaction open there)`);
    }
    lines.push(`${at(a.atMs)} ${a.coordinator} stopped sending markers for ${ghost} on ${errorName(a.errorCode)}: CompleteX is never written and every request for ${txn.transactionalId} gets CONCURRENT_TRANSACTIONS`);
    cause = `a marker was rejected with ${errorName(a.errorCode)} and the coordinator gave up${rejected?.rule === "strict-tv2" ? " (a harmless duplicate refused by the strict rule without the KAFKA-19999 tolerance)" : ""}`;
  } else {
    cause = sends.length > 0 ? `its markers were still being re-sent (${sends.length} sends)` : "no marker was ever sent";
  }
  lines.push(`${at(endMs)} after the quiet period ${ghost} is still ${txn.state} (pending ${txn.pendingState ?? "none"}) at coordinator ${snapshot.coordinator}`);
  return {
    kind: "hanging-transaction",
    summary: `${ghost} hangs in ${txn.state} at ${snapshot.coordinator}: ${cause}`,
    explanation: lines,
    atMs: endMs,
    ...(broker ? { broker } : {}),
    ...(brokerRelease ? { brokerRelease } : {}),
    ...(broker ? { partition: txn.partitions.find(() => true) ?? undefined } : {}),
    transaction: ghost,
  } as Violation;
}

function stuckAtPartition(ledger: GhostLedger, p: SnapshotPartition, open: SnapshotPartition["openTransactions"][number], endMs: number): Violation {
  const ghosts = open.ghostTxns.join(", ");
  const lines = open.ghostTxns.map((g) => {
    const first = (ledger.appends.get(g) ?? []).find((a) => a.partition === p.partition);
    return first ? `${at(first.atMs)} ${g} wrote offset ${first.firstOffset} at ${p.partition} (producerId ${first.producerId}, epoch ${first.producerEpoch})` : `${g} has records at ${p.partition}`;
  });
  lines.push(`${at(endMs)} no marker ever closed them: LSO of ${p.partition} is stuck at ${p.lastStableOffset} (high watermark ${p.highWatermark})`);
  return {
    kind: "hanging-transaction",
    summary: `${p.partition} on ${p.broker} (${p.brokerRelease}): LSO stuck at ${p.lastStableOffset} behind the open transaction of producer ${open.producerId} (${ghosts})`,
    explanation: lines,
    atMs: endMs,
    partition: p.partition,
    broker: p.broker,
    brokerRelease: p.brokerRelease,
    transaction: open.ghostTxns[0] ?? "(unknown)",
  };
}
