import { NODE_FAULT_LIST } from "../../kafka/faults/registry.js";
import { createRequire } from "node:module";
import type fcModule from "fast-check";
import type { Violation, ViolationKind } from "../../oracle/violation.js";
import { isConsumerOffsetsPartition } from "../../kafka/coordinator/group/group-partitioning.js";
import type { ReleaseFlags } from "../../kafka/release.js";
import { type EventKind, isEvent } from "../../kafka/trace-events.js";
import type { Scenario } from "../../scenario/schema.js";
import { toClusterSpec } from "../../scenario/to-cluster-spec.js";
import { cutStreams, type Tape, tapeLength } from "../../sim/choice-tape.js";
import type { TraceEvent } from "../../sim/trace.js";
import { type RunConfig, type RunResult, runSeed } from "../run/run-seed.js";

/** What must still happen for a candidate tape to count as "the same failure". */
export interface ShrinkTarget {
  kind: ViolationKind;
  /** The same place: the broker the violation names (if it names one). */
  broker?: string;
  /**
   * The same partition, for a violation at a __consumer_offsets partition: there the group
   * coordinator judged the marker, a path of its own, and a stale marker at a data partition of the
   * same broker is another failure.
   */
  partition?: string;
  /**
   * Workload producers the failure needs at least, when it hangs on which broker coordinated it (its
   * coordinator ran another release than the leader: a stale marker at a 4.2.1 leader sent as v1 by
   * a 4.1 coordinator). Its transactions belong to producer p(N-1), whose transactional.id decides
   * the coordinator; a smaller workload does not have that producer.
   */
  producers?: number;
  /**
   * The violation was one a generic scenario's draw marks as Kafka's own behaviour (expectedBy):
   * absent, a candidate must show it unmarked, so a shrink cannot trade a finding for a draw under
   * which Kafka shows the same kind by design (a stale marker at a strict leader for one under TV1).
   */
  expected?: boolean;
}

export interface ShrinkOptions {
  /** Wall-clock budget; the best tape found so far is returned when it runs out. */
  budgetMs: number;
  /** Wall clock (injected so tests can drive the budget). */
  nowMs?: () => number;
  /** Called after every candidate run (for progress output). */
  onCandidate?: (progress: { runs: number; tapeLength: number; improved: boolean }) => void;
}

/** The size of a run, before and after shrinking. */
export interface RunSize {
  events: number;
  traceEvents: number;
  tapeLength: number;
  nonZeroChoices: number;
  faults: number;
  messages: number;
  transactions: number;
  producers: number;
  violations: number;
}

export interface ShrinkResult {
  tape: Tape;
  violation: Violation;
  traceHash: string;
  before: RunSize;
  after: RunSize;
  runs: number;
  timeMs: number;
  stoppedBy: "fixpoint" | "budget";
}

/** fast-check candidates tried per stream and round (its array shrinker offers O(length) of them). */
const FAST_CHECK_CANDIDATES_PER_STREAM = 64;

/** Bound on candidate runs, whatever the budget (a shrink is never an unbounded loop). */
const MAX_CANDIDATE_RUNS = 200_000;

export function targetOf(
  v: Pick<Violation, "kind" | "broker" | "partition"> &
    Partial<Pick<Violation, "transaction" | "markerIssuedFor" | "brokerRelease" | "coordinatorRelease" | "expectedBy">>,
): ShrinkTarget {
  const target: ShrinkTarget = v.broker !== undefined ? { kind: v.kind, broker: v.broker } : { kind: v.kind };
  if (v.partition !== undefined && isConsumerOffsetsPartition(v.partition)) target.partition = v.partition;
  const coordinatorMatters = v.coordinatorRelease !== undefined && v.coordinatorRelease !== v.brokerRelease;
  const producers = Math.max(producersFor(v.transaction), producersFor(v.markerIssuedFor));
  if (coordinatorMatters && producers > 1) target.producers = producers;
  if (v.expectedBy !== undefined) target.expected = true;
  return target;
}

