import type { MarkerEpochRule } from "../../kafka/broker/partition-log.js";
import type { LogBatch } from "../../kafka/broker/log-batch.js";
import type { FinalPartitionRead } from "../../kafka/cluster-final-state.js";
import type { PartitionKey, TransactionResult, TransactionVersion } from "../../kafka/common/types.js";
import type { MarkerOutcome, MarkerSend } from "../../kafka/ghost.js";
import { isReleaseName, RELEASES, type ReleaseName } from "../../kafka/release.js";
import { checkClientView } from "../../oracle/client/client-checks.js";
import { identifyRecord } from "../../oracle/client/client-view.js";
import { GhostLedger } from "../../oracle/ghost-ledger.js";
import type { Violation } from "../../oracle/violation.js";
import { compareReleases } from "../cluster/kafka-jars.js";
import type { ConfirmPlan } from "../plan/plan.js";
import type { RequestSummary } from "../proxy/fault-rules.js";
import type { ProxyEvent } from "../proxy/kafka-proxy.js";
import type { RealRun, StepRecord } from "../run/real-run.js";
import { type DumpedBatch, parseTxnRecord } from "./dump-log.js";

/** A control batch of a real log with the marker copy that wrote it (the evidence a verdict quotes). */
export interface RealMarker {
  partition: string;
  offset: number;
  result: TransactionResult;
  producerId: number;
  producerEpoch: number;
  /** Who sent it: a coordinator's copy (its marker id and copy number) or an Admin.abortTransaction. */
  source: string;
  ghostTxn: string | null;
  closed: { firstOffset: number; lastOffset: number; ghostTxns: string[] } | null;
  lines: string[];
}

/** The oracle's verdict on a real run: its violations, and the history they were judged on. */
export interface RealJudgement {
  violations: Violation[];
  markers: RealMarker[];
  /** Where the history could not be built exactly (a control batch no copy accounts for, say). */
  notes: string[];
  ledger: GhostLedger;
}

/** The model's release name the oracle's explanations use for a real broker (the newest profile when the model has none). */
function releaseNameOf(profile: string): ReleaseName {
  return isReleaseName(profile) ? profile : "4.2.1";
}

/**
 * Which transaction of `producer` a coordinator's write or marker at `atMs` belongs to: the last one
 * whose commit or abort had begun by then (markers and PrepareX follow an EndTxn), `ending` when
 * that call was still under way. With no end begun yet, the last transaction begun (a
 * coordinator-initiated abort).
 */
function txnEndingAt(
  steps: readonly StepRecord[],
  producer: string,
  atMs: number,
): { txn: string; ending: boolean } | null {
  let ended: StepRecord | null = null;
  let begun: StepRecord | null = null;
  for (const s of steps) {
    if (s.startMs > atMs) break;
    const st = s.step;
    if (!("producer" in st) || st.producer !== producer) continue;
    if (st.kind === "commit" || st.kind === "abort") ended = s;
    if (st.kind === "begin") begun = s;
  }
  const pick = ended ?? begun;
  if (!pick || !("txn" in pick.step) || pick.step.txn === null) return null;
  return { txn: pick.step.txn, ending: pick === ended && atMs <= pick.endMs };
}

/**
 * Build the history the oracle reads from what the real run wrote, and judge it with the same
 * checks as a simulated run: the ghost ledger fed with transactions begun and ended (the driver),
 * coordinator decisions (__transaction_state, decoded), data batches and control batches (the raw
 * logs, DumpLogSegments), marker copies sent and answered (the proxy); then the client-visible
 * checks on the final read_committed reading.
 */
