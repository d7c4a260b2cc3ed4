import { filterReadCommitted } from "../kafka/client/read-committed-consumer.js";
import { type ClientResult, ScriptedProducer } from "../kafka/client/scripted-producer.js";
import type { Cluster } from "../kafka/cluster.js";
import { Errors, errorCode, errorName } from "../kafka/common/errors.js";
import type { KafkaRequest, KafkaResponse } from "../kafka/protocol.js";
import { encodeWriteTxnMarkersRequest } from "../kafka/wire/write-txn-markers.js";
import type { GhostLedger } from "../oracle/ghost-ledger.js";
import { at } from "../oracle/format.js";
import type { Violation } from "../oracle/violation.js";
import { ConnectionPool, type HeldMessage, type InterceptedMessage, type Interceptor } from "../sim/network.js";
import type { Simulation, StopReason } from "../sim/simulation.js";
import { SCRIPT_NODE_NAMES } from "./script-checks.js";
import type { ScriptRunEvents } from "./script-events.js";
import {
  describeMarkerOutcomes,
  noResponse,
  type Observation,
  observeResponse,
  transactionalIdsOf,
  writeTxnMarkersVersionOf,
} from "./script-responses.js";
import type { MarkerSpec, RequestBody, ResponseExpect, Script, ScriptStep } from "./script-schema.js";

/** One executed step of a script, for the step log, reports and the trace. */
export interface StepRecord {
  /** 1-based position in the script. */
  index: number;
  action: string;
  note: string | null;
  startMs: number;
  endMs: number;
  outcome: string;
  ok: boolean;
  /** Why the step failed (empty when ok). */
  problems: string[];
}

export interface ScriptRun {
  steps: StepRecord[];
  /** Every step ran and had its expected outcome. */
  completed: boolean;
  stop: StopReason;
}

/** Ghost marker ids of harness-sent markers start here (the coordinators count from 1). */
const HARNESS_MARKER_ID_BASE = 1_000_000_000;

/** A step waits in phases: each yields a condition (and maybe its own time bound) and learns whether it held. */
type Wait = { until: () => boolean; forMs?: number };
type StepRun = Generator<Wait, Observation, boolean>;

interface HoldRule {
  name: string;
  api: string;
  from: string;
  to: string;
  direction: "request" | "response";
  transactionalId: string | undefined;
  held: HeldMessage<KafkaRequest, KafkaResponse> | null;
}

/** A response the driver is waiting for: the next one on (connection, correlation id). */
interface ResponseWatch {
  connectionId: number;
  correlationId: number;
  response: KafkaResponse | null;
}

const immediately: Wait = { until: () => true };

/**
 * Runs a scripted scenario against a Cluster: each step acts on the model (client operations,
 * held messages, failovers, upgrades, direct requests), waits in virtual time for its outcome, and
 * compares it with the step's expectation. The first step that does not have its expected outcome
 * ends the script with a step-mismatch; the oracle keeps checking everything as usual.
 */
export class ScriptDriver implements Interceptor<KafkaRequest, KafkaResponse> {
  private readonly producers = new Map<string, ScriptedProducer>();
  private readonly holds = new Map<string, HoldRule>();
  private readonly watches: ResponseWatch[] = [];
  private catching: HoldRule | null = null;
  private readonly harness: ConnectionPool<KafkaRequest, KafkaResponse>;
  private readonly reader: ConnectionPool<KafkaRequest, KafkaResponse>;
  private nextHarnessMarkerId = HARNESS_MARKER_ID_BASE;
  private nextHarnessCorrelationId = 1;
  private readonly records: StepRecord[] = [];

  constructor(
    private readonly cluster: Cluster,
    private readonly ledger: GhostLedger,
    private readonly script: Script,
    /** Polled between events: true ends the script at once (a shrinker stopping at its violation). */
    private readonly abort: () => boolean = () => false,
  ) {
    for (const p of script.producers) {
      this.producers.set(
        p.name,
        new ScriptedProducer(cluster.ctx, {
          name: p.name,
          transactionalId: p.transactionalId,
          transactionVersion: p.transactionVersion,
          transactionTimeoutMs: p.transactionTimeoutMs,
          requestTimeoutMs: p.requestTimeoutMs,
        }),
      );
    }
    this.harness = new ConnectionPool(cluster.net, SCRIPT_NODE_NAMES.harness);
    this.reader = new ConnectionPool(cluster.net, SCRIPT_NODE_NAMES.reader);
  }

