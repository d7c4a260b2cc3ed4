import { describe, expect, it } from "vitest";
import { ClientMetadata } from "../../src/kafka/client/client-metadata.js";
import { ConsumerCoordinator } from "../../src/kafka/client/consumer-coordinator.js";
import { Cluster } from "../../src/kafka/cluster.js";
import type { HeldMessage } from "../../src/sim/network.js";
import type { ConsumerOffsetsSpec } from "../../src/kafka/cluster-spec.js";
import { Errors } from "../../src/kafka/common/errors.js";
import { type GhostObserver, NO_GHOST } from "../../src/kafka/ghost.js";
import type { KafkaRequest, KafkaResponse } from "../../src/kafka/protocol.js";
import type { ReleaseFlags, ReleaseName } from "../../src/kafka/release.js";
import { checkLiveness } from "../../src/oracle/liveness.js";
import { GhostLedger } from "../../src/oracle/ghost-ledger.js";
import { loadScenario } from "../../src/scenario/loader.js";
import { toClusterSpec } from "../../src/scenario/to-cluster-spec.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";

const GROUP = "processors";

/** The kip-1228 cluster (three 4.2.1 brokers) with one __consumer_offsets partition, no faults, no workload. */
function groupCluster(
  offsets: Partial<ConsumerOffsetsSpec> = {},
  ghost: GhostObserver = NO_GHOST,
  releases: Readonly<Record<string, ReleaseName>> = {},
  globalOverrides: Partial<ReleaseFlags> = {},
) {
  const spec = toClusterSpec(loadScenario("kip-1228").scenario, globalOverrides);
  for (const b of spec.brokers) b.release = releases[b.id] ?? b.release;
  spec.producers.count = 0;
  spec.consumers.count = 0;
  spec.consumerOffsets = {
    partitions: [{ replicas: ["broker-1", "broker-2", "broker-0"] }],
    minInsyncReplicas: 2,
    inputTopic: "orders",
    sessionTimeoutMs: 300,
    rebalanceTimeoutMs: 600,
    txnOffsetCommitGenerationCheck: true,
    markerTransactionVersionReachesLog: true,
    ...offsets,
  };
  const trace = new Trace({ record: true });
  const sim = new Simulation(trace);
  const cluster = new Cluster(spec, sim, ChoiceSource.seeded(1), ghost);
  cluster.net.faultsActive = false;
  cluster.startBrokers();
  // Followers' first fetches (a 500 ms long poll) must have set up replication before acks=all writes.
  sim.run({ maxEvents: 100_000, maxTimeMs: 2_000 });
  /** Send one request and run the simulation until its answer (a test client named `tester`). */
  const ask = <R extends KafkaResponse>(to: string, body: KafkaRequest): R => {
    let result: KafkaResponse | null = null;
    cluster.net.request(cluster.net.connect("tester", to), body, 5_000, (r) => {
      if (r.kind !== "response") throw new Error(`${body.api}: ${r.reason}`);
      result = r.body;
    });
    sim.run({ maxEvents: 100_000, maxTimeMs: sim.nowMs + 5_000 }, () => result !== null);
    if (result === null) throw new Error(`${body.api}: no answer`);
    return result as R;
  };
  return { cluster, sim, trace, ask };
}

type Answer<A extends KafkaResponse["api"]> = Extract<KafkaResponse, { api: A }>;
type Ask = ReturnType<typeof groupCluster>["ask"];

/** A member joined to the group and a producer committing orders-0's offsets 10, 20, ... with its group metadata. */
function joinedProcessor(ask: Ask, cluster: Cluster) {
  const join = ask<Answer<"JoinGroup">>("broker-1", {
    api: "JoinGroup",
    groupId: GROUP,
    memberId: "",
    groupInstanceId: null,
  });
  const group = { groupId: GROUP, generationId: join.generationId, memberId: join.memberId, groupInstanceId: null };
  let next = 0;
  const producer = cluster.newProducer("proc-0", "proc-txn-0", () => {
    next += 10;
    return { offsets: [{ partition: "orders-0", offset: next }], group };
  });
  return { group, producer };
}