export function judgeRealRun(plan: ConfirmPlan, run: RealRun): RealJudgement {
  const notes: string[] = [];
  const ledger = new GhostLedger();
  // The oracle runs online in the model: each event is fed to the ledger in time order.
  const timeline: { atMs: number; feed: () => void }[] = [];
  const at = (atMs: number, feed: () => void) => timeline.push({ atMs, feed });
  const ms = (wall: number) => wall - run.epochMs;
  const producerOfPid = new Map(run.producers.map((p) => [p.producerId, p.name]));
  const producerOfTxnId = new Map(run.producers.map((p) => [p.transactionalId, p.name]));
  const txnIdOf = new Map(run.producers.map((p) => [p.name, p.transactionalId]));
  const brokerProfile = new Map(plan.brokers.map((b) => [b.name, releaseNameOf(b.profile)]));
  const nodeName = new Map(plan.brokers.map((b) => [b.nodeId, b.name]));

  // The driver: transactions begun, and what each producer was told.
  for (const s of run.steps) {
    const st = s.step;
    if (st.kind === "begin" && s.real.kind === "ok")
      at(s.endMs, () =>
        ledger.txnBegun({
          ghostTxn: st.txn,
          producer: st.producer,
          transactionalId: txnIdOf.get(st.producer) ?? "",
          atMs: s.endMs,
        }),
      );
    if (st.kind === "commit" || st.kind === "abort")
      at(s.endMs, () =>
        ledger.producerOutcome({
          ghostTxn: st.txn,
          producer: st.producer,
          outcome: s.real.kind !== "ok" ? "unknown" : st.kind === "commit" ? "committed" : "aborted",
          detail:
            s.real.kind === "ok"
              ? `${st.kind}Transaction() returned`
              : `${st.kind}Transaction() failed: ${s.real.kind === "error" ? s.real.error : s.real.detail}`,
          atMs: s.endMs,
        }),
      );
  }

  // __transaction_state: the coordinators' decisions and completions.
  for (const b of run.transactionLog) {
    const p = Number(b.partition.slice(b.partition.lastIndexOf("-") + 1));
    const coordinator = run.transactionStateLeaders[p] ?? "?";
    for (const r of b.lines.map(parseTxnRecord)) {
      if (r === null) continue;
      const producer = producerOfTxnId.get(r.transactionalId);
      if (!producer) continue;
      const when = ms(b.createTime);
      const ending = txnEndingAt(run.steps, producer, when);
      if (r.state === "PrepareCommit" || r.state === "PrepareAbort")
        at(when, () =>
          ledger.txnDecided({
            ghostTxn: ending?.txn ?? null,
            transactionalId: r.transactionalId,
            producerId: r.producerId,
            producerEpoch: r.producerEpoch,
            result: r.state === "PrepareCommit" ? "COMMIT" : "ABORT",
            coordinator,
            coordinatorEpoch: b.partitionLeaderEpoch,
            transactionVersion: (r.clientTransactionVersion >= 2
              ? 2
              : r.clientTransactionVersion >= 1
                ? 1
                : 0) as TransactionVersion,
            initiator: ending?.ending ? "client" : "coordinator",
            requestedFor: ending?.ending ? ending.txn : null,
            partitions: r.partitions as PartitionKey[],
            atMs: when,
          }),
        );
      if (r.state === "CompleteCommit" || r.state === "CompleteAbort")
        at(when, () =>
          ledger.txnCompleted({
            ghostTxn: ending?.txn ?? null,
            transactionalId: r.transactionalId,
            result: r.state === "CompleteCommit" ? "COMMIT" : "ABORT",
            coordinator,
            atMs: when,
          }),
        );
    }
  }

  // The proxy: every marker copy a coordinator sent, tied to the transaction whose end caused it.
  const copies = markerCopies(run, producerOfPid, nodeName, brokerProfile);
  for (const c of copies) at(c.send.atMs, () => ledger.markerSent(c.send));

  // The raw logs: data batches, then control batches with the copy that wrote each (read at each
  // partition's leader at the end: its log holds what every earlier leader committed).
  const leaderOf = new Map(
    plan.topics.flatMap((t) =>
      t.assignment.map(
        (replicas, p) =>
          [
            `${t.name}-${p}` as PartitionKey,
            run.finalLeaders?.[`${t.name}-${p}`] ?? nodeName.get(replicas[0] as number) ?? "?",
          ] as const,
      ),
    ),
  );
  const byPartition = new Map<PartitionKey, DumpedBatch[]>();
  for (const b of run.logs) {
    const p = b.partition as PartitionKey;
    byPartition.set(p, [...(byPartition.get(p) ?? []), b]);
  }
  const acks = sendAcks(run.steps);
  const markers: RealMarker[] = [];
  const applied: MarkerOutcome[] = [];
  for (const [partition, batches] of byPartition) {
    const broker = leaderOf.get(partition) ?? "?";
    const release = brokerProfile.get(broker) ?? "4.2.1";
    const open = new Map<number, LogBatch[]>();
    const lastEpoch = new Map<number, number>();
    const lastCoordinatorEpoch = new Map<number, number>();
    const sources = markerSources(run, copies, partition, RELEASES[release].maxWriteTxnMarkersVersion >= 2);
    for (const b of batches.sort((x, y) => x.baseOffset - y.baseOffset)) {
      if (!b.isControl) {
        const ghost = b.values.map((v) => identifyRecord(v)?.ghostTxn).find((g) => g !== undefined) ?? null;
        const batch: LogBatch = {
          baseOffset: b.baseOffset,
          lastOffset: b.lastOffset,
          producerId: b.producerId,
          producerEpoch: b.producerEpoch,
          baseSequence: b.baseSequence,
          isTransactional: b.isTransactional,
          control: null,
          values: b.values,
          ghostTxn: ghost,
          partitionLeaderEpoch: b.partitionLeaderEpoch,
          maxTimestamp: b.createTime,
        };
        const appendedAt = acks.get(b.values[0] ?? "") ?? ms(b.createTime);
        at(appendedAt, () => ledger.batchAppended({ broker, partition, batch, atMs: appendedAt }));
        if (b.isTransactional) open.set(b.producerId, [...(open.get(b.producerId) ?? []), batch]);
        lastEpoch.set(b.producerId, b.producerEpoch);
        continue;
      }
      const marker = b.marker;
      if (!marker) continue;
      const source = takeSource(sources, b);
      if (!source)
        notes.push(
          `${partition} offset ${b.baseOffset}: a ${marker.result} marker no copy the proxy saw, and no admin abort, accounts for`,
        );
      const closed = open.get(b.producerId) ?? [];
      open.delete(b.producerId);
      const storedEpochBefore = lastEpoch.get(b.producerId) ?? -1;
      const first = closed[0];
      const last = closed[closed.length - 1];
      const outcome: MarkerOutcome = {
        markerId: source?.markerId ?? -1,
        resend: source?.resend ?? 0,
        ghostTxn: source?.ghostTxn ?? null,
        transactionalId: txnIdOf.get(producerOfPid.get(b.producerId) ?? "") ?? "",
        broker,
        brokerRelease: release,
        partition,
        leaderEpoch: b.partitionLeaderEpoch,
        requestVersion: source?.version ?? 1,
        correlationId: source?.correlationId ?? -1,
        transactionVersionSeen: source?.transactionVersion ?? 0,
        producerId: b.producerId,
        markerEpoch: b.producerEpoch,
        storedEpochBefore,
        openTxnBefore: closed.length > 0,
        coordinatorEpoch: marker.coordinatorEpoch,
        storedCoordinatorEpochBefore: lastCoordinatorEpoch.get(b.producerId) ?? -1,
        result: marker.result,
        rule: ruleOf(release, source?.transactionVersion ?? 0, b.producerEpoch, storedEpochBefore, closed.length > 0),
        errorCode: 0,
        markerOffset: b.baseOffset,
        completed:
          first && last
            ? {
                producerId: b.producerId,
                firstOffset: first.baseOffset,
                lastOffset: b.baseOffset,
                isAborted: marker.result === "ABORT",
              }
            : null,
        closedBatches: closed,
        atMs: source?.atMs ?? ms(b.createTime),
      };
      applied.push(outcome);
      lastEpoch.set(b.producerId, b.producerEpoch);
      lastCoordinatorEpoch.set(b.producerId, marker.coordinatorEpoch);
      markers.push({
        partition,
        offset: b.baseOffset,
        result: marker.result,
        producerId: b.producerId,
        producerEpoch: b.producerEpoch,
        source: source?.describe ?? "unknown",
        ghostTxn: outcome.ghostTxn,
        closed:
          first && last
            ? {
                firstOffset: first.baseOffset,
                lastOffset: last.lastOffset,
                ghostTxns: [...new Set(closed.map((c) => c.ghostTxn ?? "?"))],
              }
            : null,
        lines: [...closed.flatMap((c) => batches.find((x) => x.baseOffset === c.baseOffset)?.lines ?? []), ...b.lines],
      });
    }
    for (const s of sources)
      if (!s.used && s.errorCode !== 0)
        applied.push(rejectedOutcome(s, partition, broker, release, txnIdOf, producerOfPid));
  }
  for (const o of applied) at(o.atMs, () => ledger.markerApplied(o));
  for (const e of timeline.sort((a, b) => a.atMs - b.atMs)) e.feed();

  const finalReads: FinalPartitionRead[] = [...leaderOf].map(([partition, broker]) => ({
    partition,
    broker,
    brokerRelease: brokerProfile.get(broker) ?? "4.2.1",
    readBound: run.finalRead.endOffsets[partition] ?? run.finalRead.offsets[partition]?.lastStableOffset ?? 0,
    highWatermark: run.finalRead.offsets[partition]?.highWatermark ?? 0,
    records: run.finalRead.records
      .filter((r) => r.partition === partition)
      .map((r) => ({
        partition,
        offset: r.offset,
        value: r.value,
        producerId: -1,
        ghostTxn: identifyRecord(r.value)?.ghostTxn ?? null,
      })),
  }));
  const endMs = run.steps.at(-1)?.endMs ?? 0;
  const clientViolations = checkClientView(ledger, { finalReads, consumers: [], endMs });
  return { violations: [...ledger.violations, ...clientViolations], markers, notes, ledger };
}