/** How many workload producers a transaction such as p1.t4 or p1#2.t7 needs (2: p0 and p1); 0 for others. */
function producersFor(ghostTxn: string | undefined): number {
  const index = /^p(\d+)[.#]/.exec(ghostTxn ?? "")?.[1];
  return index === undefined ? 0 : Number(index) + 1;
}

export function matchesTarget(v: Violation, target: ShrinkTarget): boolean {
  return (
    v.kind === target.kind &&
    (target.broker === undefined || v.broker === target.broker) &&
    (target.partition === undefined || v.partition === target.partition) &&
    (v.expectedBy !== undefined) === (target.expected === true)
  );
}

/** Past the end a stream reads 0, so trailing zeros (and empty streams) carry no information. */
export function normalizeTape(tape: Readonly<Tape>): Tape {
  const out: Tape = {};
  for (const name of Object.keys(tape)) {
    const values = tape[name] as number[];
    let end = values.length;
    while (end > 0 && values[end - 1] === 0) end--;
    if (end > 0) out[name] = values.slice(0, end);
  }
  return out;
}

/** Keep each stream up to `positions[stream]` (a run stopped there made exactly these choices). */
export function cutTape(tape: Readonly<Tape>, positions: Record<string, number>): Tape {
  return normalizeTape(cutStreams(tape, positions));
}

const FAULT_KINDS: ReadonlySet<string> = new Set<EventKind>([
  ...NODE_FAULT_LIST.map((f) => f.traceEvent),
  "net.slow",
  "net.drop",
  "net.duplicate",
  "net.retransmit",
]);

function nonZero(tape: Readonly<Tape>): number {
  let n = 0;
  for (const name in tape) for (const v of tape[name] as number[]) if (v !== 0) n++;
  return n;
}

/** Count what a reader of the run cares about: events, faults, messages, transactions. */
export function measureRun(result: RunResult, tape: Readonly<Tape>): RunSize {
  const trace: readonly TraceEvent[] = result.trace ?? [];
  const producers = new Set<string>();
  let faults = 0;
  let messages = 0;
  let transactions = 0;
  for (const e of trace) {
    if (FAULT_KINDS.has(e.kind)) faults++;
    else if (isEvent(e, "net.send")) messages++;
    else if (isEvent(e, "producer.begin")) {
      transactions++;
      producers.add(e.node.split("#")[0] as string);
    }
  }
  return {
    events: result.stats.events,
    traceEvents: result.stats.traceEvents,
    tapeLength: tapeLength(tape),
    nonZeroChoices: nonZero(tape),
    faults,
    messages,
    transactions,
    producers: producers.size,
    violations: result.violations.length,
  };
}

/**
 * Shrink a failing choice tape to a smaller one that still shows the same violation at the same
 * place. Every candidate is one deterministic run that stops at the target violation; the tape is
 * then cut where each stream stood, so what happened after the violation never counts. Passes, per
 * stream (streams are independent, so a change to one link's faults does not shift a producer's
 * workload): drop the stream (all zeros: no faults, simplest workload), zero chunks of choices
 * (delta debugging), fast-check's array shrinker (removes chunks, shifting later choices earlier,
 * and shrinks values), then lower each value. Repeats until nothing shrinks or the budget is spent.
 */
export function shrinkTape(
  config: RunConfig,
  tape: Readonly<Tape>,
  target: ShrinkTarget,
  options: ShrinkOptions,
): ShrinkResult {
  const now = options.nowMs ?? (() => performance.now());
  const started = now();
  const deadline = started + options.budgetMs;
  let runs = 0;
  const outOfBudget = () => now() >= deadline || runs >= MAX_CANDIDATE_RUNS;

  const failingPrefix = (candidate: Readonly<Tape>): Tape | null => {
    runs++;
    const r = runSeed(config, { tape: candidate }, { stopWhen: (v) => matchesTarget(v, target) });
    const prefix = r.stoppedAt === null ? null : cutTape(candidate, r.stoppedAt);
    options.onCandidate?.({ runs, tapeLength: tapeLength(candidate), improved: prefix !== null });
    return prefix;
  };

  const input = normalizeTape(tape);
  const original = failingPrefix(input);
  if (!original) throw new Error(`the tape does not show ${target.kind}${target.broker ? ` at ${target.broker}` : ""}`);
  let best = original;

  const accept = (candidate: Tape): boolean => {
    const normal = normalizeTape(candidate);
    if (!isSmaller(normal, best)) return false;
    const prefix = failingPrefix(normal);
    if (!prefix || !isSmaller(prefix, best)) return false;
    best = prefix;
    return true;
  };
  const ctx: PassContext = { best: () => best, accept, stop: outOfBudget };

  for (let round = 0; round < 1_000 && !outOfBudget(); round++) {
    const before = best;
    dropStreamsPass(ctx);
    zeroChunksPass(ctx);
    fastCheckPass(ctx);
    lowerValuesPass(ctx);
    if (before === best) break;
  }
  const stoppedBy: ShrinkResult["stoppedBy"] = outOfBudget() ? "budget" : "fixpoint";

  const beforeRun = runSeed(config, { tape: input }, { recordTrace: true });
  const afterRun = runSeed(config, { tape: best }, { recordTrace: true });
  const violation = afterRun.violations.find((v) => matchesTarget(v, target));
  if (!violation) throw new Error("internal: the shrunk tape no longer fails when replayed in full");
  return {
    tape: best,
    violation,
    traceHash: afterRun.traceHash,
    before: measureRun(beforeRun, input),
    after: measureRun(afterRun, best),
    runs,
    timeMs: Math.round(now() - started),
    stoppedBy,
  };
}

interface PassContext {
  best(): Tape;
  accept(candidate: Tape): boolean;
  stop(): boolean;
}

/** Order: fewer choices, then fewer non-zero choices, then smaller values. The shrinker only moves down. */
function isSmaller(a: Readonly<Tape>, b: Readonly<Tape>): boolean {
  const la = tapeLength(a);
  const lb = tapeLength(b);
  if (la !== lb) return la < lb;
  const na = nonZero(a);
  const nb = nonZero(b);
  if (na !== nb) return na < nb;
  return sum(a) < sum(b);
}

function sum(tape: Readonly<Tape>): number {
  let s = 0;
  for (const name in tape) for (const v of tape[name] as number[]) s += v;
  return s;
}

function withStream(tape: Readonly<Tape>, name: string, values: number[]): Tape {
  return { ...tape, [name]: values };
}

/** Zero a whole stream: no faults on that link, the simplest workload for that producer. */
function dropStreamsPass(ctx: PassContext): void {
  for (const name of Object.keys(ctx.best())) {
    if (ctx.stop()) return;
    if (ctx.best()[name]) ctx.accept(withStream(ctx.best(), name, []));
  }
}

/** Delta debugging over each stream's non-zero choices: zero chunks of halving size. */
function zeroChunksPass(ctx: PassContext): void {
  for (const name of Object.keys(ctx.best())) {
    let positions = nonZeroPositions(ctx.best()[name] ?? []);
    for (let size = Math.max(1, positions.length >> 1); !ctx.stop(); size >>= 1) {
      for (let start = 0; start < positions.length && !ctx.stop(); start += size) {
        const values = (ctx.best()[name] ?? []).slice();
        for (const i of positions.slice(start, start + size)) if (i < values.length) values[i] = 0;
        if (ctx.accept(withStream(ctx.best(), name, values))) {
          positions = nonZeroPositions(ctx.best()[name] ?? []);
          start -= size;
        }
      }
      if (size <= 1) break;
    }
  }
}

/**
 * fast-check, loaded the first time a shrink needs it: a campaign imports this module but shrinks
 * only when it found something, and fast-check's modules are 20 to 30 ms of a cold `run`. Its
 * CommonJS build, so that the load is synchronous (only its array shrinker is used, no value of
 * it crosses to code that imported the ES module build).
 */
let fastCheck: typeof fcModule | null = null;
function loadFastCheck(): typeof fcModule {
  fastCheck ??= createRequire(import.meta.url)("fast-check") as typeof fcModule;
  return fastCheck;
}

/** fast-check's array shrinker on each stream: removes chunks and shrinks values, first improvement wins. */
function fastCheckPass(ctx: PassContext): void {
  const fc = loadFastCheck();
  for (const name of Object.keys(ctx.best())) {
    for (let improved = true; improved && !ctx.stop(); ) {
      improved = false;
      const values = ctx.best()[name];
      if (!values) break;
      const arbitrary = fc.array(fc.nat({ max: Math.max(1, ...values) }), { maxLength: values.length });
      let tried = 0;
      for (const candidate of arbitrary.shrink(values, undefined)) {
        if (ctx.stop() || ++tried > FAST_CHECK_CANDIDATES_PER_STREAM) break;
        if (ctx.accept(withStream(ctx.best(), name, candidate.value_))) {
          improved = true;
          break;
        }
      }
    }
  }
}

/** Lower each remaining value: halve it, then step down by one (shorter delays, earlier options). */
function lowerValuesPass(ctx: PassContext): void {
  for (const name of Object.keys(ctx.best())) {
    for (const i of nonZeroPositions(ctx.best()[name] ?? [])) {
      let v = ctx.best()[name]?.[i] ?? 0;
      while (v > 0 && !ctx.stop()) {
        const lower = v > 2 ? v >> 1 : v - 1;
        const values = (ctx.best()[name] ?? []).slice();
        if (i >= values.length) break;
        values[i] = lower;
        if (!ctx.accept(withStream(ctx.best(), name, values))) break;
        v = lower;
      }
    }
  }
}

function nonZeroPositions(values: readonly number[]): number[] {
  const out: number[] = [];
  values.forEach((v, i) => {
    if (v !== 0) out.push(i);
  });
  return out;
}

/** How the scenario was made smaller before the tape was shrunk (null fields: unchanged). */
export interface ScenarioReduction {
  producers: [number, number];
  transactions: [number, number];
  consumers: [number, number];
  /** Whether every partition (data and `__transaction_state`) was cut to one replica: no followers. */
  singleReplica: boolean;
  /** The seed of the reduced scenario whose run showed the same violation. */
  seed: number;
  seedsSearched: number;
}

export interface ShrinkFailureResult extends ShrinkResult {
  /** The scenario the shrunk tape replays under (the input scenario, or a reduced copy). */
  scenario: Scenario;
  reduction: ScenarioReduction | null;
  /** Size of the original failing run, under the original scenario. */
  original: RunSize;
}

/** Share of the budget spent looking for the failure in a smaller scenario. */
const REDUCTION_BUDGET_SHARE = 0.5;
/** Seeds tried per reduced scenario. */
const REDUCTION_SEEDS = 3_000;
/**
 * Seeds tried per single-replica variant, fewer: a violation that needs followers (a truncation,
 * a leader change) never shows there, and the seeds spent on it are lost to the replicated one.
 */
const REDUCTION_SEEDS_SINGLE_REPLICA = 1_000;

const CLIENT_VISIBLE = new Set<ViolationKind>([
  "aborted-read",
  "lost-write",
  "torn-transaction",
  "premature-read",
  "duplicate",
  "non-monotonic",
]);

type ReplicaSettings = { replicas?: string[][] | undefined; replicationFactor?: number | undefined };

function hasFollowers(t: ReplicaSettings, brokers: number): boolean {
  if (t.replicas) return t.replicas.some((r) => r.length > 1);
  return brokers > 1 && t.replicationFactor !== 1;
}

function withOneReplica<T extends ReplicaSettings & { minInsyncReplicas: number }>(t: T): T {
  if (t.replicas) return { ...t, replicas: t.replicas.map((r) => r.slice(0, 1)), minInsyncReplicas: 1 };
  return { ...t, replicationFactor: 1, minInsyncReplicas: 1 };
}

/**
 * The scenario with one replica per partition, its leader the first replica Kafka's assignment
 * gives it: no followers, no fetches, no ISR, so what remains of a failure is the transaction
 * protocol. Null when nothing is replicated, or when the violation needs replicas (an unclean
 * election).
 */
function singleReplica(s: Scenario, target: ShrinkTarget): Scenario | null {
  if (target.kind === "unclean-election") return null;
  const brokers = s.cluster.brokers.length;
  const replicated = [s.cluster.transactionState, ...s.cluster.topics].some((t) => hasFollowers(t, brokers));
  if (!replicated) return null;
  return {
    ...s,
    cluster: {
      ...s.cluster,
      transactionState: withOneReplica(s.cluster.transactionState),
      topics: s.cluster.topics.map(withOneReplica),
    },
  };
}

/**
 * Smaller workloads to try, smallest first: one producer with two transactions, and so on; each
 * first with one replica per partition, then as replicated as the scenario.
 */
function reducedScenarios(s: Scenario, target: ShrinkTarget): { scenario: Scenario; singleReplica: boolean }[] {
  const out: { scenario: Scenario; singleReplica: boolean }[] = [];
  for (const candidate of reducedWorkloads(s, target)) {
    const single = singleReplica(candidate, target);
    if (single) out.push({ scenario: single, singleReplica: true });
    out.push({ scenario: candidate, singleReplica: false });
  }
  return out;
}

/** Smaller workloads to try, smallest first: one producer with two transactions, and so on. */
function reducedWorkloads(s: Scenario, target: ShrinkTarget): Scenario[] {
  // A script names its producers and steps: making the workload smaller would break it.
  if (s.script) return [];
  const w = s.workload;
  const consumers = CLIENT_VISIBLE.has(target.kind) ? Math.min(1, w.consumers) : 0;
  const shapes: [number, number][] = [
    [1, 2],
    [1, 3],
    [2, 2],
    [1, 5],
    [2, 3],
  ];
  const out: Scenario[] = [];
  for (const [producers, transactions] of shapes) {
    if (producers > w.producers || transactions > w.transactions) continue;
    if (producers < (target.producers ?? 1)) continue;
    if (producers === w.producers && transactions === w.transactions && consumers === w.consumers) continue;
    out.push({ ...s, workload: { ...w, producers, transactions, consumers } });
  }
  return out;
}

/**
 * Stage 1: look for the same violation (kind and place) in a smaller version of the scenario (fewer
 * producers, transactions and consumers, and if it still shows, one replica per partition), seed by
 * seed. The tape found there is usually far closer to
 * minimal than anything reachable by editing the original tape, whose failing transaction pair may
 * sit deep in a long workload. Returns null when no smaller scenario shows it within the budget.
 */
export function reduceScenario(
  scenario: Scenario,
  overrides: Partial<ReleaseFlags>,
  target: ShrinkTarget,
  budgetMs: number,
  now: () => number,
): { scenario: Scenario; tape: Tape; reduction: ScenarioReduction } | null {
  const deadline = now() + budgetMs;
  for (const { scenario: candidate, singleReplica } of reducedScenarios(scenario, target)) {
    const config: RunConfig = {
      scenario: candidate.name,
      spec: toClusterSpec(candidate, overrides),
      script: candidate.script ?? null,
    };
    const seeds = singleReplica ? REDUCTION_SEEDS_SINGLE_REPLICA : REDUCTION_SEEDS;
    for (let seed = 0; seed < seeds && now() < deadline; seed++) {
      const r = runSeed(config, { seed }, { recordTape: true, stopWhen: (v) => matchesTarget(v, target) });
      if (r.stoppedAt === null) continue;
      const w = scenario.workload;
      return {
        scenario: candidate,
        tape: cutTape(r.tape as Tape, r.stoppedAt),
        reduction: {
          producers: [w.producers, candidate.workload.producers],
          transactions: [w.transactions, candidate.workload.transactions],
          consumers: [w.consumers, candidate.workload.consumers],
          singleReplica,
          seed,
          seedsSearched: seed + 1,
        },
      };
    }
  }
  return null;
}

/**
 * Shrink a failure: first try to reproduce it in a smaller scenario, then shrink the tape (of the
 * smaller scenario if one reproduced it, else of the original) with `shrinkTape`.
 */
export function shrinkFailure(
  scenario: Scenario,
  overrides: Partial<ReleaseFlags>,
  tape: Readonly<Tape>,
  target: ShrinkTarget,
  options: ShrinkOptions,
): ShrinkFailureResult {
  const now = options.nowMs ?? (() => performance.now());
  const started = now();
  const originalConfig: RunConfig = {
    scenario: scenario.name,
    spec: toClusterSpec(scenario, overrides),
    script: scenario.script ?? null,
  };
  const originalRun = runSeed(originalConfig, { tape }, { recordTrace: true });
  if (!originalRun.violations.some((v) => matchesTarget(v, target))) {
    throw new Error(`the tape does not show ${target.kind}${target.broker ? ` at ${target.broker}` : ""}`);
  }
  const original = measureRun(originalRun, normalizeTape(tape));
  const reduced = reduceScenario(scenario, overrides, target, options.budgetMs * REDUCTION_BUDGET_SHARE, now);
  const chosen = reduced ?? { scenario, tape, reduction: null };
  const config: RunConfig = {
    scenario: chosen.scenario.name,
    spec: toClusterSpec(chosen.scenario, overrides),
    script: chosen.scenario.script ?? null,
  };
  const remaining = Math.max(1, options.budgetMs - (now() - started));
  const result = shrinkTape(config, chosen.tape, target, { ...options, budgetMs: remaining, nowMs: now });
  return {
    ...result,
    scenario: chosen.scenario,
    reduction: chosen.reduction,
    original,
    timeMs: Math.round(now() - started),
  };
}