/** Start the producer and run until it is done, heartbeating so the member stays in the group. */
function runWithHeartbeats(
  sim: Simulation,
  ask: Ask,
  group: { groupId: string; generationId: number; memberId: string; groupInstanceId: null },
  producer: ReturnType<Cluster["newProducer"]>,
) {
  producer.start(0);
  for (let t = 0; t < 20 && !producer.isDone; t++) {
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 100 });
    ask("broker-1", { api: "Heartbeat", ...group });
  }
}

/** OffsetFetch of orders-0 with require_stable (KIP-447), from the group coordinator `at`. */
function fetchStable(ask: Ask, at = "broker-1") {
  return ask<Answer<"OffsetFetch">>(at, {
    api: "OffsetFetch",
    groupId: GROUP,
    partitions: ["orders-0"],
    requireStable: true,
  });
}

/** One member joined and synced; transaction T1 of processor-0 (TV1) holds orders-0@7 pending at the group coordinator. */
function pendingOffsetsOfT1(ask: Ask) {
  const join = ask<Answer<"JoinGroup">>("broker-1", {
    api: "JoinGroup",
    groupId: GROUP,
    memberId: "",
    groupInstanceId: null,
  });
  const member = { groupId: GROUP, memberId: join.memberId, groupInstanceId: null, generationId: join.generationId };
  const sync = ask<Answer<"SyncGroup">>("broker-1", { api: "SyncGroup", ...member });
  const { tc, producer } = initProducer(ask, "processor-0");
  const added = ask<Answer<"AddOffsetsToTxn">>(tc, {
    api: "AddOffsetsToTxn",
    ...producer,
    groupId: GROUP,
    ghostTxn: "T1",
  });
  const commit = txnOffsetCommitOfT1(ask, member, producer, 7);
  return { member, tc, producer, sync, added, commit };
}

/** T1's TxnOffsetCommit (v3, TV1) of orders-0@`offset`, with the member's group metadata. */
function txnOffsetCommitOfT1(
  ask: Ask,
  member: { groupId: string; memberId: string; groupInstanceId: null; generationId: number },
  producer: { transactionalId: string; producerId: number; producerEpoch: number },
  offset: number,
) {
  return ask<Answer<"TxnOffsetCommit">>("broker-1", {
    api: "TxnOffsetCommit",
    version: 3,
    ...producer,
    ...member,
    offsets: [{ partition: "orders-0", offset }],
    ghostTxn: "T1",
  });
}

/** FindCoordinator(TRANSACTION) and InitProducerId for a fresh transactional.id. */
function initProducer(ask: Ask, transactionalId: string) {
  const tc = ask<Answer<"FindCoordinator">>("broker-0", { api: "FindCoordinator", key: transactionalId })
    .nodeId as string;
  const init = ask<Answer<"InitProducerId">>(tc, {
    api: "InitProducerId",
    transactionalId,
    transactionTimeoutMs: 10_000,
    producerId: -1,
    producerEpoch: -1,
  });
  return { tc, producer: { transactionalId, producerId: init.producerId, producerEpoch: init.producerEpoch } };
}

