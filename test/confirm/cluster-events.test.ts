import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { derivePlan } from "../../src/confirm/plan/derive-plan.js";
import { modelRunOfSeed } from "../../src/confirm/plan/model-run.js";
import { type ConfirmPlan, describeStep, isClusterEvent, type PlanStep } from "../../src/confirm/plan/plan.js";
import type { RealRun, StepRecord } from "../../src/confirm/run/real-run.js";
import { judge } from "../../src/confirm/verdict.js";
import { loadScenario } from "../../src/scenario/loader.js";

// The model's cluster events become steps of the plan where the model had them, among the client
// steps and the held copies; a run where one did not happen as planned proves nothing.

const planOf = (scenario: string, seed: number): ConfirmPlan =>
  derivePlan(modelRunOfSeed(loadScenario(scenario), seed, 0));

const events = (plan: ConfirmPlan): string[] => plan.steps.filter(isClusterEvent).map(describeStep);

describe("cluster events in the plan", () => {
  const plan = planOf("leader-failover", 1);
  const order = plan.steps.map(describeStep);
  const at = (s: string) => {
    const i = order.indexOf(s);
    expect(i, s).toBeGreaterThanOrEqual(0);
    return i;
  };

  it("leader-failover seed 1: a controlled shutdown, a coordinator move while the broker is down, its restart and the preferred elections, in the model's order", () => {
    expect(events(plan)).toEqual([
      "broker-2 shuts down (controlled)",
      "the controller moves __transaction_state-2's leadership to broker-0 (controlled-shutdown)",
      "the controller moves orders-2's leadership to broker-0 (controlled-shutdown)",
      "the controller moves orders-5's leadership to broker-0 (controlled-shutdown)",
      "broker-1 is elected leader of __transaction_state-2 (reassign)",
      "broker-2 starts again",
      "broker-2 is elected leader of __transaction_state-2 (preferred)",
      "broker-2 is elected leader of orders-2 (preferred)",
      "broker-2 is elected leader of orders-5 (preferred)",
    ]);
    // A copy the model's network lost, which broker-1 re-sent, is dropped by the real proxy.
    expect(
      plan.faults.filter((f) => f.kind === "drop").map((f) => `${f.coordinator}>${f.broker} ${f.txn} copy ${f.nth}`),
    ).toEqual(["broker-1>broker-2 p0.t8 copy 1"]);
    // Nothing of the model is left unplayed: before, every one of these was `unsupported`.
    expect(plan.unsupported).toEqual([]);
    // __transaction_state is placed as the model's, so a failover moves the model's partition.
    expect(plan.transactionState.assignment).toEqual([
      [0, 1, 2],
      [1, 2, 0],
      [2, 0, 1],
    ]);
  });

  it("events sit among the client steps and the releases where the model had them", () => {
    const shutdown = at("broker-2 shuts down (controlled)");
    const restart = at("broker-2 starts again");
    // The model's hold-5 was delivered before the shutdown, hold-3 while broker-2 was down.
    expect(at("the proxy releases the copy hold-5 holds")).toBe(shutdown - 1);
    expect(at("the proxy releases the copy hold-3 holds")).toBeGreaterThan(shutdown);
    expect(at("the proxy releases the copy hold-3 holds")).toBeLessThan(restart);
    // Clients go on while broker-2 is away and after it is back, before leadership returns to it.
    const back = at("broker-2 is elected leader of orders-2 (preferred)");
    const between = plan.steps.slice(restart + 1, back).filter((s) => s.kind === "send").length;
    expect(between).toBeGreaterThan(10);
    expect(at("p0 sends p0.t12/2 to orders-2 and waits for the ack")).toBeGreaterThan(back);
  });

  it("a crash is a kill -9 where the model's broker stopped; the fencing's moves are waited for, then the restart", () => {
    const crash = planOf("leader-failover", 5);
    const ev = events(crash);
    const kill = ev.indexOf("broker-0 is killed (kill -9)");
    expect(kill).toBeGreaterThanOrEqual(0);
    expect(ev.slice(kill + 1, kill + 5)).toEqual([
      "the controller moves __transaction_state-0's leadership to broker-1 (broker-fenced)",
      "the controller moves orders-0's leadership to broker-1 (broker-fenced)",
      "the controller moves orders-3's leadership to broker-1 (broker-fenced)",
      "broker-0 starts again",
    ]);
    expect(crash.unsupported).toEqual([]);
    // broker-2's COMMIT copy for p1.t10 to itself reached orders-5 after broker-0 had taken
    // __transaction_state-2 over and sent its own: a hold, though broker-2 never re-sent it.
    expect(
      crash.faults.filter((f) => f.txn === "p1.t10").map((f) => `${f.coordinator}>${f.broker} copy ${f.nth}`),
    ).toEqual(["broker-2>broker-2 copy 1", "broker-0>broker-1 copy 1", "broker-0>broker-1 copy 2"]);
    const order = crash.steps.map(describeStep);
    const failover = order.indexOf(
      "broker-0 is elected leader of __transaction_state-2 (reassign)",
      order.indexOf("broker-0 starts again"),
    );
    const held = crash.faults.find((f) => f.txn === "p1.t10" && f.coordinator === "broker-2")?.id;
    expect(order.indexOf(`the proxy releases the copy ${held} holds`)).toBeGreaterThan(failover);
  });

  it("waits for no marker where the transaction appended nothing (the real producer never wrote there)", () => {
    const crash = planOf("leader-failover", 5);
    const sends = new Set(crash.steps.flatMap((s) => (s.kind === "send" ? [`${s.txn}|${s.partition}`] : [])));
    const waits = crash.steps.filter((s) => s.kind === "await-marker");
    expect(waits.length).toBeGreaterThan(20);
    for (const w of waits) expect(sends.has(`${w.txn}|${w.partition}`), describeStep(w)).toBe(true);
    // The model's p0.t7 had orders-3 added, but its record there was never appended.
    expect(crash.notReplayed).toContain(
      "p0.t7's ABORT marker has landed at orders-3: the transaction appended nothing there",
    );
  });

  it("a record two leaders appended (a retry at the new leader after a move) is sent once, where the copy that stayed was appended", () => {
    // leader-failover seed 7: p0.t11's record at orders-3 (producerId 1001, epoch 10, sequence 0)
    // was appended at offset 21 by broker-0 and, after broker-1 was elected (its log ended at 21,
    // so broker-0's copy was truncated), at offset 22 by broker-1. Real Kafka wrote such a record
    // twice when a plan sent it twice (seed 232783746 showed it before KIP-951 moved that run).
    const moved = planOf("leader-failover", 7);
    for (const p of [moved, plan, planOf("leader-failover", 5)]) {
      const values = p.steps.flatMap((s) => (s.kind === "send" ? [s.value] : []));
      expect(values.length).toBe(new Set(values).size);
    }
    const order = moved.steps.map(describeStep);
    expect(order.indexOf("broker-1 is elected leader of orders-3 (reassign)")).toBeGreaterThan(0);
    expect(order.indexOf("p0 sends p0.t11/1 to orders-3 and waits for the ack")).toBeGreaterThan(
      order.indexOf("broker-1 is elected leader of orders-3 (reassign)"),
    );
  });

  it("an operator's transaction.version update is a step (tv-upgrade-under-load seed 0: at 3 s, TV2)", () => {
    const tv = planOf("tv-upgrade-under-load", 0);
    const updates = tv.steps.filter((s) => s.kind === "update-feature");
    expect(updates).toMatchObject([
      { kind: "update-feature", feature: "transaction.version", level: 2, model: { kind: "ok" } },
    ]);
    expect(tv.transactionVersion).toBe(1);
  });
});