  private get sim(): Simulation<ScriptRunEvents> {
    return this.cluster.sim;
  }

  /** Elect the coordinator, run every step, then the quiet period (when all steps passed). */
  run(): ScriptRun {
    const { sim, cluster } = this;
    cluster.net.setInterceptor(this);
    cluster.electFirstCoordinator();
    const loaded = this.runUntil({ until: () => cluster.servingCoordinator !== null }, this.script.stepTimeoutMs);
    if (loaded !== "done") return this.finish(false, loaded === "timeout" ? "max-time" : loaded);
    for (const [i, step] of this.script.steps.entries()) {
      const record = this.runStep(i + 1, step);
      if (record === "max-events" || record === "stopped") return this.finish(false, record);
      if (!record.ok) {
        this.ledger.report(this.mismatch(record));
        return this.finish(false, "stopped");
      }
    }
    // Holds that never caught anything stop catching; messages still held are never delivered.
    cluster.net.setInterceptor(null);
    sim.emit(SCRIPT_NODE_NAMES.script, "quiet-period", { untilMs: sim.nowMs + cluster.spec.bounds.quietPeriodMs });
    const stop = sim.run(
      { maxEvents: cluster.spec.bounds.maxEvents, maxTimeMs: sim.nowMs + cluster.spec.bounds.quietPeriodMs },
      this.abort,
    );
    return { steps: this.records, completed: stop !== "max-events" && stop !== "stopped", stop };
  }

  private finish(completed: boolean, stop: StopReason): ScriptRun {
    this.cluster.net.setInterceptor(null);
    return { steps: this.records, completed, stop };
  }

  /** Run the simulation until `wait.until` holds or time runs out (or the run is aborted). */
  private runUntil(wait: Wait, withinMs: number): "done" | "timeout" | "max-events" | "stopped" {
    const limitMs = Math.max(0, wait.forMs ?? withinMs);
    const stop = this.sim.run(
      { maxEvents: this.cluster.spec.bounds.maxEvents, maxTimeMs: this.sim.nowMs + limitMs },
      () => wait.until() || this.abort(),
    );
    if (stop === "max-events") return "max-events";
    if (this.abort()) return "stopped";
    return wait.until() ? "done" : "timeout";
  }

  private runStep(index: number, step: ScriptStep): StepRecord | "max-events" | "stopped" {
    const action = describeStep(step);
    const startMs = this.sim.nowMs;
    this.sim.emit(SCRIPT_NODE_NAMES.script, "script.step", { step: index, do: step.do, action });
    const timeoutMs = ("timeoutMs" in step ? step.timeoutMs : undefined) ?? this.script.stepTimeoutMs;
    const deadlineMs = startMs + timeoutMs;
    const gen = this.execute(step);
    let next = gen.next();
    while (!next.done) {
      const wait = next.value;
      const result =
        wait.forMs !== undefined ? this.runUntil(wait, wait.forMs) : this.runUntil(wait, deadlineMs - this.sim.nowMs);
      if (result === "max-events" || result === "stopped") return result;
      next = gen.next(result === "done");
    }
    const observation = next.value;
    const problems = [...observation.problems, ...this.expectationProblems(step, observation)];
    const record: StepRecord = {
      index,
      action,
      note: step.note ?? null,
      startMs,
      endMs: this.sim.nowMs,
      outcome: observation.outcome,
      ok: problems.length === 0,
      problems,
    };
    this.records.push(record);
    this.sim.emit(SCRIPT_NODE_NAMES.script, "script.outcome", { step: index, ok: record.ok, outcome: record.outcome });
    return record;
  }

  private mismatch(failed: StepRecord): Violation {
    const lines = this.records.map(
      (r) => `${at(r.startMs)} step ${r.index} ${r.action}: ${r.outcome}${r.ok ? "" : "  <- MISMATCH"}`,
    );
    for (const p of failed.problems) lines.push(`${" ".repeat(10)} ${p}`);
    return {
      kind: "step-mismatch",
      summary: `step ${failed.index} (${failed.action}): ${failed.problems[0] ?? "failed"}`,
      explanation: lines,
      atMs: failed.endMs,
    };
  }