describe("group coordinator on the broker leading __consumer_offsets (KafkaApis -> GroupCoordinatorService)", () => {
  it("FindCoordinator(GROUP) names the leader of the group's offsets partition; other brokers answer NOT_COORDINATOR", () => {
    const { ask } = groupCluster();
    const found = ask<Answer<"FindCoordinator">>("broker-0", { api: "FindCoordinator", key: GROUP, keyType: "GROUP" });
    expect(found).toMatchObject({ errorCode: Errors.NONE, nodeId: "broker-1" });
    const wrong = ask<Answer<"JoinGroup">>("broker-0", {
      api: "JoinGroup",
      groupId: GROUP,
      memberId: "",
      groupInstanceId: null,
    });
    expect(wrong.errorCode).toBe(Errors.NOT_COORDINATOR);
  });

  it("consume-transform-produce at the protocol level (TV1): AddOffsetsToTxn, TxnOffsetCommit, EndTxn; the marker reaches the group coordinator", () => {
    const { ask, cluster, trace } = groupCluster();
    const { tc, producer, sync, added, commit } = pendingOffsetsOfT1(ask);
    expect(sync.assignment).toHaveLength(6);
    expect(added.errorCode).toBe(Errors.NONE);
    expect(commit.errorCode).toBe(Errors.NONE);
    const unstable = fetchStable(ask);
    expect(unstable.partitions[0]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
    const end = ask<Answer<"EndTxn">>(tc, { api: "EndTxn", version: 4, ...producer, committed: true, ghostTxn: "T1" });
    expect(end.errorCode).toBe(Errors.NONE);
    // The markers travel after EndTxn's answer: give them time.
    let stable: Answer<"OffsetFetch"> | null = null;
    for (let i = 0; i < 20 && stable?.partitions[0]?.errorCode !== Errors.NONE; i++) stable = fetchStable(ask);
    expect(stable?.partitions[0]).toMatchObject({ offset: 7, errorCode: Errors.NONE });
    const completed = trace.events.filter((e) => e.kind === "group.complete-txn");
    expect(completed).toHaveLength(1);
    expect(completed[0]?.fields).toMatchObject({
      partition: "__consumer_offsets-0",
      result: "COMMIT",
      moved: 1,
      tv: 0,
    });
    // The follower replicas hold the commit and its marker too (replicated like every partition).
    const follower = cluster.brokerOf("broker-2").logs.get("__consumer_offsets-0");
    expect(follower?.batches.some((b) => b.control?.type === "COMMIT")).toBe(true);
  });

  it("a member that missed its session timeout is fenced on TxnOffsetCommit (UNKNOWN_MEMBER_ID), unless KIP-447's check is off", () => {
    for (const check of [true, false]) {
      const { ask, sim } = groupCluster({ txnOffsetCommitGenerationCheck: check });
      const join = ask<Answer<"JoinGroup">>("broker-1", {
        api: "JoinGroup",
        groupId: GROUP,
        memberId: "",
        groupInstanceId: null,
      });
      sim.run({ maxEvents: 100_000, maxTimeMs: sim.nowMs + 1_000 });
      const { tc, producer } = initProducer(ask, "zombie-0");
      ask(tc, { api: "AddOffsetsToTxn", ...producer, groupId: GROUP, ghostTxn: "Z" });
      const commit = ask<Answer<"TxnOffsetCommit">>("broker-1", {
        api: "TxnOffsetCommit",
        version: 3,
        ...producer,
        groupId: GROUP,
        memberId: join.memberId,
        groupInstanceId: null,
        generationId: join.generationId,
        offsets: [{ partition: "orders-0", offset: 3 }],
        ghostTxn: "Z",
      });
      expect(commit.errorCode).toBe(check ? Errors.UNKNOWN_MEMBER_ID : Errors.NONE);
    }
  });
});

describe("a transactional producer committing input offsets in its transactions (sendOffsetsToTransaction)", () => {
  for (const tv of [1, 2] as const) {
    it(`TV${tv}: each committed transaction's offsets reach the group coordinator and become the committed offset`, () => {
      const { ask, cluster, sim, trace } = groupCluster();
      cluster.spec.producers.transactionVersion = tv;
      const { group, producer } = joinedProcessor(ask, cluster);
      runWithHeartbeats(sim, ask, group, producer);
      expect(producer.isDone).toBe(true);
      const done = trace.events.filter((e) => e.kind === "producer.outcome" && e.fields.outcome === "committed").length;
      expect(done).toBeGreaterThan(0);
      const written = trace.events.filter((e) => e.kind === "group.txn-offsets");
      const completed = trace.events.filter((e) => e.kind === "group.complete-txn" && e.fields.moved === 1);
      expect(written.length).toBeGreaterThan(0);
      expect(completed.length).toBe(done);
      const fetched = fetchStable(ask);
      expect(fetched.partitions[0]?.errorCode).toBe(Errors.NONE);
      expect(fetched.partitions[0]?.offset).toBeGreaterThan(0);
      // TV0/1 adds the offsets partition with AddOffsetsToTxn; TV2 through the coordinator's verification.
      const addOffsets = trace.events.filter((e) => e.kind === "net.send" && e.fields.msg === "AddOffsetsToTxn");
      expect(addOffsets.length > 0).toBe(tv === 1);
    });
  }
});

describe("a stale TV2 marker copy at an offsets partition (issue 17's question, end to end)", () => {
  /**
   * A TV2 processor commits offsets in t1 and t2. The request carrying t1's markers to broker-1
   * (the leader of __consumer_offsets-0 and of some output partitions) is held; a copy goes on, so
   * t1 completes. When t2's markers to broker-1 appear, t2's offsets are pending: the held t1 copy
   * is released first, and the offsets partition judges it by the rule its leader applies.
   */
  function staleCopyRun(markerTransactionVersionReachesLog: boolean, offsetsLeaderRelease: ReleaseName = "4.2.1") {
    const ledger = new GhostLedger();
    const { ask, cluster, sim, trace } = groupCluster({ markerTransactionVersionReachesLog }, ledger, {
      "broker-1": offsetsLeaderRelease,
    });
    cluster.spec.producers.transactionVersion = 2;
    cluster.spec.producers.transactions = 2;
    cluster.spec.producers.abortPpm = 0;
    const { group, producer } = joinedProcessor(ask, cluster);
    const held = new Map<string, HeldMessage<KafkaRequest, KafkaResponse>>();
    const net = cluster.net;
    net.setInterceptor({
      inspect: (m) => {
        if (m.direction !== "request" || m.to !== "broker-1" || m.label !== "WriteTxnMarkers") return false;
        const txn = (m.body as Extract<KafkaRequest, { api: "WriteTxnMarkers" }>).ghosts[0]?.ghostTxn ?? "";
        return !held.has(txn);
      },
      onHeld: (h) => {
        const txn = (h.message.body as Extract<KafkaRequest, { api: "WriteTxnMarkers" }>).ghosts[0]?.ghostTxn ?? "";
        held.set(txn, h);
        if (txn === "proc-0.t1") sim.schedule(0, () => net.deliverHeld(h, { keepHeld: true }));
        if (txn === "proc-0.t2") {
          const stale = held.get("proc-0.t1") as HeldMessage<KafkaRequest, KafkaResponse>;
          sim.schedule(0, () => net.deliverHeld(stale, { keepHeld: false }));
          sim.schedule(5, () => net.deliverHeld(h, { keepHeld: false }));
        }
      },
    });
    runWithHeartbeats(sim, ask, group, producer);
    expect(producer.isDone).toBe(true);
    expect([...held.keys()]).toEqual(["proc-0.t1", "proc-0.t2"]);
    return { ledger, trace };
  }

  const offsetsViolations = (ledger: GhostLedger) =>
    ledger.violations.filter((v) => v.kind === "stale-marker" && v.partition === "__consumer_offsets-0");

  it("every broker 4.2.1: the TransactionVersion reaches the offsets partition and the strict rule refuses the copy: clean", () => {
    const { ledger, trace } = staleCopyRun(true);
    expect(ledger.violations).toEqual([]);
    const refused = trace.events.filter(
      (e) => e.kind === "marker.rejected" && e.fields.partition === "__consumer_offsets-0",
    );
    expect(refused.map((e) => e.fields.rule)).toEqual(["strict-tv2"]);
  });

  it("a 4.1 leader of the offsets partition (WriteTxnMarkers v1, legacy rule): t1's copy commits t2's pending offsets: stale-marker", () => {
    const { ledger, trace } = staleCopyRun(true, "4.1");
    const stale = offsetsViolations(ledger);
    expect(stale).toHaveLength(1);
    expect(JSON.stringify(stale[0])).toContain("proc-0.t2");
    expect(stale[0]?.explanation.join("\n")).toContain("takes only WriteTxnMarkers v1");
    // t1's own copy committed t1's offsets; the stale copy then committed t2's, before t2 was decided.
    const completions = trace.events.filter((e) => e.kind === "group.complete-txn" && e.fields.txn === "proc-0.t1");
    expect(completions.map((e) => e.fields.moved)).toEqual([1, 1]);
  });

  it("4.2.1 if the group coordinator's path dropped the TransactionVersion: the legacy rule accepts the copy: stale-marker", () => {
    const { ledger } = staleCopyRun(false);
    const stale = offsetsViolations(ledger);
    expect(stale).toHaveLength(1);
    expect(stale[0]?.explanation.join("\n")).toContain("GroupCoordinatorService.completeTransaction");
  });

  it("is deterministic: the same run twice has the same trace hash", () => {
    expect(staleCopyRun(true, "4.1").trace.hash()).toBe(staleCopyRun(true, "4.1").trace.hash());
  });
});

describe("ConsumerCoordinator (classic membership: join, sync, heartbeats, rejoin)", () => {
  function member(cluster: Cluster, name: string, groupInstanceId: string | null = null) {
    const heard: string[] = [];
    let owned: readonly string[] = [];
    let generation = -1;
    const metadata = new ClientMetadata(cluster.ctx, name, {
      brokers: ["broker-0", "broker-1", "broker-2"],
      bootstrap: new Map(),
      config: { retryBackoffMs: 20, requestTimeoutMs: 200 },
    });
    const coordinator = new ConsumerCoordinator(
      cluster.ctx,
      { name, groupId: GROUP, groupInstanceId, heartbeatIntervalMs: 50, retryBackoffMs: 20, requestTimeoutMs: 200 },
      metadata,
      {
        assigned: (group, partitions) => {
          owned = partitions;
          generation = group.generationId;
          heard.push(`assigned g${group.generationId} ${partitions.length}`);
        },
        revoked: (reason) => {
          owned = [];
          heard.push(`revoked ${reason}`);
        },
      },
    );
    return { coordinator, heard, owned: () => owned, generation: () => generation };
  }

  it("two members share the input partitions; one paused past the session timeout loses them, then rejoins at a later generation", () => {
    const { cluster, sim } = groupCluster();
    const a = member(cluster, "c-a");
    const b = member(cluster, "c-b");
    a.coordinator.start();
    b.coordinator.start();
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 1_000 });
    expect([a.coordinator.state, b.coordinator.state]).toEqual(["stable", "stable"]);
    expect(a.generation()).toBe(b.generation());
    expect([...a.owned(), ...b.owned()].sort()).toEqual([
      "orders-0",
      "orders-1",
      "orders-2",
      "orders-3",
      "orders-4",
      "orders-5",
    ]);
    const before = a.generation();
    // b stops heartbeating for longer than the session timeout (300 ms): the group expels it.
    b.coordinator.pause(sim.nowMs + 800);
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 600 });
    expect(a.owned()).toHaveLength(6);
    expect(a.generation()).toBeGreaterThan(before);
    // Back from its pause, b's heartbeat is refused (UNKNOWN_MEMBER_ID): it rejoins as a new member.
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 1_500 });
    expect(b.heard.some((h) => h.startsWith(`revoked Heartbeat: ${Errors.UNKNOWN_MEMBER_ID}`))).toBe(true);
    expect([a.coordinator.state, b.coordinator.state]).toEqual(["stable", "stable"]);
    expect(b.generation()).toBe(a.generation());
    expect(a.owned().length + b.owned().length).toBe(6);
  });

  it("a static member restarted with the same group.instance.id fences the old instance (FENCED_INSTANCE_ID: it stops)", () => {
    const { cluster, sim } = groupCluster();
    const old = member(cluster, "c-old", "instance-1");
    old.coordinator.start();
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 500 });
    const fresh = member(cluster, "c-new", "instance-1");
    fresh.coordinator.start();
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 500 });
    expect(fresh.coordinator.state).toBe("stable");
    expect(old.coordinator.state).toBe("fenced");
    expect(old.heard.at(-1)).toMatch(/FENCED_INSTANCE_ID/);
  });
});