/** When each record's send was acknowledged (the append, as the client knows it). */
function sendAcks(steps: readonly StepRecord[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of steps) if (s.step.kind === "send" && s.real.kind === "ok") out.set(s.step.value, s.endMs);
  return out;
}

/** The rule the leader's release applies to a marker read with this TransactionVersion (the explanation's label). */
function ruleOf(release: ReleaseName, tv: number, epoch: number, stored: number, open: boolean): MarkerEpochRule {
  // KIP-1228's strict rule came with WriteTxnMarkers v2: a leader that reads v2 judges TV2 markers by it.
  if (RELEASES[release].maxWriteTxnMarkersVersion < 2 || tv < 2) return "legacy";
  return epoch === stored && !open ? "kafka-19999-equal-epoch" : "strict-tv2";
}

interface Copy {
  send: MarkerSend;
  /** The request it rode in, at the proxy. */
  broker: string;
  conn: number;
  correlationId: number;
}

/** Every marker entry of every WriteTxnMarkers request the proxies saw, as the ledger's MarkerSend. */
function markerCopies(
  run: RealRun,
  producerOfPid: Map<number, string>,
  nodeName: Map<number, string>,
  brokerProfile: Map<string, ReleaseName>,
): Copy[] {
  const ids = new Map<string, { id: number; copies: number }>();
  const out: Copy[] = [];
  for (const e of run.proxyEvents) {
    if (e.kind !== "request" || !e.request.markers) continue;
    const coordinatorNode = Number(/^broker-(\d+)-txn-marker-sender/.exec(e.request.clientId ?? "")?.[1] ?? -1);
    const coordinator = nodeName.get(coordinatorNode) ?? e.request.clientId ?? "?";
    for (const m of e.request.markers) {
      const producer = producerOfPid.get(m.producerId);
      const atMs = e.atMs - run.epochMs;
      const ghostTxn = producer ? (txnEndingAt(run.steps, producer, atMs)?.txn ?? null) : null;
      const key = `${ghostTxn}|${coordinator}|${e.broker}|${m.producerId}|${m.producerEpoch}|${m.result}|${m.partitions.join(",")}`;
      const known = ids.get(key) ?? { id: ids.size + 1, copies: 0 };
      ids.set(key, known);
      out.push({
        broker: e.broker,
        conn: e.conn,
        correlationId: e.request.correlationId,
        send: {
          markerId: known.id,
          resend: known.copies++,
          ghostTxn,
          transactionalId: run.producers.find((p) => p.producerId === m.producerId)?.transactionalId ?? "",
          coordinator,
          coordinatorRelease: brokerProfile.get(coordinator) ?? "4.2.1",
          coordinatorEpoch: m.coordinatorEpoch,
          broker: e.broker,
          version: e.request.apiVersion,
          transactionVersionField: m.transactionVersion,
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          result: m.result,
          partitions: m.partitions,
          correlationId: e.request.correlationId,
          atMs,
        },
      });
    }
  }
  return out;
}

