import { describe, expect, it } from "vitest";
import { brokerStall } from "../../src/kafka/faults/broker-stall.js";
import { brokerCrash, controlledShutdown } from "../../src/kafka/faults/broker-stop.js";
import { coordinatorFailover } from "../../src/kafka/faults/coordinator-failover.js";
import { deleteRecords } from "../../src/kafka/faults/delete-records.js";
import { leaderMove } from "../../src/kafka/faults/leader-move.js";
import { linkPartition } from "../../src/kafka/faults/link-partition.js";
import { producerPause } from "../../src/kafka/faults/producer-pause.js";
import { producerRestart } from "../../src/kafka/faults/producer-restart.js";
import { transactionLogOutage } from "../../src/kafka/faults/transaction-log-outage.js";
import type { FaultDrawContext } from "../../src/kafka/faults/node-fault.js";
import { NODE_FAULT_LIST, nodeFaultSpecs } from "../../src/kafka/faults/registry.js";
import type { TraceEvent } from "../../src/sim/trace.js";
import { scenarioSchema } from "../../src/scenario/schema.js";

const event = (kind: string, node: string, fields: TraceEvent["fields"]): TraceEvent => ({
  index: 0,
  timeMs: 10,
  node,
  kind,
  fields,
  hash: "",
});

/** A draw context whose choices always strike and record what the network was told. */
function strikingContext(brokers: string[]): { ctx: FaultDrawContext; calls: string[] } {
  const calls: string[] = [];
  const ctx = {
    choices: { chance: () => true, between: (_s: string, min: number) => min, pick: () => 0 },
    cluster: {
      transactionStatePartitions: ["__transaction_state-0", "__transaction_state-1"],
      partitions: ["orders-0"],
      emit: (_node: string, kind: string) => calls.push(kind),
      moveLeader: (p: string) => calls.push(`move ${p}`),
      startTransactionLogOutage: (i: number, until: number) => calls.push(`outage ${i} ${until}`),
      stoppableBrokers: () => ["b1", "b2"],
      stopBroker: (how: string, broker: string, downtime: number) => calls.push(`${how} ${broker} ${downtime}`),
      pauseProducer: (index: number, until: number) => calls.push(`pause producer ${index} ${until}`),
      canRestartProducer: () => true,
      restartProducer: (index: number, until: number) => calls.push(`restart producer ${index} ${until}`),
      deleteRecords: (p: string) => calls.push(`delete-records ${p}`),
    },
    net: {
      stall: (node: string, untilMs: number) => calls.push(`stall ${node} ${untilMs}`),
      block: (from: string, to: string, untilMs: number) => calls.push(`block ${from}->${to} ${untilMs}`),
    },
    nowMs: 100,
    brokers,
  } as unknown as FaultDrawContext;
  return { ctx, calls };
}

