import { runConfigFor } from "../../fuzz/campaign/campaign.js";
import { errorName } from "../../kafka/common/errors.js";
import { transactionStatePartitionFor } from "../../kafka/coordinator/transaction-partitioning.js";
import { identifyRecord } from "../../oracle/client/client-view.js";
import type { TraceEvent } from "../../sim/trace.js";
import { compareReleases, kafkaReleaseFor, modelProfileOf } from "../cluster/kafka-jars.js";
import type { ModelRun } from "./model-run.js";
import { type ConfirmPlan, describeStep, type PlanBroker, type PlannedFault, type PlanStep } from "./plan.js";

export interface PlanOptions {
  /** Run every broker on this Kafka release instead of the scenario's (the model's prediction is re-run too). */
  allBrokers?: string | null;
  /** The clients' Kafka release (default: the newest broker's). */
  clientRelease?: string | null;
  /** transaction.version to finalize (default: the scenario's). */
  transactionVersion?: number | null;
  /** Broker request.timeout.ms (the model's is too short for JVMs on two cores). */
  brokerRequestTimeoutMs?: number;
}

/** Default broker request.timeout.ms: the coordinator re-sends an unanswered marker after 2 s. */
export const DEFAULT_BROKER_REQUEST_TIMEOUT_MS = 2_000;

type Fields = Record<string, unknown>;

/** The model numbers an admin's markers from 2,000,000,000 (client/admin-client.ts). */
const ADMIN_MARKER_IDS = 2_000_000_000;
const str = (f: Fields, k: string): string => String(f[k]);
const num = (f: Fields, k: string): number => Number(f[k]);

/**
 * Turn the model's run of a counterexample into a plan (see ConfirmPlan). Steps come from the trace:
 * initTransactions (producer.initialized), begin (producer.begin), one send per record of every
 * batch a leader appended (produce.append, with the values the leader's log got), commit or abort
 * where the producer learnt the outcome (producer.outcome), and Admin.abortTransaction where its
 * marker reached the leader. Every marker copy that reached its leader after the coordinator had
 * re-sent it becomes a hold: armed before its transaction ends, released where the model
 * delivered it. Cluster events (leadership moves, controlled shutdowns, crashes, restarts,
 * transaction.version updates) are steps where the model's controller or nemesis had them.
 */