describe("group coordinator failover (the offsets partition's leadership moves)", () => {
  it("the new leader loads the pending transactional offsets from its replica; the transaction's marker then commits them there", () => {
    const { ask, cluster, sim } = groupCluster();
    const { member, tc, producer, commit } = pendingOffsetsOfT1(ask);
    expect(commit.errorCode).toBe(Errors.NONE);
    expect(cluster.controller.moveLeader("__consumer_offsets-0")).toBe(true);
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 500 });
    const moved = ask<Answer<"FindCoordinator">>("broker-0", { api: "FindCoordinator", key: GROUP, keyType: "GROUP" });
    const leader = moved.nodeId as string;
    expect(leader).not.toBe("broker-1");
    expect(fetchStable(ask, leader).partitions[0]?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
    // Members are not loaded (a model limit): the old member id is unknown to the new coordinator.
    expect(ask<Answer<"Heartbeat">>(leader, { api: "Heartbeat", ...member }).errorCode).toBe(Errors.UNKNOWN_MEMBER_ID);
    expect(
      ask<Answer<"EndTxn">>(tc, { api: "EndTxn", version: 4, ...producer, committed: true, ghostTxn: "T1" }).errorCode,
    ).toBe(Errors.NONE);
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 500 });
    expect(fetchStable(ask, leader).partitions[0]).toMatchObject({ offset: 7, errorCode: Errors.NONE });
  });
});