  // ------------------------------------------------------------------ expectations

  private expectationProblems(step: ScriptStep, seen: Observation): string[] {
    if (!("expect" in step) || step.expect === undefined) return [];
    switch (step.do) {
      case "initTransactions":
      case "send":
      case "commitTransaction":
      case "abortTransaction":
      case "release":
      case "duplicate":
      case "request":
        return this.responseProblems(step.expect, seen);
      default:
        return []; // checks compare inside the step
    }
  }

  private responseProblems(expect: ResponseExpect, seen: Observation): string[] {
    const problems: string[] = [];
    if (expect.error !== undefined) {
      const wanted = errorCode(expect.error) as number;
      const wrong = seen.errors.filter((e) => e !== wanted);
      if (seen.errors.length === 0) problems.push(`expected error ${expect.error}, found no response`);
      else if (wrong.length > 0)
        problems.push(`expected error ${expect.error}, found ${[...new Set(seen.errors)].map(errorName).join(", ")}`);
    }
    if (expect.producerId !== undefined && seen.producerId !== expect.producerId)
      problems.push(`expected producerId ${expect.producerId}, found ${seen.producerId ?? "none"}`);
    if (expect.producerEpoch !== undefined && seen.producerEpoch !== expect.producerEpoch)
      problems.push(`expected producerEpoch ${expect.producerEpoch}, found ${seen.producerEpoch ?? "none"}`);
    if (expect.state !== undefined) {
      const found =
        seen.transactionalId !== undefined
          ? this.coordinatorState(seen.transactionalId)
          : { state: "unknown", shown: "unknown (the step names no transactional.id)" };
      if (found.state !== expect.state)
        problems.push(
          `expected ${seen.transactionalId ?? "the transaction"} in ${expect.state} at the coordinator, found ${found.shown}`,
        );
    }
    return problems;
  }

  /** The coordinator's state of a transactional.id, as its owner sees it now (a pending transition is shown, not compared). */
  private coordinatorState(transactionalId: string): { state: string; shown: string } {
    const coordinator = this.cluster.servingCoordinator;
    if (!coordinator) return { state: "unknown", shown: "unknown (the coordinator is loading)" };
    const m = coordinator.describe(transactionalId);
    if (!m) return { state: "absent", shown: "absent" };
    return { state: m.state, shown: m.pendingState ? `${m.state} (pending ${m.pendingState})` : m.state };
  }

  // ------------------------------------------------------------------ interception

  inspect(m: InterceptedMessage<KafkaRequest, KafkaResponse>): boolean {
    if (m.direction === "response") {
      for (const w of this.watches)
        if (w.response === null && w.connectionId === m.connectionId && w.correlationId === m.correlationId)
          w.response = m.body as KafkaResponse;
    }
    for (const rule of this.holds.values()) {
      if (rule.held !== null || !this.matches(rule, m)) continue;
      this.catching = rule;
      return true;
    }
    return false;
  }

  onHeld(held: HeldMessage<KafkaRequest, KafkaResponse>): void {
    if (!this.catching) throw new Error("a message was held without a rule");
    this.catching.held = held;
    this.catching = null;
  }

  private resolve(node: string): string {
    return node === SCRIPT_NODE_NAMES.coordinator ? this.cluster.log.leader : node;
  }

  private matches(rule: HoldRule, m: InterceptedMessage<KafkaRequest, KafkaResponse>): boolean {
    if (m.label !== rule.api || m.direction !== rule.direction) return false;
    if (m.from !== this.resolve(rule.from) || m.to !== this.resolve(rule.to)) return false;
    return rule.transactionalId === undefined || transactionalIdsOf(m.body).includes(rule.transactionalId);
  }

  private watch(connectionId: number, correlationId: number): ResponseWatch {
    const w: ResponseWatch = { connectionId, correlationId, response: null };
    this.watches.push(w);
    return w;
  }

  private unwatch(w: ResponseWatch): void {
    const i = this.watches.indexOf(w);
    if (i >= 0) this.watches.splice(i, 1);
  }

  // ------------------------------------------------------------------ steps