export function derivePlan(run: ModelRun, options: PlanOptions = {}): ConfirmPlan {
  const spec = runConfigFor(run.scenario).spec;
  const brokers: PlanBroker[] = spec.brokers.map((b, i) => ({
    name: b.id,
    nodeId: i,
    profile: options.allBrokers ? (modelProfileOf(options.allBrokers) ?? options.allBrokers) : b.release,
    release: options.allBrokers ?? kafkaReleaseFor(b.release),
  }));
  const nodeId = new Map(brokers.map((b) => [b.name, b.nodeId]));
  const releases = brokers.map((b) => b.release).sort(compareReleases);
  const trace = run.trace;
  const steps: PlanStep[] = [];
  const faults: PlannedFault[] = [];
  const notReplayed: string[] = [];
  const unsupported: string[] = [];

  // Producers: the instance that initialized with a producer id, and the transactional.id the coordinator gave it.
  const producerOfPid = new Map<number, string>();
  const txnIdOfPid = new Map<number, string>();
  for (const e of trace) {
    if (e.kind === "txn.init") txnIdOfPid.set(num(e.fields, "pid"), str(e.fields, "txnId"));
    if (e.kind === "producer.initialized") {
      const pid = num(e.fields, "pid");
      if ([...producerOfPid.values()].includes(e.node))
        unsupported.push(`t=${e.timeMs}ms ${e.node} initialized again (a producer restart)`);
      producerOfPid.set(pid, e.node);
      steps.push({ key: e.index, kind: "init", producer: e.node, model: { kind: "ok", detail: `producerId ${pid}` } });
    }
  }
  const producers = [...producerOfPid].map(([pid, name]) => {
    const transactionalId = txnIdOfPid.get(pid) ?? `txn-${name}`;
    const p = transactionStatePartitionFor(transactionalId, spec.transactionState.partitions.length);
    return { name, transactionalId, coordinator: spec.transactionState.partitions[p]?.replicas[0] ?? "broker-0" };
  });

  // Client steps.
  const appended = new Map(run.appends.map((a) => [`${a.broker}|${a.partition}|${a.baseOffset}`, a.values]));
  const ends = new Map<string, { commit: boolean; index: number }>();
  const lastSendKey = new Map<string, number>();
  const outcomes = new Set<string>();
  const completed = new Set<string>();
  const landed = new Set<string>();
  for (const e of trace) {
    const f = e.fields;
    if (e.kind === "producer.begin")
      steps.push({
        key: e.index,
        kind: "begin",
        producer: e.node,
        txn: str(f, "txn"),
        model: { kind: "ok", detail: "" },
      });
    else if (e.kind === "produce.append") {
      const values = appended.get(`${e.node}|${str(f, "partition")}|${num(f, "offset")}`) ?? [];
      values.forEach((value, i) => {
        const who = identifyRecord(value);
        if (!who) return;
        const key = e.index + (i + 1) / 1000;
        lastSendKey.set(who.ghostTxn, key);
        steps.push({
          key,
          kind: "send",
          producer: who.instance,
          txn: who.ghostTxn,
          partition: str(f, "partition"),
          value,
          model: { kind: "ok", detail: `appended at ${str(f, "partition")} offset ${num(f, "offset") + i}` },
        });
      });
    } else if (e.kind === "producer.end") ends.set(str(f, "txn"), { commit: f.commit === true, index: e.index });
    else if (
      e.kind === "marker.append" &&
      num(f, "marker") < ADMIN_MARKER_IDS &&
      f.txn !== null &&
      !landed.has(`${str(f, "txn")}|${str(f, "partition")}`)
    ) {
      // The first copy of a coordinator's marker that a leader applied: later steps wait for it.
      const txn = str(f, "txn");
      const who = identifyRecord(`${txn}/0`);
      landed.add(`${txn}|${str(f, "partition")}`);
      if (who)
        steps.push({
          key: e.index,
          kind: "await-marker",
          producer: who.instance,
          txn,
          partition: str(f, "partition"),
          epoch: num(f, "epoch"),
          result: str(f, "result") === "ABORT" ? "ABORT" : "COMMIT",
          model: { kind: "ok", detail: `at offset ${num(f, "offset")}` },
        });
    } else if (e.kind === "txn.complete" && f.txn !== null && f.txn !== undefined && !completed.has(str(f, "txn"))) {
      const txn = str(f, "txn");
      const who = identifyRecord(`${txn}/0`);
      completed.add(txn);
      if (who)
        steps.push({
          key: e.index,
          kind: "await-complete",
          producer: who.instance,
          txn,
          result: str(f, "state") === "CompleteAbort" ? "ABORT" : "COMMIT",
          model: { kind: "ok", detail: `${str(f, "state")} at ${e.timeMs} ms` },
        });
    } else if (e.kind === "producer.outcome") {
      const txn = str(f, "txn");
      const end = ends.get(txn);
      outcomes.add(txn);
      steps.push({
        key: e.index,
        kind: end?.commit === false ? "abort" : "commit",
        producer: e.node,
        txn,
        model: { kind: "ok", detail: `${str(f, "outcome")} (producer epoch ${num(f, "epoch")} after)` },
      });
    }
  }
  for (const [txn, end] of ends) {
    if (outcomes.has(txn)) continue;
    const who = identifyRecord(`${txn}/0`);
    steps.push({
      key: Math.max(end.index, lastSendKey.get(txn) ?? 0) + 0.5,
      kind: end.commit ? "commit" : "abort",
      producer: who?.instance ?? txn,
      txn,
      model: { kind: "unknown", detail: "the producer never learnt the outcome" },
    });
  }

  planLateMarkerCopies(trace, { producerOfPid, ends, steps, faults });
  planAdminAborts(trace, producerOfPid, steps);
  notReplayed.push(...unreplayedFaults(trace, faults));
  unsupported.push(...planClusterEvents(trace, steps));

  // A record two leaders appended (the old leader's copy truncated after a leadership move, the
  // producer's retry appended at the new one) is one send of a real producer, which retries by
  // itself: it is played once, where the copy that stayed was appended.
  const lastSend = new Map<string, number>();
  for (const st of steps)
    if (st.kind === "send") lastSend.set(st.value, Math.max(lastSend.get(st.value) ?? st.key, st.key));
  for (let i = steps.length - 1; i >= 0; i--) {
    const st = steps[i] as PlanStep;
    if (st.kind === "send" && lastSend.get(st.value) !== st.key) steps.splice(i, 1);
  }
  // A marker the model wrote where the transaction appended nothing (its partition was added, its
  // produce failed) has no real counterpart: the real producer never wrote there, so its
  // coordinator sends no marker there to wait for.
  const sent = new Set(steps.flatMap((st) => (st.kind === "send" ? [`${st.txn}|${st.partition}`] : [])));
  for (let i = steps.length - 1; i >= 0; i--) {
    const st = steps[i] as PlanStep;
    if (st.kind === "await-marker" && !sent.has(`${st.txn}|${st.partition}`)) {
      notReplayed.push(`${describeStep(st)}: the transaction appended nothing there`);
      steps.splice(i, 1);
    }
  }
  // A wait for a transaction's markers comes after its commit or abort is called, even where the
  // model's markers landed before the producer heard the answer (the EndTxn response is later).
  const endKeys = new Map<string, number>();
  for (const st of steps) if (st.kind === "commit" || st.kind === "abort") endKeys.set(st.txn, st.key);
  for (const st of steps)
    if (st.kind === "await-marker" || st.kind === "await-complete")
      st.key = Math.max(st.key, (endKeys.get(st.txn) ?? Number.NEGATIVE_INFINITY) + 0.01);
  steps.sort((a, b) => a.key - b.key);
  const rf = spec.transactionState.partitions[0]?.replicas.length ?? 1;
  return {
    scenario: run.scenario.scenario.name,
    source: run.source,
    brokers,
    controllerRelease: releases[0] as string,
    clientRelease: options.clientRelease ?? (releases[releases.length - 1] as string),
    transactionVersion: options.transactionVersion ?? run.scenario.scenario.cluster.transactionVersion,
    transactionState: {
      partitions: spec.transactionState.partitions.length,
      replicationFactor: rf,
      minInsyncReplicas: Math.min(spec.transactionState.minInsyncReplicas, rf),
      assignment: spec.transactionState.partitions.map((p) => p.replicas.map((r) => nodeId.get(r) ?? 0)),
    },
    brokerRequestTimeoutMs: options.brokerRequestTimeoutMs ?? DEFAULT_BROKER_REQUEST_TIMEOUT_MS,
    topics: spec.topics.map((t) => ({
      name: t.name,
      assignment: t.partitions.map((p) => p.replicas.map((r) => nodeId.get(r) ?? 0)),
      minInsyncReplicas: t.minInsyncReplicas,
    })),
    producers,
    steps,
    faults,
    notReplayed,
    unsupported,
    modelViolations: run.violations,
  };
}

