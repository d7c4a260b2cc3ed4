import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { runCampaign } from "../../src/fuzz/search/run-campaign.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { type EventKind, isEvent, type RecordedEvent } from "../../src/kafka/trace-events.js";
import {
  BUILTIN_SCENARIO_DIR,
  type LoadedScenario,
  parseScenario,
  resolveScenario,
} from "../../src/scenario/loader.js";
import type { StepRecord } from "../../src/scenario/script/script-driver.js";
import type { TraceEvent } from "../../src/sim/trace.js";

const SCRIPTED = [
  "kip-1228-race",
  "tv1-race",
  "kafka-17754-race",
  "kafka-17754-tv2-race",
  "failover-race",
  "kip-1228-upgrade",
];

function stepOf(steps: readonly StepRecord[] | null, action: string): StepRecord {
  const step = steps?.find((s) => s.action === action);
  if (!step) throw new Error(`no step ${action}`);
  return step;
}

/** Seed 0 of a scripted scenario with its trace recorded: its step log, its violations and its events. */
function traced(loaded: LoadedScenario) {
  const run = runSeed(runConfigFor(loaded), { seed: 0 }, { recordTrace: true });
  const trace = run.trace ?? [];
  const steps = run.script?.steps ?? null;
  return {
    run,
    steps,
    /** The events of kind `kind` at `node` during the step named `action` (between its script.step and script.outcome). */
    during<K extends EventKind>(action: string, kind: K, node: string): RecordedEvent<K>["fields"][] {
      const { index } = stepOf(steps, action);
      const start = trace.findIndex((e) => e.kind === "script.step" && e.fields.step === index);
      const end = trace.findIndex((e, i) => i > start && e.kind === "script.outcome" && e.fields.step === index);
      if (start < 0 || end < 0) throw new Error(`step ${index} (${action}) is not in the trace`);
      return trace
        .slice(start + 1, end)
        .filter((e: TraceEvent): e is RecordedEvent<K> => isEvent(e, kind) && e.node === node)
        .map((e) => e.fields);
    },
    /** The release `broker` runs (its last broker.start). */
    releaseOf(broker: string): string | undefined {
      const starts = trace.filter((e): e is RecordedEvent<"broker.start"> => isEvent(e, "broker.start"));
      return starts.filter((e) => e.node === broker).at(-1)?.fields.release;
    },
  };
}

/** The built-in script's text with one edit, validated as a scenario of its own. */
function edited(name: string, from: string, to: string) {
  const file = join(BUILTIN_SCENARIO_DIR, `${name}.yaml`);
  const text = readFileSync(file, "utf8");
  expect(text).toContain(from);
  return parseScenario(text.replace(from, to), `${name}-edited.yaml`);
}