  private execute(step: ScriptStep): StepRun {
    switch (step.do) {
      case "initTransactions":
        return this.clientOp(step.producer, (p, done) => p.initTransactions(done));
      case "beginTransaction":
        return this.begin(step.producer);
      case "send":
        return this.clientOp(step.producer, (p, done) => p.send(step.partition, step.value, done), true);
      case "commitTransaction":
      case "abortTransaction":
        return this.clientOp(step.producer, (p, done) => p.endTransaction(step.do === "commitTransaction", done), true);
      case "hold":
        return this.hold(step);
      case "release":
      case "duplicate":
        return this.deliver(step.held, step.do === "duplicate");
      case "drop":
        return this.drop(step.held);
      case "failover":
        return this.failover(step.expect);
      case "upgrade":
        return this.simple(() => {
          this.cluster.upgrade(step.node, step.release);
          return `${step.node} restarted on ${step.release}; connections to it are closed`;
        });
      case "stall":
        return this.simple(() => {
          this.cluster.net.stall(step.node, this.sim.nowMs + step.ms);
          return `${step.node} takes no message until t=${this.sim.nowMs + step.ms}ms`;
        });
      case "request":
        return this.request(step.to, step.body);
      case "wait":
        return this.wait(step.ms);
      case "waitFor":
        return this.waitFor(step);
      case "checkTransaction":
        return this.checkTransaction(step);
      case "checkPartition":
        return this.checkPartition(step);
      case "read":
        return this.read(step);
    }
  }

  private producer(name: string): ScriptedProducer {
    const p = this.producers.get(name);
    if (!p) throw new Error(`unknown script producer ${name}`);
    return p;
  }

  // biome-ignore lint/correctness/useYield: a step that completes at once still runs as a generator
  private *simple(act: () => string): StepRun {
    return { outcome: act(), errors: [], problems: [] };
  }

  private *clientOp(
    name: string,
    op: (p: ScriptedProducer, done: (r: ClientResult) => void) => void,
    needsTxn = false,
  ): StepRun {
    const p = this.producer(name);
    const transactionalId = p.config.transactionalId;
    if (needsTxn && p.currentTxn === null) {
      return {
        outcome: "refused by the client",
        errors: [],
        transactionalId,
        problems: [
          `${name} has no open transaction (beginTransaction first); KafkaProducer would throw IllegalStateException`,
        ],
      };
    }
    let result: ClientResult | null = null;
    op(p, (r) => {
      result = r;
    });
    yield { until: () => result !== null };
    if (result === null) return noResponse(`${name} got no answer in time`, transactionalId);
    const r = result as ClientResult;
    const offset = r.baseOffset !== null ? ` at offset ${r.baseOffset}` : "";
    return {
      outcome: `${r.api} ${errorName(r.errorCode)}${offset}; ${name} has producerId ${r.producerId}, epoch ${r.producerEpoch}`,
      errors: [r.errorCode],
      producerId: r.producerId,
      producerEpoch: r.producerEpoch,
      transactionalId,
      problems: [],
    };
  }

  private *begin(name: string): StepRun {
    const p = this.producer(name);
    if (p.currentTxn !== null) {
      return {
        outcome: "refused by the client",
        errors: [],
        problems: [`${name} already has ${p.currentTxn} open; KafkaProducer would throw IllegalStateException`],
      };
    }
    const txn = p.beginTransaction();
    yield immediately;
    return { outcome: `${txn} begun (producerId ${p.producerId}, epoch ${p.producerEpoch})`, errors: [], problems: [] };
  }

  private *hold(step: Extract<ScriptStep, { do: "hold" }>): StepRun {
    this.holds.set(step.as, {
      name: step.as,
      api: step.api,
      from: step.from,
      to: step.to,
      direction: step.direction,
      transactionalId: step.transactionalId,
      held: null,
    });
    yield immediately;
    return {
      outcome: `holding the next ${step.api} ${step.direction} ${step.from} -> ${step.to}${step.transactionalId ? ` for ${step.transactionalId}` : ""}`,
      errors: [],
      problems: [],
    };
  }