/**
 * A marker copy is late when its coordinator re-sent the same marker to the same leader before the
 * copy got there (its request timed out or its connection closed), or another coordinator (after a
 * failover) sent the same transaction's marker there first. Each becomes a hold.
 */
function planLateMarkerCopies(
  trace: readonly TraceEvent[],
  ctx: {
    producerOfPid: Map<number, string>;
    ends: Map<string, { commit: boolean; index: number }>;
    steps: PlanStep[];
    faults: PlannedFault[];
  },
): void {
  const sends = trace.filter((e) => e.kind === "markers.send");
  const deliveredAt = new Map<string, number>();
  for (const e of trace)
    if (e.kind === "net.deliver" && e.fields.msg === "WriteTxnMarkers") {
      const k = `${e.node}|${num(e.fields, "corr")}`;
      if (!deliveredAt.has(k)) deliveredAt.set(k, e.index);
    }
  for (const s of sends) {
    const f = s.fields;
    const dest = str(f, "broker");
    const deliver = deliveredAt.get(`${dest}|${num(f, "corr")}`);
    const marker = num(f, "marker");
    const resend = num(f, "resend");
    if (deliver === undefined) {
      // A copy the model's network lost, which its coordinator re-sent: dropped, so that the real
      // coordinator re-sends it too (and a later hold of the re-sent copy counts the same copies).
      const resent = sends.some(
        (o) =>
          num(o.fields, "marker") === marker && str(o.fields, "broker") === dest && num(o.fields, "resend") > resend,
      );
      const producer = ctx.producerOfPid.get(num(f, "pid"));
      if (!resent || producer === undefined) continue;
      const txn = str(f, "txn");
      const id = `drop-${ctx.faults.length + 1}`;
      const result = str(f, "result") === "ABORT" ? "ABORT" : "COMMIT";
      ctx.faults.push({
        id,
        kind: "drop",
        broker: dest,
        coordinator: s.node,
        producer,
        result,
        nth: resend + 1,
        txn,
        story: `t=${s.timeMs}ms ${s.node} sent marker #${marker} copy ${resend + 1} (${result} for ${txn}, epoch ${num(f, "epoch")}) to ${dest}; the network lost it and the coordinator re-sent it`,
      });
      const end = ctx.ends.get(txn);
      const armKey = end !== undefined && end.index < s.index ? end.index - 0.5 : s.index - 0.5;
      ctx.steps.push({ key: armKey, kind: "arm", fault: id, model: { kind: "ok", detail: "" } });
      continue;
    }
    // Overtaken: its coordinator re-sent it, or (after a coordinator failover) the new coordinator
    // sent the same transaction's marker to the same leader, before this copy got there.
    const overtaken = sends.some(
      (o) =>
        str(o.fields, "broker") === dest &&
        o.index > s.index &&
        o.index < deliver &&
        ((num(o.fields, "marker") === marker && num(o.fields, "resend") > resend) ||
          (f.txn !== null && o.fields.txn === f.txn && o.fields.result === f.result)),
    );
    if (!overtaken) continue;
    const producer = ctx.producerOfPid.get(num(f, "pid"));
    if (producer === undefined) continue;
    const txn = str(f, "txn");
    const applied = trace.find(
      (e) =>
        e.index >= deliver &&
        e.node === dest &&
        (e.kind === "marker.append" || e.kind === "marker.rejected" || e.kind === "marker.idempotent") &&
        num(e.fields, "marker") === marker &&
        num(e.fields, "resend") === resend,
    );
    const id = `hold-${ctx.faults.length + 1}`;
    const result = str(f, "result") === "ABORT" ? "ABORT" : "COMMIT";
    ctx.faults.push({
      id,
      kind: "hold",
      broker: dest,
      coordinator: s.node,
      producer,
      result,
      nth: resend + 1,
      txn,
      story: `t=${s.timeMs}ms ${s.node} sent marker #${marker} copy ${resend + 1} (${result} for ${txn}, epoch ${num(f, "epoch")}, WriteTxnMarkers v${num(f, "v")}) to ${dest}; it arrived at t=${trace[deliver]?.timeMs}ms, after the coordinator had re-sent it`,
    });
    const end = ctx.ends.get(txn);
    const armKey = end !== undefined && end.index < s.index ? end.index - 0.5 : s.index - 0.5;
    ctx.steps.push({ key: armKey, kind: "arm", fault: id, model: { kind: "ok", detail: "" } });
    ctx.steps.push({
      key: deliver,
      kind: "release",
      fault: id,
      model:
        applied === undefined
          ? { kind: "unknown", detail: "the model's leader never judged it" }
          : applied.kind === "marker.rejected"
            ? {
                kind: "error",
                error: errorName(num(applied.fields, "error")),
                detail: `rejected at ${str(applied.fields, "partition")}`,
              }
            : applied.kind === "marker.idempotent"
              ? { kind: "ok", detail: `taken as an idempotent retry at ${str(applied.fields, "partition")}` }
              : {
                  kind: "ok",
                  detail: `appended at ${str(applied.fields, "partition")} offset ${num(applied.fields, "offset")}${num(applied.fields, "closedFrom") >= 0 ? `, closing offsets ${num(applied.fields, "closedFrom")}..${num(applied.fields, "offset")}` : ", nothing open"}`,
                },
    });
  }
}