describe("scripted scenarios (KAFKA.md section 6, step by step)", () => {
  it.each(SCRIPTED)(
    "%s: every step has its expected outcome and the end expectation holds, over 5 seeds of timing",
    (name) => {
      const loaded = resolveScenario(name);
      const result = runCampaign(loaded, { seeds: 5, seedStart: 0 });
      expect(result.verdict.reasons).toEqual([]);
      expect(result.scriptSteps?.length).toBe(loaded.scenario.script?.steps.length);
      expect(result.scriptSteps?.filter((s) => !s.ok)).toEqual([]);
    },
  );

  it("kip-1228-race: the 4.2.1 leader rejects the stale copy with INVALID_PRODUCER_EPOCH, the 4.1 leader accepts it", () => {
    const t = traced(resolveScenario("kip-1228-race"));
    expect(t.releaseOf("broker-1")).toBe("4.2.1");
    expect(t.during("release stale-new", "marker.append", "broker-1")).toEqual([]);
    expect(t.during("release stale-new", "marker.rejected", "broker-1")).toEqual([
      expect.objectContaining({
        partition: "orders-0",
        error: Errors.INVALID_PRODUCER_EPOCH,
        v: 2,
        tv: 2,
        rule: "strict-tv2",
      }),
    ]);
    expect(t.releaseOf("broker-2")).toBe("4.1");
    expect(t.during("release stale-old", "marker.rejected", "broker-2")).toEqual([]);
    const accepted = t.during("release stale-old", "marker.append", "broker-2");
    expect(accepted).toEqual([
      expect.objectContaining({ partition: "orders-1", v: 1, tv: 0, rule: "legacy", epoch: 1, stored: 1 }),
    ]);
    expect(accepted[0]?.closedFrom).toBeGreaterThanOrEqual(0); // it closed records that were open
    const stale = t.run.violations.filter((v) => v.kind === "stale-marker");
    expect(stale).toHaveLength(1);
    expect(stale[0]).toMatchObject({
      broker: "broker-2",
      brokerRelease: "4.1",
      partition: "orders-1",
      markerIssuedFor: "p0.t1",
      transaction: "p0.t2",
    });
    // The failure explanation is the oracle's causal chain.
    expect(stale[0]?.explanation.join("\n")).toMatch(
      /a KIP-1228 leader on v2 would have rejected this copy with INVALID_PRODUCER_EPOCH/,
    );
  });

  it("the same KIP-1228 script against a 4.1 leader: the copy is accepted, so the step's expectation fails", () => {
    const result = runCampaign(
      edited("kip-1228-race", '{ id: broker-1, release: "4.2.1" }', '{ id: broker-1, release: "4.1" }'),
      { seeds: 1, seedStart: 0 },
    );
    const step = stepOf(result.scriptSteps, "release stale-new");
    expect(step.ok).toBe(false);
    expect(step.problems).toEqual(["expected error INVALID_PRODUCER_EPOCH, found NONE"]);
    const t = traced(edited("kip-1228-race", '{ id: broker-1, release: "4.2.1" }', '{ id: broker-1, release: "4.1" }'));
    expect(t.releaseOf("broker-1")).toBe("4.1");
    expect(t.during("release stale-new", "marker.rejected", "broker-1")).toEqual([]);
    expect(t.during("release stale-new", "marker.append", "broker-1")).toEqual([
      expect.objectContaining({ v: 1, tv: 0, rule: "legacy" }),
    ]);
    expect(result.verdict.met).toBe(false);
    expect(result.violations.map((v) => v.kind).sort()).toEqual(["stale-marker", "step-mismatch"]);
    const mismatch = result.violations.find((v) => v.kind === "step-mismatch");
    expect(mismatch?.summary).toBe("step 17 (release stale-new): expected error INVALID_PRODUCER_EPOCH, found NONE");
    // Later steps did not run.
    expect(result.scriptSteps?.length).toBe(17);
  });

  it("and the same script with both leaders on 4.2.1 rejects both copies: the expected stale-marker is not found", () => {
    const result = runCampaign(
      edited("kip-1228-race", '{ id: broker-2, release: "4.1" }', '{ id: broker-2, release: "4.2.1" }'),
      { seeds: 1, seedStart: 0 },
    );
    expect(stepOf(result.scriptSteps, "release stale-old").problems).toEqual([
      "expected error NONE, found INVALID_PRODUCER_EPOCH",
    ]);
    expect(result.violations.filter((v) => v.kind === "stale-marker")).toEqual([]);
  });

  it("tv1-race: the coordinator's re-send commits T1; its first request, processed late on the connection it closed, commits T2's first record; T2's abort only aborts the record after it", () => {
    const t = traced(resolveScenario("tv1-race"));
    const result = { scriptSteps: t.steps, violations: t.run.violations };
    // r1 times out: the marker sender closes its connection (NetworkClient.handleTimedOutRequests)
    // and re-sends the markers on a new one, which broker-1 applies.
    const waiting = "waitFor txn-0 CompleteCommit";
    expect(t.during(waiting, "net.close", "tc-0")).toEqual([
      expect.objectContaining({ reason: expect.stringContaining("timed out") }),
    ]);
    expect(t.during(waiting, "marker.append", "broker-1")).toEqual([
      expect.objectContaining({ partition: "orders-0", txn: "p0.t1" }),
    ]);
    // The held first request still reaches broker-1 after its sender closed the connection, is
    // processed (SocketServer's Processor): it closes T2's open records at orders-0.
    expect(t.during("release r1", "marker.append", "broker-1")).toEqual([
      expect.objectContaining({ partition: "orders-0", closedFrom: 2 }),
    ]);
    const stale = result.violations.find((v) => v.kind === "stale-marker");
    expect(stale?.explanation.join("\n")).toMatch(
      /the coordinator had re-sent it as copy 2 .* after request \d+ timed out/,
    );
    const reads = result.scriptSteps?.filter((s) => s.action === "read orders-0").map((s) => s.outcome);
    expect(reads?.at(-1)).toMatch(/\[d1, d2\]$/);
  });

  it("kafka-17754: under TV1 the late EndTxn commits T2; under TV2 it is fenced", () => {
    const tv1 = runCampaign(resolveScenario("kafka-17754-race"), { seeds: 1, seedStart: 0 });
    expect(stepOf(tv1.scriptSteps, "release x1").outcome).toMatch(/EndTxn NONE/);
    expect(stepOf(tv1.scriptSteps, "abortTransaction p0").outcome).toMatch(/INVALID_TXN_STATE/);
    const tv2 = runCampaign(resolveScenario("kafka-17754-tv2-race"), { seeds: 1, seedStart: 0 });
    expect(stepOf(tv2.scriptSteps, "release x1").outcome).toMatch(/EndTxn PRODUCER_FENCED/);
  });

  it("failover-race: the old coordinator's copy passes the legacy epoch check but is fenced by coordinator epoch", () => {
    const t = traced(resolveScenario("failover-race"));
    expect(t.during("failover", "controller.leader", "controller")).toEqual([
      expect.objectContaining({ partition: "__transaction_state-0", from: "tc-0", leader: "tc-1" }),
    ]);
    expect(t.during("failover", "coordinator.elected", "tc-1")).toEqual([{ partition: 0, ce: 1 }]);
    expect(t.during("release r1", "marker.append", "broker-1")).toEqual([]);
    expect(t.during("release r1", "marker.rejected", "broker-1")).toEqual([
      expect.objectContaining({
        error: Errors.TRANSACTION_COORDINATOR_FENCED,
        v: 1,
        tv: 0,
        rule: "legacy",
        epoch: 1,
        stored: 1,
      }),
    ]);
  });

  it("a step that waits for something that never comes fails after the step timeout, in virtual time", () => {
    const loaded = edited(
      "tv1-race",
      "    - { do: waitFor, transactionalId: txn-0, state: CompleteCommit }\n",
      "    - { do: waitFor, transactionalId: txn-0, state: CompleteAbort, timeoutMs: 700 }\n",
    );
    const result = runCampaign(loaded, { seeds: 1, seedStart: 0 });
    const step = stepOf(result.scriptSteps, "waitFor txn-0 CompleteAbort");
    expect(step.endMs - step.startMs).toBe(700);
    expect(step.problems).toEqual([
      "expected txn-0 to reach CompleteAbort (nothing pending) in time, found CompleteCommit",
    ]);
  });
});