interface Source {
  markerId: number;
  resend: number;
  ghostTxn: string | null;
  version: number;
  transactionVersion: number;
  correlationId: number;
  producerId: number;
  epoch: number;
  result: TransactionResult;
  errorCode: number;
  atMs: number;
  describe: string;
  used: boolean;
  request?: RequestSummary;
}

/** Every answered marker copy for one partition (coordinators' through the proxy, and admin aborts), in answer order. */
function markerSources(run: RealRun, copies: readonly Copy[], partition: string, leaderReadsV2: boolean): Source[] {
  const out: Source[] = [];
  for (const e of run.proxyEvents as ProxyEvent[]) {
    if (e.kind !== "marker-response") continue;
    for (const err of e.errors) {
      if (err.partition !== partition) continue;
      const copy = copies.find(
        (c) =>
          c.broker === e.broker &&
          c.conn === e.conn &&
          c.correlationId === e.correlationId &&
          c.send.producerId === err.producerId,
      );
      if (!copy) continue;
      out.push({
        markerId: copy.send.markerId,
        resend: copy.send.resend,
        ghostTxn: copy.send.ghostTxn,
        version: copy.send.version,
        transactionVersion: copy.send.version >= 2 ? copy.send.transactionVersionField : 0,
        correlationId: copy.send.correlationId,
        producerId: err.producerId,
        epoch: copy.send.producerEpoch,
        result: copy.send.result,
        errorCode: err.errorCode,
        atMs: e.atMs - run.epochMs,
        describe: `${copy.send.coordinator}'s marker #${copy.send.markerId} copy ${copy.send.resend + 1} for ${copy.send.ghostTxn ?? "?"} (WriteTxnMarkers v${copy.send.version}${copy.send.version >= 2 ? `, TransactionVersion ${copy.send.transactionVersionField}` : ""}, producer epoch ${copy.send.producerEpoch})${e.swallowed ? ", delivered late by the proxy" : ""}`,
        used: false,
      });
    }
  }
  for (const s of run.steps) {
    const st = s.step;
    if (st.kind !== "admin-abort" || st.partition !== partition) continue;
    out.push({
      markerId: 2_000_000_000 + s.index,
      resend: 0,
      ghostTxn: st.txn,
      // The admin client negotiates the version; it never fills TransactionVersion (0: the legacy rule).
      version: leaderReadsV2 && compareReleases(run.clientVersion, "4.2.0") >= 0 ? 2 : 1,
      transactionVersion: 0,
      correlationId: -1,
      producerId: run.producers.find((p) => p.name === st.producer)?.producerId ?? -1,
      epoch: st.producerEpoch,
      result: "ABORT",
      errorCode: s.real.kind === "ok" ? 0 : -1,
      atMs: s.endMs,
      describe: `Admin.abortTransaction (producer epoch ${st.producerEpoch}, coordinator epoch ${st.coordinatorEpoch})`,
      used: false,
    });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/** The first unused accepted copy of this producer, epoch and result: the one whose append this control batch is. */
function takeSource(sources: Source[], b: DumpedBatch): Source | null {
  const s = sources.find(
    (x) =>
      !x.used &&
      x.errorCode === 0 &&
      x.producerId === b.producerId &&
      x.epoch === b.producerEpoch &&
      x.result === b.marker?.result,
  );
  if (s) s.used = true;
  return s ?? null;
}

function rejectedOutcome(
  s: Source,
  partition: string,
  broker: string,
  release: ReleaseName,
  txnIdOf: Map<string, string>,
  producerOfPid: Map<number, string>,
): MarkerOutcome {
  return {
    markerId: s.markerId,
    resend: s.resend,
    ghostTxn: s.ghostTxn,
    transactionalId: txnIdOf.get(producerOfPid.get(s.producerId) ?? "") ?? "",
    broker,
    brokerRelease: release,
    partition,
    leaderEpoch: 0,
    requestVersion: s.version,
    correlationId: s.correlationId,
    transactionVersionSeen: s.transactionVersion,
    producerId: s.producerId,
    markerEpoch: s.epoch,
    storedEpochBefore: -1,
    openTxnBefore: false,
    coordinatorEpoch: 0,
    storedCoordinatorEpochBefore: -1,
    result: s.result,
    rule: "legacy",
    errorCode: s.errorCode,
    markerOffset: null,
    completed: null,
    closedBatches: [],
    atMs: s.atMs,
  };
}

/** The control batches that closed another transaction's records than the one they were issued for. */
export function staleMarkers(markers: readonly RealMarker[]): RealMarker[] {
  return markers.filter((m) => m.closed?.ghostTxns.some((g) => g !== m.ghostTxn));
}