/** Admin.abortTransaction (the operator's first attempt): where its marker reached the leader. */
function planAdminAborts(trace: readonly TraceEvent[], producerOfPid: Map<number, string>, steps: PlanStep[]): void {
  for (const e of trace) {
    if (e.kind !== "admin.abort-transaction" || num(e.fields, "attempt") !== 1) continue;
    const f = e.fields;
    const partition = str(f, "partition");
    const pid = num(f, "pid");
    const judged = trace.find(
      (j) =>
        j.index > e.index &&
        j.node === str(f, "broker") &&
        (j.kind === "marker.append" || j.kind === "marker.rejected") &&
        str(j.fields, "partition") === partition &&
        num(j.fields, "pid") === pid,
    );
    steps.push({
      key: judged?.index ?? e.index,
      kind: "admin-abort",
      partition,
      producer: producerOfPid.get(pid) ?? `producer ${pid}`,
      producerEpoch: num(f, "epoch"),
      coordinatorEpoch: num(f, "ce"),
      txn: f.txn === null ? null : str(f, "txn"),
      model:
        judged === undefined
          ? { kind: "unknown", detail: "" }
          : judged.kind === "marker.rejected"
            ? { kind: "error", error: errorName(num(judged.fields, "error")), detail: "" }
            : { kind: "ok", detail: `ABORT appended at offset ${num(judged.fields, "offset")}` },
    });
  }
}

