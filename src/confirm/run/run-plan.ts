import { readFileSync } from "node:fs";
import { errorName } from "../../kafka/common/errors.js";
import { transactionStatePartitionFor } from "../../kafka/coordinator/transaction-partitioning.js";
import { compareReleases } from "../cluster/kafka-jars.js";
import { RealCluster, sleep } from "../cluster/real-cluster.js";
import { DriverProcess, type DriverReply } from "../driver/driver-process.js";
import { dumpLogSegments, segmentFiles } from "../history/dump-log.js";
import type { ConfirmPlan, ModelOutcome, PlanStep } from "../plan/plan.js";
import { describeStep, isClusterEvent } from "../plan/plan.js";
import { ProxySet } from "../proxy/proxy-set.js";
import type { RealFault, RealRun, StepRecord } from "./real-run.js";

export interface RunPlanOptions {
  /** Where the cluster's nodes keep their data and logs (kept with the result). */
  dir: string;
  /** A step that takes longer stops the plan (the rest is skipped). */
  stepTimeoutMs?: number;
  /** How long a release waits for its hold to fire. */
  holdWaitMs?: number;
  /** Progress lines (stderr in the CLI). */
  log?: (line: string) => void;
}

const STEP_TIMEOUT_MS = 45_000;
/** A broker's restart: a JVM start on two busy cores, then its registration. */
const RESTART_TIMEOUT_MS = 120_000;
/** How long a leadership change may take to show (a crashed broker is fenced after broker.session.timeout.ms). */
const LEADER_WAIT_MS = 30_000;
const HOLD_WAIT_MS = 15_000;