describe("the fault registry", () => {
  it("lists each fault once, in the nemesis's draw order, each off by default", () => {
    expect(NODE_FAULT_LIST.map((f) => f.field)).toEqual([
      "brokerStall",
      "linkPartition",
      "coordinatorFailover",
      "transactionLogOutage",
      "leaderMove",
      "controlledShutdown",
      "brokerCrash",
      "producerPause",
      "producerRestart",
      "deleteRecords",
    ]);
    const defaults = scenarioSchema.shape.faults.parse({});
    const specs = nodeFaultSpecs(defaults);
    for (const fault of NODE_FAULT_LIST) expect(specs[fault.field].ppm).toBe(0);
  });

  it("turns a scenario's settings into the cluster spec's part (ppm, ranges)", () => {
    const f = scenarioSchema.shape.faults.parse({
      brokerStall: { probability: 0.25, durationMs: [5, 9] },
      linkPartition: { probability: 1, durationMs: [1, 2] },
    });
    expect(nodeFaultSpecs(f)).toEqual({
      brokerStall: { ppm: 250_000, durationMs: { min: 5, max: 9 } },
      linkPartition: { ppm: 1_000_000, durationMs: { min: 1, max: 2 }, oneWayPpm: 500_000 },
      coordinatorFailover: { ppm: 0 },
      transactionLogOutage: { ppm: 0, durationMs: { min: 100, max: 1_000 } },
      leaderMove: { ppm: 0 },
      controlledShutdown: { ppm: 0, downtimeMs: { min: 200, max: 1_000 } },
      brokerCrash: { ppm: 0, downtimeMs: { min: 200, max: 1_000 } },
      producerPause: { ppm: 0, durationMs: { min: 100, max: 1_000 } },
      producerRestart: { ppm: 0, zombiePauseMs: { min: 100, max: 2_000 } },
      deleteRecords: { ppm: 0 },
    });
  });

  it("broker stall: draws per broker, tells its story to a violation about that broker, draws its band", () => {
    const { ctx, calls } = strikingContext(["b1", "b2"]);
    brokerStall.draw(ctx, { ppm: 1, durationMs: { min: 7, max: 9 } });
    expect(calls).toEqual(["stall b1 107", "stall b2 107"]);
    const stall = event("fault.stall", "b1", { untilMs: 50 });
    expect(brokerStall.storyLine(stall, { broker: "b1" })).toBe("fault: b1 stalls until t=50ms");
    expect(brokerStall.storyLine(stall, { broker: "b2" })).toBeNull();
    expect(brokerStall.band(stall, () => true)).toEqual({
      kind: "stall",
      lanes: ["b1"],
      untilMs: 50,
      label: "b1 stalled",
    });
    expect(brokerStall.band(event("fault.partition", "b1", { to: "b2", untilMs: 50 }), () => true)).toBeNull();
  });

  it("link partition: one cut per strike, both ways unless one way is drawn; its band on the lanes shown", () => {
    const { ctx, calls } = strikingContext(["b1", "b2", "b3"]);
    linkPartition.draw(ctx, { ppm: 1, durationMs: { min: 3, max: 4 }, oneWayPpm: 1 });
    expect(calls).toEqual(["block b1->b2 103"]);
    const cut = event("fault.partition", "b1", { to: "b2", untilMs: 60 });
    expect(linkPartition.band(cut, (l) => l === "b1")).toEqual({
      kind: "partition",
      lanes: ["b1"],
      untilMs: 60,
      label: "link b1 -> b2 cut",
    });
  });

  it("leadership moves and the transaction-log outage act on the cluster's own partitions", () => {
    const { ctx, calls } = strikingContext(["b1", "b2"]);
    coordinatorFailover.draw(ctx, { ppm: 1 });
    leaderMove.draw(ctx, { ppm: 1 });
    transactionLogOutage.draw(ctx, { ppm: 1, durationMs: { min: 20, max: 30 } });
    transactionLogOutage.draw(ctx, { ppm: 0, durationMs: { min: 20, max: 30 } });
    expect(calls).toEqual([
      "fault.leader-move",
      "move __transaction_state-0",
      "fault.leader-move",
      "move orders-0",
      "fault.txnlog-outage",
      "outage 0 120",
    ]);
  });

  it("broker stops take a broker the nemesis can stop, and none when fewer than two can be", () => {
    const { ctx, calls } = strikingContext(["b1", "b2"]);
    controlledShutdown.draw(ctx, { ppm: 1, downtimeMs: { min: 5, max: 6 } });
    brokerCrash.draw(ctx, { ppm: 1, downtimeMs: { min: 7, max: 8 } });
    const one = { ...ctx, cluster: { ...ctx.cluster, stoppableBrokers: () => ["b1"] } };
    brokerCrash.draw(one, { ppm: 1, downtimeMs: { min: 7, max: 8 } });
    expect(calls).toEqual(["controlled b1 5", "crash b1 7"]);
  });

  it("producer pause and restart: drawn per producer, nothing per tick; a restart only while the bound allows", () => {
    const { ctx, calls } = strikingContext(["b1", "b2"]);
    producerPause.draw(ctx, { ppm: 1, durationMs: { min: 11, max: 12 } });
    producerRestart.draw(ctx, { ppm: 1, zombiePauseMs: { min: 13, max: 14 } });
    expect(calls).toEqual([]);
    producerPause.drawForProducer?.(ctx, { ppm: 1, durationMs: { min: 11, max: 12 } }, 1);
    producerRestart.drawForProducer?.(ctx, { ppm: 1, zombiePauseMs: { min: 13, max: 14 } }, 1);
    const bounded = { ...ctx, cluster: { ...ctx.cluster, canRestartProducer: () => false } };
    producerRestart.drawForProducer?.(bounded, { ppm: 1, zombiePauseMs: { min: 13, max: 14 } }, 0);
    expect(calls).toEqual(["pause producer 1 111", "restart producer 1 113"]);
    const pause = event("producer.pause", "p0", { untilMs: 70 });
    expect(producerPause.band?.(pause, () => true)).toEqual({
      kind: "pause",
      lanes: ["p0"],
      untilMs: 70,
      label: "p0 paused (zombie)",
    });
    const restart = event("fault.producer-restart", "nemesis", { old: "p0", fresh: "p0#2" });
    expect(producerRestart.band?.(restart, (l) => l !== "p0")).toEqual({
      kind: "restart",
      lanes: ["p0#2"],
      untilMs: 10,
      label: "restart: p0#2 replaces p0",
    });
    expect(producerRestart.band?.(pause, () => true)).toBeNull();
  });

  it("DeleteRecords: one partition per strike, nothing at rate 0; its story names the evicted producers", () => {
    const { ctx, calls } = strikingContext(["b1"]);
    deleteRecords.draw(ctx, { ppm: 0 });
    deleteRecords.draw(ctx, { ppm: 1 });
    expect(calls).toEqual(["delete-records orders-0"]);
    const e = event("fault.delete-records", "nemesis", {
      partition: "orders-0",
      leader: "b1",
      logStartOffset: 4,
      evicted: "1000",
    });
    expect(deleteRecords.storyLine?.(e, { broker: "b1" })).toBe(
      "fault: DeleteRecords moves orders-0's log start offset to 4 at b1; producer state evicted with the records: 1000",
    );
    expect(deleteRecords.storyLine?.(e, { broker: "b2" })).toBeNull();
  });
});