  /** release / duplicate: deliver the held message (a copy, for duplicate) and wait for its answer. */
  private *deliver(name: string, keepHeld: boolean): StepRun {
    const rule = this.holds.get(name) as HoldRule;
    if (rule.held === null) {
      const caught = yield { until: () => rule.held !== null };
      if (!caught)
        return {
          outcome: "nothing was held",
          errors: [],
          problems: [`expected a ${rule.api} ${rule.from} -> ${rule.to} to have been held as ${name}, found none sent`],
        };
    }
    const held = rule.held as HeldMessage<KafkaRequest, KafkaResponse>;
    if (held.state !== "held")
      return {
        outcome: `already ${held.state}`,
        errors: [],
        problems: [`expected ${name} to be still held, found it ${held.state}`],
      };
    const m = held.message;
    const transactionalId = transactionalIdsOf(m.body)[0];
    const releasedAtMs = this.sim.nowMs;
    const copy = keepHeld ? `a copy of ${name}` : name;
    if (m.direction === "response") {
      this.cluster.net.deliverHeld(held, { keepHeld });
      yield immediately;
      const seen = observeResponse(m.body as KafkaResponse, null, transactionalId);
      return { ...seen, outcome: `delivered ${copy} (held since t=${held.heldAtMs}ms) to ${m.to}: ${seen.outcome}` };
    }
    const watch = this.watch(m.connectionId, m.correlationId);
    const refusedBefore = this.ledger.refused.length;
    this.cluster.net.deliverHeld(held, { keepHeld });
    const answered = yield { until: () => watch.response !== null || this.ledger.refused.length > refusedBefore };
    this.unwatch(watch);
    const body = m.body as KafkaRequest;
    const markerDetail = body.api === "WriteTxnMarkers" ? this.markerOutcomesOf(m.correlationId, releasedAtMs) : "";
    const prefix = `delivered ${copy} (held since t=${held.heldAtMs}ms) to ${m.to}`;
    if (!answered)
      return {
        ...noResponse(`${prefix}; nothing came back`, transactionalId),
        outcome: `${prefix}; no response${markerDetail ? `: ${markerDetail}` : ""}`,
      };
    if (watch.response === null) {
      const refusal = this.ledger.refused[this.ledger.refused.length - 1];
      return {
        outcome: `${prefix}; ${m.to} closed the connection: ${refusal?.reason ?? "refused"}`,
        errors: [Errors.NETWORK_EXCEPTION],
        problems: [],
        ...(transactionalId ? { transactionalId } : {}),
      };
    }
    const version = body.api === "WriteTxnMarkers" ? writeTxnMarkersVersionOf(body.bytes) : null;
    const seen = observeResponse(watch.response, version, transactionalId);
    return { ...seen, outcome: `${prefix}: ${markerDetail || seen.outcome}` };
  }

  private markerOutcomesOf(correlationId: number, sinceMs: number): string {
    const outcomes = [...this.ledger.markerOutcomes.values()]
      .flat()
      .filter((o) => o.correlationId === correlationId && o.atMs >= sinceMs);
    return outcomes.length > 0 ? describeMarkerOutcomes(outcomes) : "";
  }

  private *drop(name: string): StepRun {
    const rule = this.holds.get(name) as HoldRule;
    yield immediately;
    if (rule.held === null || rule.held.state !== "held") {
      return {
        outcome: "nothing to drop",
        errors: [],
        problems: [`expected ${name} to be held, found ${rule.held ? rule.held.state : "nothing held yet"}`],
      };
    }
    this.cluster.net.dropHeld(rule.held);
    return {
      outcome: `dropped ${name} (${rule.held.message.label} ${rule.held.message.from} -> ${rule.held.message.to})`,
      errors: [],
      problems: [],
    };
  }

  private *failover(
    expect: { coordinator?: string | undefined; coordinatorEpoch?: number | undefined } | undefined,
  ): StepRun {
    const before = this.cluster.log.leader;
    this.cluster.failover();
    const loaded = yield { until: () => this.cluster.servingCoordinator !== null };
    const { leader, epoch } = this.cluster.log;
    const problems: string[] = [];
    if (!loaded) problems.push(`expected ${leader} to load __transaction_state in time, found it still loading`);
    if (expect?.coordinator !== undefined && expect.coordinator !== leader)
      problems.push(`expected coordinator ${expect.coordinator}, found ${leader}`);
    if (expect?.coordinatorEpoch !== undefined && expect.coordinatorEpoch !== epoch)
      problems.push(`expected coordinatorEpoch ${expect.coordinatorEpoch}, found ${epoch}`);
    return {
      outcome: `__transaction_state moved from ${before} to ${leader} (coordinatorEpoch ${epoch})${loaded ? ", loaded" : ""}`,
      errors: [],
      problems,
    };
  }