/** Faults of the model that the plan does not replay because they changed no message's fate. */
function unreplayedFaults(trace: readonly TraceEvent[], faults: readonly PlannedFault[]): string[] {
  const counts = new Map<string, number>();
  for (const e of trace)
    if (e.kind === "net.slow" || e.kind === "net.drop" || e.kind === "net.duplicate" || e.kind === "net.overtake")
      counts.set(e.kind, (counts.get(e.kind) ?? 0) + 1);
  const out: string[] = [];
  for (const [kind, n] of counts)
    out.push(
      `${n} ${kind} event${n > 1 ? "s" : ""} of the model's network (real loopback has its own timing; ${faults.length} of them made a late marker copy, planned as a hold)`,
    );
  return out;
}

/**
 * The model's cluster events as steps, each where the model had it (see planClusterEvent); returns
 * what cannot be played (upgrades, unclean elections).
 */
function planClusterEvents(trace: readonly TraceEvent[], steps: PlanStep[]): string[] {
  const unsupported: string[] = [];
  const ctx = { started: new Set<string>(), requestedLevel: null as number | null };
  for (const e of trace) {
    const step = planClusterEvent(e, ctx, unsupported);
    if (step) steps.push({ key: e.index, ...step } as PlanStep);
  }
  return unsupported;
}

/** A step without its key (Omit over each member of the union). */
type EventStep = PlanStep extends infer S ? (S extends PlanStep ? Omit<S, "key"> : never) : never;

/**
 * One trace event as a cluster event step, or null. The controller's leader changes: an operator's
 * move (`reassign`) and the periodic preferred-leader election (`preferred`) are asked of the real
 * controller (elect-leader); the changes a broker's shutdown, fencing or return makes, the real
 * controller makes by itself (await-leader, after the step that stopped or started the broker).
 * A controlled shutdown is asked where the model's controller heard of it (the stop follows by
 * itself), a crash is a kill -9 where the model's broker stopped, a restart where it started again.
 */
function planClusterEvent(
  e: TraceEvent,
  ctx: { started: Set<string>; requestedLevel: number | null },
  unsupported: string[],
): EventStep | null {
  const f = e.fields;
  switch (e.kind) {
    case "controller.leader": {
      const partition = str(f, "partition");
      const leader = f.leader === null ? null : str(f, "leader");
      const cause = str(f, "cause");
      const model: PlanStep["model"] = {
        kind: "ok",
        detail: `${leader ?? "no leader"} at leader epoch ${num(f, "leaderEpoch")}`,
      };
      if (cause === "unclean") {
        unsupported.push(`t=${e.timeMs}ms unclean election of ${leader} for ${partition}`);
        return null;
      }
      if ((cause === "reassign" || cause === "preferred") && leader !== null)
        return { kind: "elect-leader", partition, broker: leader, leaderEpoch: num(f, "leaderEpoch"), cause, model };
      return { kind: "await-leader", partition, broker: leader, leaderEpoch: num(f, "leaderEpoch"), cause, model };
    }
    case "broker.controlled-shutdown":
      return { kind: "shutdown-broker", broker: str(f, "broker"), model: { kind: "ok", detail: "" } };
    case "broker.stop":
      // A controlled shutdown's stop follows its request (above); a restart's stop is the restart.
      return str(f, "reason") === "crash"
        ? { kind: "kill-broker", broker: e.node, model: { kind: "ok", detail: "" } }
        : null;
    case "broker.start":
      if (!ctx.started.has(e.node)) {
        ctx.started.add(e.node);
        return null;
      }
      return { kind: "restart-broker", broker: e.node, model: { kind: "ok", detail: `on ${str(f, "release")}` } };
    case "broker.upgrade":
      unsupported.push(
        `t=${e.timeMs}ms ${e.node} upgraded from ${str(f, "from")} to ${str(f, "to")} (played as a restart on its release)`,
      );
      return null;
    case "fault.feature-update":
      ctx.requestedLevel = num(f, "level");
      return null;
    case "controller.features": {
      // A refused update names the level still finalized; the level asked is the operator's.
      const error = num(f, "errorCode");
      return {
        kind: "update-feature",
        feature: "transaction.version",
        level: ctx.requestedLevel ?? num(f, "transactionVersion"),
        model:
          error === 0
            ? { kind: "ok", detail: `finalized at metadata offset ${num(f, "epoch")}` }
            : { kind: "error", error: errorName(error), detail: str(f, "reason") },
      };
    }
    default:
      return null;
  }
}