class StepTimeout extends Error {}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new StepTimeout(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

function outcomeOf(reply: DriverReply, ok: string): ModelOutcome {
  return reply.error === "NONE"
    ? { kind: "ok", detail: ok }
    : { kind: "error", error: reply.error, detail: `${reply.exception ?? ""}: ${reply.message ?? ""}` };
}

/** "Kafka version: 4.2.1" from a broker's log (AppInfoParser at start-up). */
function kafkaVersionIn(logFile: string): string {
  try {
    return /Kafka version: (\S+)/.exec(readFileSync(logFile, "utf8"))?.[1] ?? "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * Play a plan on a real cluster: start it (proxies on every INTERNAL listener), create its topics
 * with the model's placement, give each producer a transactional.id whose coordinator is the
 * model's, run the steps in order, read every partition back (read_committed, then the raw logs
 * with DumpLogSegments), and stop everything. Throws only when the cluster cannot be set up.
 */
export async function runPlan(plan: ConfirmPlan, options: RunPlanOptions): Promise<RealRun> {
  const log = options.log ?? (() => {});
  const stepTimeoutMs = options.stepTimeoutMs ?? STEP_TIMEOUT_MS;
  const t0 = Date.now();
  const proxies = new ProxySet({ clientListeners: false });
  const driverStart = DriverProcess.start(plan.clientRelease);
  // A failed start of the driver must not be left unobserved while the cluster starts.
  driverStart.catch(() => {});
  let cluster: RealCluster | null = null;
  let driver: DriverProcess | null = null;
  try {
    log(
      `starting ${plan.brokers.map((b) => `${b.name} on Kafka ${b.release}`).join(", ")}; controller on ${plan.controllerRelease}`,
    );
    cluster = await RealCluster.start(
      {
        dir: options.dir,
        brokers: plan.brokers.map((b) => ({ nodeId: b.nodeId, name: b.name, release: b.release })),
        controllerRelease: plan.controllerRelease,
        transactionVersion: plan.transactionVersion,
        settings: {
          transactionStatePartitions: plan.transactionState.partitions,
          transactionStateReplicationFactor: plan.transactionState.replicationFactor,
          transactionStateMinIsr: plan.transactionState.minInsyncReplicas,
          brokerOverrides: { "request.timeout.ms": String(plan.brokerRequestTimeoutMs) },
        },
      },
      { driver: driverStart, routing: proxies },
    );
    driver = await driverStart;
    const setup = await setUp(plan, cluster, driver);
    const epochMs = Date.now();
    log(`cluster up in ${((epochMs - t0) / 1000).toFixed(1)} s; playing ${plan.steps.length} steps`);
    const ctx: StepContext = {
      plan,
      cluster,
      driver,
      proxies,
      setup,
      epochMs,
      holdWaitMs: options.holdWaitMs ?? HOLD_WAIT_MS,
      producerIds: new Map(),
      armed: new Set(),
      releases: new Map(),
      transactionVersion: plan.transactionVersion,
    };
    const steps: StepRecord[] = [];
    let stoppedEarly: string | null = null;
    for (const [index, step] of plan.steps.entries()) {
      const startMs = Date.now() - epochMs;
      try {
        const { real, reply } = await within(
          playStep(ctx, step),
          step.kind === "restart-broker" ? Math.max(stepTimeoutMs, RESTART_TIMEOUT_MS) : stepTimeoutMs,
          describeStep(step),
        );
        steps.push({ index, step, startMs, endMs: Date.now() - epochMs, real, reply });
        log(`  ${index + 1}. ${describeStep(step)}: ${real.kind === "error" ? real.error : real.kind}`);
      } catch (e) {
        if (!(e instanceof StepTimeout)) throw e;
        stoppedEarly = `step ${index + 1} (${describeStep(step)}) got no answer within ${stepTimeoutMs} ms`;
        steps.push({
          index,
          step,
          startMs,
          endMs: Date.now() - epochMs,
          real: { kind: "unknown", detail: e.message },
          reply: {},
        });
        log(`  ${index + 1}. ${describeStep(step)}: no answer (the plan stops)`);
        break;
      }
    }
    const partitions = plan.topics.flatMap((t) => t.assignment.map((_, p) => `${t.name}-${p}`));
    await settle(driver, cluster.bootstrap(), partitions);
    const read = await driver.request({
      op: "read",
      bootstrap: cluster.bootstrap(),
      partitions,
      timeoutMs: 15_000,
      lane: "reader",
    });
    const offsets = await driver.request({ op: "listOffsets", bootstrap: cluster.bootstrap(), partitions });
    // Where each partition's log is read: its leader now (leadership may have moved during the run).
    const finalLeaders = hasEvents(plan) ? await currentLeaders(plan, driver, cluster.bootstrap()) : {};
    const brokers = cluster.describe().filter((n) => n.role === "broker");
    await cluster.stop();
    const faults: RealFault[] = plan.faults.map((f) => {
      const armed = ctx.armed.has(f.id);
      return { id: f.id, firings: armed ? proxies.rule(f.id).firings : [], released: ctx.releases.get(f.id) ?? null };
    });
    // The raw logs, read after the JVMs are gone (with each partition's leader: the model's placement).
    const newest = [...plan.brokers.map((b) => b.release)].sort(compareReleases).at(-1) as string;
    const dataFiles = plan.topics.flatMap((t) =>
      t.assignment.flatMap((replicas, p) =>
        segmentFiles(
          cluster?.dataDirOf(finalLeaders[`${t.name}-${p}`] ?? brokerName(plan, replicas[0] as number)) ?? "",
          `${t.name}-${p}`,
        ),
      ),
    );
    const txnFiles = Object.entries(setup.transactionStateLeaders).flatMap(([p, broker]) =>
      segmentFiles(
        cluster?.dataDirOf(finalLeaders[`__transaction_state-${p}`] ?? broker) ?? "",
        `__transaction_state-${p}`,
      ),
    );
    const [logs, transactionLog] = await Promise.all([
      dumpLogSegments(newest, dataFiles),
      dumpLogSegments(newest, txnFiles, { transactionLog: true }),
    ]);
    return {
      epochMs,
      clusterStartMs: epochMs - t0,
      dir: options.dir,
      brokers: brokers.map((b) => ({
        name: b.name,
        nodeId: b.nodeId,
        release: b.release,
        kafkaVersion: kafkaVersionIn(b.logFile),
        logFile: b.logFile,
      })),
      clientVersion: driver.kafkaVersion,
      producers: plan.producers.map((p) => ({
        name: p.name,
        transactionalId: setup.transactionalIds.get(p.name) ?? p.transactionalId,
        producerId: ctx.producerIds.get(p.name) ?? -1,
        coordinator: p.coordinator,
      })),
      steps,
      faults,
      proxyEvents: proxies.events,
      finalRead: {
        records: ((read.records as { partition: string; offset: number; value: string }[] | undefined) ?? []).map(
          (r) => ({
            partition: r.partition,
            offset: r.offset,
            value: r.value,
          }),
        ),
        endOffsets: (read.endOffsets as Record<string, number> | undefined) ?? {},
        offsets:
          (offsets.offsets as Record<string, { highWatermark: number; lastStableOffset: number }> | undefined) ?? {},
        complete: read.complete === true,
      },
      logs: logs.batches,
      transactionLog: transactionLog.batches,
      transactionStateLeaders: setup.transactionStateLeaders,
      ...(hasEvents(plan) ? { finalLeaders } : {}),
      stoppedEarly,
      requestCounts: proxies.counts(),
    };
  } finally {
    await cluster?.stop();
    await proxies.close();
    await (driver ?? (await driverStart.catch(() => null)))?.close();
  }
}

function brokerName(plan: ConfirmPlan, nodeId: number): string {
  return plan.brokers.find((b) => b.nodeId === nodeId)?.name ?? `broker-${nodeId}`;
}

interface Setup {
  transactionalIds: Map<string, string>;
  transactionStateLeaders: Record<number, string>;
}

/**
 * The model's placement on the real cluster: topics with the model's replica assignment (the
 * preferred leader leads), and for each producer a transactional.id (the model's, else the model's
 * with a suffix) that __transaction_state's partitioning maps to a partition the model's
 * coordinator leads. __transaction_state is made by the first FindCoordinator, with the placement
 * the controller picks.
 */
async function setUp(plan: ConfirmPlan, cluster: RealCluster, driver: DriverProcess): Promise<Setup> {
  const bs = cluster.bootstrap();
  for (const t of plan.topics)
    await driver.expect({
      op: "createTopic",
      bootstrap: bs,
      name: t.name,
      assignment: t.assignment,
      configs: { "min.insync.replicas": t.minInsyncReplicas },
    });
  for (let i = 0; ; i++) {
    const probe = await driver.request({ op: "describeTransaction", bootstrap: bs, transactionalId: "eosfuzz-probe" });
    if (probe.error === "TRANSACTIONAL_ID_NOT_FOUND") break;
    if (i > 60) throw new Error(`__transaction_state did not come up: ${probe.error}`);
    await sleep(250);
  }
  if (hasEvents(plan)) await placeTransactionState(plan, driver, bs);
  const leaders = new Map<number, number>();
  for (let i = 0; ; i++) {
    const d = await driver.expect({ op: "describeTopic", bootstrap: bs, name: "__transaction_state" });
    for (const p of d.partitions as { partition: number; leader: number }[]) leaders.set(p.partition, p.leader);
    if ([...leaders.values()].every((l) => l >= 0) && leaders.size === plan.transactionState.partitions) break;
    if (i > 60) throw new Error("__transaction_state has partitions without a leader");
    await sleep(250);
  }
  const transactionalIds = new Map<string, string>();
  for (const p of plan.producers) {
    const want = plan.brokers.find((b) => b.name === p.coordinator)?.nodeId;
    for (let k = 0; k < 10_000; k++) {
      const id = k === 0 ? p.transactionalId : `${p.transactionalId}-${k}`;
      if (leaders.get(transactionStatePartitionFor(id, plan.transactionState.partitions)) === want) {
        transactionalIds.set(p.name, id);
        break;
      }
    }
    if (!transactionalIds.has(p.name))
      throw new Error(`no transactional.id maps to a partition ${p.coordinator} leads`);
  }
  for (const t of plan.topics) {
    for (let i = 0; ; i++) {
      const d = await driver.expect({ op: "describeTopic", bootstrap: bs, name: t.name });
      const ok = (d.partitions as { partition: number; leader: number }[]).every(
        (p) => p.leader === t.assignment[p.partition]?.[0],
      );
      if (ok) break;
      if (i > 60) throw new Error(`${t.name}'s partitions are not led by their preferred replicas`);
      await sleep(250);
    }
  }
  return {
    transactionalIds,
    transactionStateLeaders: Object.fromEntries([...leaders].map(([p, l]) => [p, brokerName(plan, l)])),
  };
}

interface StepContext {
  plan: ConfirmPlan;
  cluster: RealCluster;
  driver: DriverProcess;
  proxies: ProxySet;
  setup: Setup;
  epochMs: number;
  holdWaitMs: number;
  producerIds: Map<string, number>;
  armed: Set<string>;
  releases: Map<string, { atMs: number; errors: { partition: string; error: string }[] }>;
  /** transaction.version finalized now (a step may update it). */
  transactionVersion: number;
}

async function playStep(
  ctx: StepContext,
  step: PlanStep,
): Promise<{ real: ModelOutcome; reply: Record<string, unknown> }> {
  const bs = ctx.cluster.bootstrap();
  const d = ctx.driver;
  switch (step.kind) {
    case "init": {
      const r = await d.request({
        op: "producerInit",
        producer: step.producer,
        bootstrap: bs,
        transactionalId: ctx.setup.transactionalIds.get(step.producer),
      });
      if (r.error === "NONE") ctx.producerIds.set(step.producer, Number(r.producerId));
      return { real: outcomeOf(r, `producerId ${r.producerId}`), reply: r };
    }
    case "begin": {
      const r = await d.request({ op: "begin", producer: step.producer });
      return { real: outcomeOf(r, ""), reply: r };
    }
    case "send": {
      const dash = step.partition.lastIndexOf("-");
      const r = await d.request({
        op: "send",
        producer: step.producer,
        topic: step.partition.slice(0, dash),
        partition: Number(step.partition.slice(dash + 1)),
        value: step.value,
      });
      return { real: outcomeOf(r, `appended at ${step.partition} offset ${r.offset}`), reply: r };
    }
    case "commit":
    case "abort": {
      const r = await d.request({ op: step.kind, producer: step.producer });
      return { real: outcomeOf(r, step.kind === "commit" ? "committed" : "aborted"), reply: r };
    }
    case "await-complete": {
      const want = step.result === "COMMIT" ? "CompleteCommit" : "CompleteAbort";
      const until = Date.now() + 30_000;
      let last = "";
      while (Date.now() < until) {
        const r = await d.request({
          op: "describeTransaction",
          bootstrap: bs,
          transactionalId: ctx.setup.transactionalIds.get(step.producer),
        });
        last = r.error === "NONE" ? String(r.state) : r.error;
        if (last === want) return { real: { kind: "ok", detail: want }, reply: r };
        await sleep(20);
      }
      return { real: { kind: "unknown", detail: `still ${last} after 30 s` }, reply: { state: last } };
    }
    case "await-marker": {
      const dash = step.partition.lastIndexOf("-");
      const pid = ctx.producerIds.get(step.producer);
      const until = Date.now() + 30_000;
      let last = "";
      while (Date.now() < until) {
        const r = await d.request({
          op: "describeProducers",
          bootstrap: bs,
          topic: step.partition.slice(0, dash),
          partition: Number(step.partition.slice(dash + 1)),
        });
        const mine = (
          (r.producers as
            | { producerId: number; producerEpoch: number; currentTransactionStartOffset: number | null }[]
            | undefined) ?? []
        ).find((p) => p.producerId === pid);
        last = mine
          ? `epoch ${mine.producerEpoch}, open at ${mine.currentTransactionStartOffset}`
          : r.error === "NONE"
            ? "not there"
            : r.error;
        if (mine && mine.currentTransactionStartOffset === null && mine.producerEpoch >= step.epoch)
          return { real: { kind: "ok", detail: `epoch ${mine.producerEpoch}, nothing open` }, reply: r };
        await sleep(20);
      }
      return { real: { kind: "unknown", detail: `after 30 s: ${last}` }, reply: {} };
    }
    case "arm": {
      const f = ctx.plan.faults.find((x) => x.id === step.fault);
      if (!f) throw new Error(`the plan has no fault ${step.fault}`);
      const coordinator = ctx.plan.brokers.find((b) => b.name === f.coordinator)?.nodeId;
      ctx.proxies.arm({
        id: f.id,
        broker: f.broker,
        listener: "INTERNAL",
        match: {
          apiKey: 27,
          producerId: ctx.producerIds.get(f.producer) ?? -2,
          result: f.result,
          clientIdPrefix: `broker-${coordinator}-txn-marker-sender`,
        },
        nth: f.nth,
        action: { kind: f.kind },
      });
      ctx.armed.add(f.id);
      return { real: { kind: "ok", detail: "" }, reply: {} };
    }
    case "release": {
      const until = Date.now() + ctx.holdWaitMs;
      while (!ctx.proxies.isHolding(step.fault) && Date.now() < until) await sleep(50);
      if (!ctx.proxies.isHolding(step.fault))
        return {
          real: { kind: "unknown", detail: `${step.fault} never fired: nothing held to release` },
          reply: { fired: false },
        };
      const answer = await ctx.proxies.release(step.fault);
      const errors = answer.errors.map((e) => ({ partition: e.partition, error: errorName(e.errorCode) }));
      ctx.releases.set(step.fault, { atMs: Date.now() - ctx.epochMs, errors });
      const failed = errors.find((e) => e.error !== "NONE");
      return {
        real: failed
          ? { kind: "error", error: failed.error, detail: `rejected at ${failed.partition}` }
          : { kind: "ok", detail: `accepted at ${errors.map((e) => e.partition).join(", ")}` },
        reply: { fired: true, errors },
      };
    }
    case "admin-abort": {
      const dash = step.partition.lastIndexOf("-");
      const r = await d.request({
        op: "abortTransaction",
        bootstrap: bs,
        topic: step.partition.slice(0, dash),
        partition: Number(step.partition.slice(dash + 1)),
        producerId: ctx.producerIds.get(step.producer) ?? -1,
        producerEpoch: step.producerEpoch,
        coordinatorEpoch: step.coordinatorEpoch,
      });
      return { real: outcomeOf(r, "ABORT appended"), reply: r };
    }
    case "elect-leader":
      return electLeader(ctx, step.partition, nodeIdOf(ctx.plan, step.broker));
    case "await-leader": {
      const want = step.broker === null ? -1 : nodeIdOf(ctx.plan, step.broker);
      const seen = await waitForLeader(ctx.driver, bs, step.partition, want, LEADER_WAIT_MS);
      return seen.leader === want
        ? { real: { kind: "ok", detail: `${step.broker ?? "no leader"}` }, reply: seen }
        : {
            real: { kind: "unknown", detail: `after ${LEADER_WAIT_MS / 1000} s the leader is node ${seen.leader}` },
            reply: seen,
          };
    }
    case "shutdown-broker": {
      const clean = await ctx.cluster.shutdownBroker(step.broker);
      return clean
        ? { real: { kind: "ok", detail: "" }, reply: {} }
        : { real: { kind: "unknown", detail: "the controlled shutdown did not end within 30 s: killed" }, reply: {} };
    }
    case "kill-broker":
      await ctx.cluster.killBroker(step.broker);
      return { real: { kind: "ok", detail: "" }, reply: {} };
    case "restart-broker": {
      ctx.cluster.restartBroker(step.broker);
      const id = nodeIdOf(ctx.plan, step.broker);
      const until = Date.now() + RESTART_TIMEOUT_MS - 5_000;
      let last = "";
      while (Date.now() < until) {
        const r = await d.request({ op: "describeCluster", bootstrap: bs, timeoutMs: 3_000, lane: "events" });
        if (r.error === "NONE" && (r.nodes as { id: number }[]).some((n) => n.id === id))
          return { real: { kind: "ok", detail: "registered" }, reply: r };
        last = r.error === "NONE" ? "not registered yet" : r.error;
        await sleep(250);
      }
      return { real: { kind: "unknown", detail: `not back: ${last}` }, reply: {} };
    }
    case "update-feature": {
      const r = await d.request({
        op: "updateFeature",
        bootstrap: bs,
        feature: step.feature,
        level: step.level,
        upgradeType: step.level >= ctx.transactionVersion ? "UPGRADE" : "SAFE_DOWNGRADE",
      });
      if (r.error === "NONE") ctx.transactionVersion = step.level;
      return { real: outcomeOf(r, `${step.feature} ${step.level}`), reply: r };
    }
  }
}

/** Whether the plan has cluster events (they need the model's placement of __transaction_state, and the leaders at the end). */
function hasEvents(plan: ConfirmPlan): boolean {
  return plan.steps.some(isClusterEvent);
}

function nodeIdOf(plan: ConfirmPlan, broker: string): number {
  const b = plan.brokers.find((x) => x.name === broker);
  if (!b) throw new Error(`the plan has no broker ${broker}`);
  return b.nodeId;
}

/** The model's replicas of a partition (node ids, preferred first). */
function assignmentOf(plan: ConfirmPlan, partition: string): number[] {
  const dash = partition.lastIndexOf("-");
  const topic = partition.slice(0, dash);
  const index = Number(partition.slice(dash + 1));
  const replicas =
    topic === "__transaction_state"
      ? plan.transactionState.assignment?.[index]
      : plan.topics.find((t) => t.name === topic)?.assignment[index];
  if (!replicas) throw new Error(`the plan has no partition ${partition}`);
  return replicas;
}

interface PartitionState {
  leader: number;
  isr: number[];
  replicas: number[];
}

async function describePartition(
  driver: DriverProcess,
  bootstrap: string,
  partition: string,
): Promise<PartitionState | null> {
  const dash = partition.lastIndexOf("-");
  const r = await driver.request({ op: "describeTopic", bootstrap, name: partition.slice(0, dash), lane: "events" });
  if (r.error !== "NONE") return null;
  const p = (r.partitions as (PartitionState & { partition: number })[]).find(
    (x) => x.partition === Number(partition.slice(dash + 1)),
  );
  return p ? { leader: p.leader, isr: p.isr, replicas: p.replicas } : null;
}

async function waitForLeader(
  driver: DriverProcess,
  bootstrap: string,
  partition: string,
  want: number,
  timeoutMs: number,
): Promise<{ leader: number | null; isr: number[] }> {
  const until = Date.now() + timeoutMs;
  let seen: PartitionState | null = null;
  while (Date.now() < until) {
    seen = await describePartition(driver, bootstrap, partition);
    if (seen?.leader === want) break;
    await sleep(100);
  }
  return { leader: seen?.leader ?? null, isr: seen?.isr ?? [] };
}

/**
 * Move `partition`'s leadership to node `target` as an operator does: once `target` is in the ISR,
 * Admin.electLeaders(PREFERRED) makes it leader, after a reassignment that puts it first when it is
 * not the preferred replica; the model's order is put back right after (a reordering of the same
 * replicas elects no one: the leader stays), so the controller's later elections pick as the model's.
 */
async function electLeader(
  ctx: StepContext,
  partition: string,
  target: number,
): Promise<{ real: ModelOutcome; reply: Record<string, unknown> }> {
  const bs = ctx.cluster.bootstrap();
  const d = ctx.driver;
  const replicas = assignmentOf(ctx.plan, partition);
  const dash = partition.lastIndexOf("-");
  const topic = partition.slice(0, dash);
  const index = Number(partition.slice(dash + 1));
  const until = Date.now() + LEADER_WAIT_MS;
  let last = "";
  while (Date.now() < until) {
    const state = await describePartition(d, bs, partition);
    if (state?.leader === target) return { real: { kind: "ok", detail: `node ${target} leads` }, reply: { ...state } };
    if (!state?.isr.includes(target)) {
      last = state ? `node ${target} is not in the ISR ${state.isr.join(",")}` : "no metadata";
      await sleep(200);
      continue;
    }
    const reorder = replicas[0] !== target;
    if (reorder)
      await d.expect({
        op: "reassign",
        bootstrap: bs,
        topic,
        partition: index,
        replicas: [target, ...replicas.filter((r) => r !== target)],
        lane: "events",
      });
    try {
      const r = await d.request({
        op: "electLeaders",
        bootstrap: bs,
        type: "PREFERRED",
        partitions: [partition],
        lane: "events",
      });
      const error = r.error === "NONE" ? String((r.errors as Record<string, string>)[partition] ?? "NONE") : r.error;
      last = `electLeaders: ${error}`;
    } finally {
      if (reorder) await d.expect({ op: "reassign", bootstrap: bs, topic, partition: index, replicas, lane: "events" });
    }
    const seen = await waitForLeader(d, bs, partition, target, 2_000);
    if (seen.leader === target) return { real: { kind: "ok", detail: `node ${target} leads` }, reply: seen };
  }
  return { real: { kind: "unknown", detail: `node ${target} did not become leader: ${last}` }, reply: {} };
}

/**
 * __transaction_state placed as the model's: each partition's replicas in the model's order, its
 * preferred replica leading. Then the model's transactional.ids map to the model's partitions and
 * coordinators, and a coordinator failover of the model is a move of the same real partition.
 */
async function placeTransactionState(plan: ConfirmPlan, driver: DriverProcess, bs: string): Promise<void> {
  const assignment = plan.transactionState.assignment ?? [];
  for (const [p, replicas] of assignment.entries())
    await driver.expect({ op: "reassign", bootstrap: bs, topic: "__transaction_state", partition: p, replicas });
  const partitions = assignment.map((_, p) => `__transaction_state-${p}`);
  for (let i = 0; ; i++) {
    const r = await driver.request({ op: "electLeaders", bootstrap: bs, type: "PREFERRED", partitions });
    const states = await Promise.all(partitions.map((p) => describePartition(driver, bs, p)));
    if (states.every((s, p) => s?.leader === assignment[p]?.[0] && s?.replicas.join() === assignment[p]?.join()))
      return;
    if (i > 60) throw new Error(`__transaction_state could not be placed as the model's: ${r.error}`);
    await sleep(250);
  }
}

/** Each partition's leader now, by broker name (every planned partition and __transaction_state's). */
async function currentLeaders(plan: ConfirmPlan, driver: DriverProcess, bs: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const topic of [...plan.topics.map((t) => t.name), "__transaction_state"]) {
    const r = await driver.request({ op: "describeTopic", bootstrap: bs, name: topic });
    if (r.error !== "NONE") continue;
    for (const p of r.partitions as { partition: number; leader: number }[])
      if (p.leader >= 0) out[`${topic}-${p.partition}`] = brokerName(plan, p.leader);
  }
  return out;
}

/** Wait (at most 10 s) until no partition has a transaction open: every marker has landed. */
async function settle(driver: DriverProcess, bootstrap: string, partitions: string[]): Promise<void> {
  for (let i = 0; i < 40; i++) {
    const r = await driver.request({ op: "listOffsets", bootstrap, partitions });
    const offsets = (r.offsets ?? {}) as Record<string, { highWatermark: number; lastStableOffset: number }>;
    if (r.error === "NONE" && Object.values(offsets).every((o) => o.highWatermark === o.lastStableOffset)) return;
    await sleep(250);
  }
}