  private *request(to: string, body: RequestBody): StepRun {
    const node = this.resolve(to);
    const { request, version, transactionalId } = this.buildRequest(body);
    let result: KafkaResponse | null = null;
    let disconnected: string | null = null;
    const outcomesBefore = this.sim.nowMs;
    const correlationId = this.cluster.net.request(this.harness.to(node), request, this.script.stepTimeoutMs, (r) => {
      if (r.kind === "response") result = r.body;
      else disconnected = r.reason;
    });
    yield { until: () => result !== null || disconnected !== null };
    const prefix = `${describeRequest(body)} -> ${node}`;
    const markerDetail = body.api === "WriteTxnMarkers" ? this.markerOutcomesOf(correlationId, outcomesBefore) : "";
    if (result === null) {
      if (disconnected !== null)
        return {
          outcome: `${prefix}: disconnected (${disconnected})`,
          errors: [Errors.NETWORK_EXCEPTION],
          problems: [],
          ...(transactionalId ? { transactionalId } : {}),
        };
      return noResponse(`${prefix}: no response`, transactionalId);
    }
    const seen = observeResponse(result, version, transactionalId);
    return { ...seen, outcome: `${prefix}: ${markerDetail || seen.outcome}` };
  }

  private buildRequest(body: RequestBody): {
    request: KafkaRequest;
    version: number | null;
    transactionalId: string | undefined;
  } {
    switch (body.api) {
      case "WriteTxnMarkers": {
        const markers = body.markers.map((m) => ({
          producerId: m.producerId,
          producerEpoch: m.producerEpoch,
          transactionResult: m.result === "COMMIT",
          topics: groupByTopic(m.partitions),
          coordinatorEpoch: m.coordinatorEpoch,
          transactionVersion: m.transactionVersion,
        }));
        const bytes = encodeWriteTxnMarkersRequest(
          {
            apiVersion: body.version,
            correlationId: this.nextHarnessCorrelationId++,
            clientId: SCRIPT_NODE_NAMES.harness,
          },
          markers,
        );
        const ghosts = body.markers.map((m: MarkerSpec) => ({
          ghostTxn: m.forTransaction ?? null,
          transactionalId: "(harness)",
          markerId: this.nextHarnessMarkerId++,
          resend: 0,
        }));
        return {
          request: { api: "WriteTxnMarkers", bytes, ghosts },
          version: body.version,
          transactionalId: undefined,
        };
      }
      case "InitProducerId":
        return { request: { ...body }, version: null, transactionalId: body.transactionalId };
      case "AddPartitionsToTxn":
        return {
          request: { ...body, verifyOnly: false, ghostTxn: null },
          version: null,
          transactionalId: body.transactionalId,
        };
      case "EndTxn":
        return {
          request: {
            api: "EndTxn",
            version: body.version,
            transactionalId: body.transactionalId,
            producerId: body.producerId,
            producerEpoch: body.producerEpoch,
            committed: body.result === "COMMIT",
            ghostTxn: null,
          },
          version: null,
          transactionalId: body.transactionalId,
        };
      case "Produce":
        return {
          request: { ...body, ghostTxn: null },
          version: null,
          transactionalId: body.transactionalId ?? undefined,
        };
    }
  }

  private *wait(ms: number): StepRun {
    const untilMs = this.sim.nowMs + ms;
    yield { until: () => false, forMs: ms };
    return { outcome: `waited until t=${untilMs}ms`, errors: [], problems: [] };
  }