describe("the verdict of a run with cluster events", () => {
  // A recorded real run (kip-1228-gap, every broker on 4.2.1: clean, as the model's run on that cluster).
  const recorded = JSON.parse(
    readFileSync(new URL("./fixtures/real-runs/kip-1228-gap.all-4.2.1.json", import.meta.url), "utf8"),
  ) as { plan: ConfirmPlan; run: RealRun };
  const event: PlanStep = {
    key: 0,
    kind: "elect-leader",
    partition: "orders-0",
    broker: "broker-1",
    leaderEpoch: 1,
    cause: "reassign",
    model: { kind: "ok", detail: "broker-1 at leader epoch 1" },
  };
  const withEvent = (real: StepRecord["real"], stoppedEarly: string | null = null) => {
    const run = structuredClone(recorded.run);
    const plan = structuredClone(recorded.plan);
    plan.steps.push(event);
    run.steps.push({ index: plan.steps.length - 1, step: event, startMs: 0, endMs: 0, real, reply: {} });
    run.stoppedEarly = stoppedEarly;
    return { plan, run };
  };
  const clean = { violations: [], notes: [], markers: [], ledger: null as never };

  it("an event that happened as planned leaves the verdict to the history", () => {
    const { plan, run } = withEvent({ kind: "ok", detail: "node 1 leads" });
    const v = judge(plan, run, clean, { violations: [], outcomes: plan.steps.map((s) => s.model) });
    expect(v.verdict).toBe("confirmed");
  });

  it("an event that did not happen is inconclusive, never confirmed nor not-reproduced", () => {
    const { plan, run } = withEvent({ kind: "unknown", detail: "node 1 did not become leader" });
    const outcomes = plan.steps.map((s) => s.model);
    const v = judge(plan, run, clean, { violations: [], outcomes });
    expect(v.verdict).toBe("inconclusive");
    expect(v.eventsMissed).toEqual([
      `step ${plan.steps.length} (broker-1 is elected leader of orders-0 (reassign)): unknown, node 1 did not become leader`,
    ]);
    // Not even when real Kafka's history disagrees with the model's.
    const dirty = { ...clean, violations: [{ kind: "lost-write" }] as never };
    expect(judge(plan, run, dirty, { violations: [], outcomes }).verdict).toBe("inconclusive");
  });

  it("a hold that fired only after its release step gave up is inconclusive (its copy was not delivered where the model had it)", () => {
    const { plan, run } = withEvent({ kind: "ok", detail: "node 1 leads" });
    const release = run.steps.find((s) => s.step.kind === "release");
    if (!release) throw new Error("the fixture has a release");
    release.real = { kind: "unknown", detail: "hold-1 never fired: nothing held to release" };
    const v = judge(plan, run, clean, { violations: [], outcomes: plan.steps.map((s) => s.model) });
    expect(v.verdict).toBe("inconclusive");
    expect(v.unfired).toEqual([`hold-1 had not fired when the model delivered its copy (step ${release.index + 1})`]);
  });

  it("a clean model run whose plan stopped early is inconclusive, not confirmed", () => {
    const { plan, run } = withEvent({ kind: "ok", detail: "" }, "step 9 got no answer within 45000 ms");
    const v = judge(plan, run, clean, { violations: [], outcomes: plan.steps.map((s) => s.model) });
    expect(v.verdict).toBe("inconclusive");
  });
});