describe("script steps beyond the races", () => {
  const SCRIPT = `name: harness-steps
cluster:
  brokers: [{ id: tc-0, release: "4.2.1" }, { id: broker-2, release: "4.1" }]
  transactionState: { replicas: [[tc-0]], minInsyncReplicas: 1 }
  topics: [{ name: orders, replicas: [[broker-2]] }]
bounds: { quietPeriodMs: 11000 }
script:
  producers: [{ name: p0, transactionalId: txn-0, transactionTimeoutMs: 10000, requestTimeoutMs: 300 }]
  steps:
    - { do: initTransactions, producer: p0, expect: { producerId: 1000, producerEpoch: 0 } }
    - { do: beginTransaction, producer: p0 }
    - { do: send, producer: p0, partition: orders-0, value: a, expect: { error: NONE } }
    - do: request
      to: broker-2
      note: a v2 request to a broker that only knows v1 closes the connection
      body: { api: WriteTxnMarkers, version: 2, markers: [{ producerId: 1000, producerEpoch: 0, result: COMMIT, coordinatorEpoch: 0, transactionVersion: 2, partitions: [orders-0] }] }
      expect: { error: NETWORK_EXCEPTION }
    - do: request
      to: broker-2
      body: { api: WriteTxnMarkers, version: 1, markers: [{ producerId: 1000, producerEpoch: 0, result: ABORT, coordinatorEpoch: 0, partitions: [orders-0], forTransaction: p0.t0 }] }
      expect: { error: NONE }
    - { do: checkPartition, partition: orders-0, producer: p0, expect: { openTransaction: false } }
    - { do: hold, api: EndTxn, from: coordinator, to: p0, direction: response, as: answer }
    - { do: commitTransaction, producer: p0, expect: { error: NETWORK_EXCEPTION } }
    - { do: waitFor, transactionalId: txn-0, state: CompleteCommit }
    - { do: release, held: answer, expect: { error: NONE, producerEpoch: 1 } }
seeds: 1
expect:
  find: [stale-marker]
`;

  it("direct requests with explicit fields, a held response, and the oracle on a harness marker", () => {
    const loaded = parseScenario(SCRIPT, "harness-steps.yaml");
    const result = runCampaign(loaded, { seeds: 1, seedStart: 0 });
    expect(result.scriptSteps?.filter((s) => !s.ok)).toEqual([]);
    expect(result.verdict.reasons).toEqual([]);
    // broker-2 (4.1) refuses the whole v2 request and closes the connection without answering.
    const t = traced(loaded);
    expect(t.releaseOf("broker-2")).toBe("4.1");
    expect(t.during("request WriteTxnMarkers -> broker-2", "markers.refused", "broker-2")).toEqual([
      expect.objectContaining({ version: 2 }),
    ]);
    expect(t.during("request WriteTxnMarkers -> broker-2", "net.server-close", "broker-2")).toHaveLength(1);
    expect(t.during("request WriteTxnMarkers -> broker-2", "net.reply", "broker-2")).toEqual([]);
    // The harness marker says it was meant for p0.t0, so aborting p0.t1's record is a stale marker.
    const stale = result.violations.find((v) => v.kind === "stale-marker");
    expect(stale).toMatchObject({ markerIssuedFor: "p0.t0", transaction: "p0.t1", broker: "broker-2" });
    expect(stepOf(result.scriptSteps, "release answer").outcome).toMatch(
      /delivered answer .* to p0: EndTxn NONE, producerId 1000, producerEpoch 1/,
    );
  });
});