  private *waitFor(step: Extract<ScriptStep, { do: "waitFor" }>): StepRun {
    if (step.held !== undefined) {
      const rule = this.holds.get(step.held) as HoldRule;
      const caught = yield { until: () => rule.held !== null };
      const m = rule.held?.message;
      return caught && m
        ? {
            outcome: `${step.held} holds ${m.label} ${m.from} -> ${m.to} since t=${rule.held?.heldAtMs}ms`,
            errors: [],
            problems: [],
          }
        : {
            outcome: "nothing held",
            errors: [],
            problems: [
              `expected a ${rule.api} ${rule.from} -> ${rule.to} to be held as ${step.held}, found none sent in time`,
            ],
          };
    }
    const id = step.transactionalId as string;
    const state = step.state as string;
    const reached = yield { until: () => this.coordinatorState(id).shown === state };
    const found = this.coordinatorState(id).shown;
    return reached
      ? { outcome: `${id} is ${state}`, errors: [], problems: [] }
      : {
          outcome: `${id} is ${found}`,
          errors: [],
          problems: [`expected ${id} to reach ${state} (nothing pending) in time, found ${found}`],
        };
  }

  private *checkTransaction(step: Extract<ScriptStep, { do: "checkTransaction" }>): StepRun {
    yield immediately;
    const coordinator = this.cluster.servingCoordinator;
    const m = coordinator?.describe(step.transactionalId) ?? null;
    if (!m)
      return {
        outcome: `${step.transactionalId} is unknown to the coordinator`,
        errors: [],
        problems: [
          `expected ${step.transactionalId} at the coordinator, found ${coordinator ? "none" : "the coordinator loading"}`,
        ],
      };
    const partitions = [...m.topicPartitions].sort();
    const state = this.coordinatorState(step.transactionalId);
    const seen = { state: state.state, producerId: m.producerId, producerEpoch: m.producerEpoch, partitions };
    const e = step.expect;
    const problems = compareFields(
      {
        state: e.state,
        producerId: e.producerId,
        producerEpoch: e.producerEpoch,
        partitions: e.partitions ? [...e.partitions].sort() : undefined,
      },
      seen,
    );
    return {
      outcome: `${step.transactionalId}: ${state.shown}, producerId ${m.producerId}, epoch ${m.producerEpoch}, partitions [${partitions.join(", ")}] at ${coordinator?.id}`,
      errors: [],
      problems,
    };
  }

  private *checkPartition(step: Extract<ScriptStep, { do: "checkPartition" }>): StepRun {
    yield immediately;
    const leader = this.cluster.ctx.metadata.leaderOf(step.partition) as string;
    const log = this.cluster.brokers.get(leader)?.logs.get(step.partition);
    if (!log) throw new Error(`${leader} does not hold ${step.partition}`);
    const p = step.producer !== undefined ? this.producer(step.producer) : null;
    const entry = p ? log.producers.get(p.producerId) : undefined;
    const seen = {
      lastStableOffset: log.lastStableOffset(),
      highWatermark: log.highWatermark,
      logEndOffset: log.logEndOffset,
      openTransaction: entry ? entry.currentTxnFirstOffset !== null : false,
      producerEpoch: entry ? entry.producerEpoch : -1,
    };
    const who = p
      ? `; ${step.producer} (producerId ${p.producerId}): epoch ${seen.producerEpoch}, ${seen.openTransaction ? `transaction open from offset ${entry?.currentTxnFirstOffset}` : "no open transaction"}`
      : "";
    return {
      outcome: `${step.partition} on ${leader}: LSO ${seen.lastStableOffset}, high watermark ${seen.highWatermark}, log end ${seen.logEndOffset}${who}`,
      errors: [],
      problems: compareFields(step.expect, seen),
    };
  }

  private *read(step: Extract<ScriptStep, { do: "read" }>): StepRun {
    const leader = this.cluster.ctx.metadata.leaderOf(step.partition) as string;
    let result: KafkaResponse | null = null;
    this.cluster.net.request(
      this.reader.to(leader),
      { api: "Fetch", partition: step.partition, fetchOffset: 0, isolation: step.isolation, maxBatches: 1_000_000 },
      this.script.stepTimeoutMs,
      (r) => {
        if (r.kind === "response") result = r.body;
      },
    );
    yield { until: () => result !== null };
    const body = result as KafkaResponse | null;
    if (body === null || body.api !== "Fetch") return noResponse(`Fetch ${step.partition} from ${leader}`);
    if (body.errorCode !== Errors.NONE)
      return {
        outcome: `Fetch ${errorName(body.errorCode)}`,
        errors: [body.errorCode],
        problems: [`expected to read ${step.partition}, found ${errorName(body.errorCode)}`],
      };
    const values = filterReadCommitted(step.partition, body.batches, body.abortedTransactions).map((r) => r.value);
    const problems = step.expect ? compareFields({ values: step.expect.values }, { values }) : [];
    const bound =
      step.isolation === "READ_COMMITTED" ? `LSO ${body.lastStableOffset}` : `high watermark ${body.highWatermark}`;
    return {
      outcome: `${step.isolation} read of ${step.partition} up to ${bound}: [${values.join(", ")}]`,
      errors: [],
      problems,
    };
  }
}