describe("a late TxnOffsetCommit after its transaction ended (KAFKA-15449, BUG-ZOO Z33)", () => {
  /** T1 commits orders-0@7; then a delayed copy of its TxnOffsetCommit (same producer id and epoch, TV1) arrives. */
  function lateCommit(verification: boolean) {
    const ledger = new GhostLedger();
    const overrides = verification ? {} : { transactionPartitionVerification: false };
    const { ask, cluster, sim } = groupCluster({ sessionTimeoutMs: 60_000 }, ledger, {}, overrides);
    const { member, tc, producer } = pendingOffsetsOfT1(ask);
    ask(tc, { api: "EndTxn", version: 4, ...producer, committed: true, ghostTxn: "T1" });
    for (let i = 0; i < 20 && fetchStable(ask).partitions[0]?.errorCode !== Errors.NONE; i++);
    expect(fetchStable(ask).partitions[0]?.offset).toBe(7);
    const late = txnOffsetCommitOfT1(ask, member, producer, 9);
    // Longer than the transaction timeout: nothing will ever end what the late commit opened.
    sim.run({ maxEvents: 1_000_000, maxTimeMs: sim.nowMs + 15_000 });
    const hanging = checkLiveness(ledger, cluster.snapshot(), sim.nowMs).filter(
      (v) => v.partition === "__consumer_offsets-0",
    );
    return { late, hanging, stable: fetchStable(ask).partitions[0] };
  }

  it("without verification (before 3.7) it opens a transaction on the offsets partition that no marker closes: the oracle reports it hanging", () => {
    const { late, hanging, stable } = lateCommit(false);
    expect(late.errorCode).toBe(Errors.NONE);
    expect(hanging.map((v) => v.kind)).toEqual(["hanging-transaction"]);
    expect(stable?.errorCode).toBe(Errors.UNSTABLE_OFFSET_COMMIT);
  });

  it("with verification the transaction coordinator refuses it (the partition is in no ongoing transaction): nothing hangs", () => {
    const { late, hanging, stable } = lateCommit(true);
    expect(late.errorCode).not.toBe(Errors.NONE);
    expect(hanging).toEqual([]);
    expect(stable).toMatchObject({ offset: 7, errorCode: Errors.NONE });
  });
});