describe("a marker that states no transaction version", () => {
  const SCRIPT = `name: tv-unknown-marker
cluster:
  brokers: [{ id: tc-0, release: "4.2.1" }, { id: broker-2, release: "4.2.1" }]
  transactionState: { replicas: [[tc-0]], minInsyncReplicas: 1 }
  topics: [{ name: orders, replicas: [[broker-2]] }]
bounds: { quietPeriodMs: 11000 }
script:
  producers: [{ name: p0, transactionalId: txn-0, transactionTimeoutMs: 10000, requestTimeoutMs: 300 }]
  steps:
    - { do: initTransactions, producer: p0, expect: { producerId: 1000, producerEpoch: 0 } }
    - { do: beginTransaction, producer: p0 }
    - { do: send, producer: p0, partition: orders-0, value: a, expect: { error: NONE } }
    - do: request
      to: broker-2
      note: a KIP-1228 leader refuses a coordinator's marker with TransactionVersion -1 (TV_UNKNOWN)
      body: { api: WriteTxnMarkers, version: 2, markers: [{ producerId: 1000, producerEpoch: 0, result: ABORT, coordinatorEpoch: 0, transactionVersion: -1, partitions: [orders-0] }] }
      expect: { error: UNKNOWN_SERVER_ERROR }
    - { do: checkPartition, partition: orders-0, producer: p0, expect: { openTransaction: true } }
    - { do: abortTransaction, producer: p0, expect: { error: NONE } }
seeds: 1
expect:
  clean: true
`;

  it("testLeaderRejectsTVUnknownForTransactionMarker: UNKNOWN_SERVER_ERROR at a 4.2.1 leader, the transaction stays open", () => {
    const loaded = parseScenario(SCRIPT, "tv-unknown-marker.yaml");
    const result = runCampaign(loaded, { seeds: 1, seedStart: 0 });
    expect(result.scriptSteps?.filter((s) => !s.ok)).toEqual([]);
    expect(result.verdict.reasons).toEqual([]);
    const t = traced(loaded);
    expect(t.during("request WriteTxnMarkers -> broker-2", "marker.rejected", "broker-2")).toEqual([
      expect.objectContaining({ error: Errors.UNKNOWN_SERVER_ERROR, v: 2, tv: -1, rule: "tv-unknown" }),
    ]);
  });
});