/** Compare expected fields (undefined = not expected) with what was seen; one problem per difference. */
function compareFields(expected: Record<string, unknown>, seen: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    if (want === undefined) continue;
    const got = seen[key];
    if (JSON.stringify(want) !== JSON.stringify(got))
      problems.push(`expected ${key} ${JSON.stringify(want)}, found ${JSON.stringify(got)}`);
  }
  return problems;
}

function groupByTopic(partitions: readonly string[]): { name: string; partitionIndexes: number[] }[] {
  const topics = new Map<string, number[]>();
  for (const p of partitions) {
    const dash = p.lastIndexOf("-");
    const list = topics.get(p.slice(0, dash)) ?? [];
    list.push(Number(p.slice(dash + 1)));
    topics.set(p.slice(0, dash), list);
  }
  return [...topics].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}

function describeRequest(body: RequestBody): string {
  switch (body.api) {
    case "WriteTxnMarkers":
      return `WriteTxnMarkers v${body.version} [${body.markers.map((m) => `${m.result} producerId ${m.producerId} epoch ${m.producerEpoch} coordinatorEpoch ${m.coordinatorEpoch} TV${m.transactionVersion} ${m.partitions.join(",")}`).join("; ")}]`;
    case "EndTxn":
      return `EndTxn v${body.version} ${body.result} ${body.transactionalId} producerId ${body.producerId} epoch ${body.producerEpoch}`;
    case "InitProducerId":
      return `InitProducerId ${body.transactionalId} producerId ${body.producerId} epoch ${body.producerEpoch}`;
    case "AddPartitionsToTxn":
      return `AddPartitionsToTxn v${body.version} ${body.transactionalId} producerId ${body.producerId} epoch ${body.producerEpoch} [${body.partitions.join(", ")}]`;
    case "Produce":
      return `Produce v${body.version} ${body.partition} producerId ${body.producerId} epoch ${body.producerEpoch} seq ${body.baseSequence}`;
  }
}

/** A step as one short line ("commitTransaction p0", "release stale-copy"). */
export function describeStep(step: ScriptStep): string {
  switch (step.do) {
    case "initTransactions":
    case "beginTransaction":
    case "commitTransaction":
    case "abortTransaction":
      return `${step.do} ${step.producer}`;
    case "send":
      return `send ${step.producer} ${step.partition} "${step.value}"`;
    case "hold":
      return `hold ${step.api} ${step.from} -> ${step.to} as ${step.as}`;
    case "release":
    case "duplicate":
    case "drop":
      return `${step.do} ${step.held}`;
    case "failover":
      return "failover";
    case "upgrade":
      return `upgrade ${step.node} to ${step.release}`;
    case "stall":
      return `stall ${step.node} ${step.ms}ms`;
    case "request":
      return `request ${step.body.api} -> ${step.to}`;
    case "wait":
      return `wait ${step.ms}ms`;
    case "waitFor":
      return step.held !== undefined ? `waitFor ${step.held} held` : `waitFor ${step.transactionalId} ${step.state}`;
    case "checkTransaction":
      return `checkTransaction ${step.transactionalId}`;
    case "checkPartition":
      return `checkPartition ${step.partition}`;
    case "read":
      return `read ${step.partition}`;
  }
}

/** Run a script against a built cluster (see ScriptDriver). */
export function runScript(cluster: Cluster, ledger: GhostLedger, script: Script, abort?: () => boolean): ScriptRun {
  return new ScriptDriver(cluster, ledger, script, abort).run();
}
