import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { isUnexpected } from "../../src/fuzz/campaign/expectation.js";
import { drawEverything, drawnReason, EVERYTHING_STREAM } from "../../src/fuzz/run-shaping/everything.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { matchesTarget, targetOf } from "../../src/fuzz/shrink/shrink.js";
import { UNINDEXED_ABORT_TEXT } from "../../src/oracle/client/aborted-read.js";
import { DELAYED_END_TXN_TEXT } from "../../src/oracle/client/explain-client.js";
import { CLOSED_IN_LOG_TEXT } from "../../src/oracle/liveness.js";
import { LOST_TXN_LOG_RECORD_TEXT } from "../../src/oracle/lost-txn-log-record.js";
import { LATE_MARKER_CLEARED_TEXT } from "../../src/oracle/late-marker-verification.js";
import { NO_LOWER_VERIFIED_TEXT, STUCK_SEQUENCE_TEXT } from "../../src/oracle/stuck-sequence.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { ChoiceSource } from "../../src/sim/choice-tape.js";

const loaded = resolveScenario("everything");
const config = runConfigFor(loaded);
const draw = (seed: number) => drawEverything(config.spec, ChoiceSource.seeded(seed));
const DRAWS = Array.from({ length: 300 }, (_, seed) => draw(seed));

/**
 * The draws on each side of each condition a draw test checks: a check that a condition decides an
 * allowance says something only if both sides occur among the draws, so each test ends by asking.
 */
class BothSides {
  private readonly counts = new Map<string, { held: number; not: number }>();

  see(condition: string, holds: boolean): void {
    const c = this.counts.get(condition) ?? { held: 0, not: 0 };
    this.counts.set(condition, holds ? { ...c, held: c.held + 1 } : { ...c, not: c.not + 1 });
  }

  expectBoth(): void {
    for (const [condition, { held, not }] of this.counts)
      expect([held > 0, not > 0], `${condition}: held in ${held} draws, not in ${not}`).toEqual([true, true]);
  }
}

describe("the generic scenario everything (issue 31)", () => {
  it("draws each seed's setting from the seed alone, and every setting it names over a few hundred seeds", () => {
    expect(draw(7).summary).toBe(draw(7).summary);
    expect(draw(7).spec).toEqual(draw(7).spec);
    expect(new Set(DRAWS.map((d) => d.summary)).size).toBe(DRAWS.length);
    const all = DRAWS.map((d) => d.summary).join("\n");
    for (const named of [
      "4.4 everywhere",
      "4.3 everywhere",
      "4.2.1 everywhere",
      "4.1 everywhere",
      "4.0 everywhere",
      "the KIP-1228 gap",
      "a rolling upgrade from 4.1 to 4.2.1",
      "a rolling upgrade from 4.1 to 4.4",
      "a rolling upgrade from 4.2.1 to 4.4",
      "3.x with TV1 producers",
      "transaction.version 2 -> 1",
      "transaction.version 1 -> 2",
      "epochs near exhaustion",
      "producer-state expiry",
      "transactional.id expiry 1 s",
      "admin aborts",
      "processors",
      "failing sends",
      "empty transactions",
      "aborts without flush",
      "request.timeout.ms 300",
      "slow markers x1/64",
      "coordinator failovers x1",
      "__transaction_state outages",
      "broker crashes",
      "producer restarts",
      "processor pause",
      "plain committers",
      "DeleteRecords x1/4",
      "one request per connection",
      "one record a batch",
    ])
      expect(all).toContain(named);
  });

  it("draws one request per connection and one record a batch last, each about half the time", () => {
    const perConnection = DRAWS.filter((d) => d.spec.broker.oneRequestPerConnection === true);
    const oneRecord = DRAWS.filter((d) => d.spec.producers.recordsPerBatch === 1);
    for (const d of perConnection) expect(d.summary).toContain("one request per connection");
    for (const d of oneRecord) expect(d.summary).toContain("one record a batch");
    expect(perConnection.length).toBeGreaterThan(DRAWS.length / 4);
    expect(oneRecord.length).toBeGreaterThan(DRAWS.length / 4);
  });

  it("never draws what Kafka is known to break outright: exhaustion only where 4.3+ recovers, admin aborts never with 4.0/4.1", () => {
    for (const d of DRAWS) {
      const releases = new Set([...d.spec.brokers.map((b) => b.release), d.spec.faults.rollingUpgrade?.release]);
      if (d.spec.producers.initialProducerEpoch === 32_758)
        expect([...releases].every((r) => r === undefined || r === "4.3" || r === "4.4")).toBe(true);
      if (d.spec.faults.adminAbortTransaction) expect(releases.has("4.1") || releases.has("4.0")).toBe(false);
      // Off is off: the spec carries no processors when the summary does not name them.
      expect(d.spec.consumerOffsets?.processors !== undefined).toBe(/\bprocessors\b/.test(d.summary));
      expect(d.spec.consumerOffsets?.committers !== undefined).toBe(d.summary.includes("plain committers"));
      expect(d.spec.faults.deleteRecords.ppm > 0).toBe(d.summary.includes("DeleteRecords"));
    }
  });

  it("expects a stale marker only where Kafka makes one: a 4.0/4.1 place in a mixed cluster, anywhere under TV1", () => {
    const gap = DRAWS.find((d) => d.summary.includes("the KIP-1228 gap") && !d.summary.includes("transaction.version"));
    const tv1 = DRAWS.find((d) => d.summary.includes("3.x with TV1") && !d.summary.includes("producer-state expiry"));
    const strict = DRAWS.find((d) => d.summary.startsWith("everything: 4.4 everywhere") && !d.summary.includes("->"));
    if (!gap || !tv1 || !strict) throw new Error("the draws lack a setting this test needs");
    const stale = (brokerRelease: string, coordinatorRelease: string) => ({
      kind: "stale-marker" as const,
      summary: "stale COMMIT marker",
      brokerRelease,
      coordinatorRelease,
    });
    expect(drawnReason(gap, stale("4.1", "4.2.1"))).toContain("KAFKA-19446");
    expect(drawnReason(gap, stale("4.2.1", "4.1"))).toContain("KAFKA-19446");
    // At a strict leader, from a strict coordinator, a stale marker is a finding (KIP-1228's own bug).
    expect(drawnReason(gap, stale("4.2.1", "4.2.1"))).toBeNull();
    expect(drawnReason(strict, stale("4.4", "4.4"))).toBeNull();
    expect(drawnReason(tv1, stale("3.x", "3.x"))).toContain("KAFKA-17754");
    // TV1's fatal errors are expected (a stale marker's consequence), but not a batch stuck behind a
    // later sequence of its own transaction (KAFKA-14904's symptom, which no stale marker leads to).
    const fatal = (summary: string) => ({ kind: "fatal-error" as const, summary });
    expect(drawnReason(tv1, fatal("p0 got a fatal INVALID_TXN_STATE on EndTxn"))).toContain("KAFKA-17754");
    expect(drawnReason(tv1, fatal(`p0.t1's batch at sequence 0 is ${STUCK_SEQUENCE_TEXT} at orders-1`))).toBeNull();
    // Producer-state expiry (seed 90): a verification entry that expired under a retried
    // AddPartitionsToTxn refuses the write INVALID_TXN_STATE (test/conform/harness-verification.test.ts);
    // without that clock, the same fatal error under TV2 is a finding.
    const offsetCommit = fatal("q2 got a fatal INVALID_TXN_STATE on TxnOffsetCommit at epoch 0");
    const tv2 = DRAWS.filter(
      (d) => /^everything: 4\.(2\.1|3|4) everywhere,/.test(d.summary) && !d.summary.includes("transaction.version"),
    );
    const expiring = tv2.find((d) => d.summary.includes("producer-state expiry"));
    const lasting = tv2.find(
      (d) => !d.summary.includes("producer-state expiry") && !d.summary.includes("transactional.id expiry"),
    );
    if (!expiring || !lasting) throw new Error("the draws lack an expiry setting this test needs");
    expect(drawnReason(expiring, offsetCommit)).toContain("producer.id.expiration.ms");
    expect(drawnReason(expiring, fatal("p0 got a fatal INVALID_PRODUCER_EPOCH on Produce"))).toBeNull();
    expect(drawnReason(lasting, offsetCommit)).toBeNull();
    // The same expiry takes the verification entry's lowest sequence away (seed 607; Kafka's
    // UnifiedLog agrees, test/conform/stuck-sequence-cases.ts): a batch stuck behind a later
    // sequence is expected where KAFKA-18202 (4.1.0) does not refuse the later batch (a 4.0 leader,
    // or TV1), and a finding elsewhere or without that clock, processors or not.
    const stuck = fatal(`p2.t2's batch at sequence 0 is ${STUCK_SEQUENCE_TEXT} at input-0 on broker-0`);
    const expiring40 = DRAWS.find(
      (d) => d.summary.startsWith("everything: 4.0 everywhere") && d.summary.includes("producer-state expiry"),
    );
    const expiringTv1 = DRAWS.find(
      (d) => d.summary.includes("3.x with TV1") && d.summary.includes("producer-state expiry"),
    );
    if (!expiring40 || !expiringTv1) throw new Error("the draws lack an expiry setting this test needs");
    expect(drawnReason(expiring40, stuck)).toContain("producer.id.expiration.ms");
    expect(drawnReason(expiringTv1, stuck)).toContain("producer.id.expiration.ms");
    expect(drawnReason(expiring, stuck)).toBeNull();
    expect(drawnReason(lasting, stuck)).toBeNull();
    const legacyProcessors = DRAWS.find(
      (d) =>
        d.summary.includes("everywhere (TV2 without KIP-1228)") &&
        d.summary.includes("processors") &&
        !d.summary.includes("producer-state expiry"),
    );
    if (!legacyProcessors) throw new Error("the draws lack a 4.0/4.1 draw with processors");
    expect(drawnReason(legacyProcessors, stuck)).toBeNull();
    // Nothing makes a zombie commit or a model error expected, nor a hang of another cause than the
    // two below.
    const hang = (summary: string) => ({ kind: "hanging-transaction" as const, summary });
    for (const d of DRAWS) {
      expect(d.expected.has("zombie-commit")).toBe(false);
      expect(d.expected.has("model-error")).toBe(false);
      expect(
        drawnReason(
          d,
          hang("orders-1 on broker-1 (4.4): LSO stuck at 1 behind the open transaction of producer 1000 (p0.t2)"),
        ),
      ).toBeNull();
    }
  });

  it("expects a hang only of the two causes Kafka itself shows, and only where the draw makes them possible", () => {
    // Seed 3911: a truncation reloaded a producer snapshot after every producer expired
    // (test/conform/stale-snapshot-cases.ts): only with producer-state expiry.
    const reopened = {
      kind: "hanging-transaction" as const,
      summary: `input-0 on broker-0 (4.2.1): LSO stuck at 11 behind the open transaction of producer 1001 (p1.t3) ${CLOSED_IN_LOG_TEXT} 13`,
    };
    // Seed 4222: a coordinator answered from an uncommitted __transaction_state record a leader
    // change then truncated: only where a fault moves __transaction_state leaders.
    const lostHang = {
      kind: "hanging-transaction" as const,
      summary: `output-0 on broker-0 (4.0): LSO stuck at 12 behind the open transaction of producer 1004 (p2#3.t4): the ${LOST_TXN_LOG_RECORD_TEXT} output-0 was truncated`,
    };
    const lostFatal = {
      kind: "fatal-error" as const,
      summary: `p2#3 got a fatal INVALID_TXN_STATE on EndTxn at epoch 0 though no newer producer or coordinator fenced it: the ${LOST_TXN_LOG_RECORD_TEXT} its partitions was truncated`,
    };
    const leaderMoves = (d: (typeof DRAWS)[number]) =>
      /coordinator failovers|leader moves|controlled shutdowns|broker crashes|a rolling upgrade/.test(d.summary);
    const sides = new BothSides();
    for (const d of DRAWS) {
      const expiry = d.summary.includes("producer-state expiry");
      expect(drawnReason(d, reopened) !== null).toBe(expiry);
      expect(drawnReason(d, lostHang) !== null).toBe(leaderMoves(d));
      // The fatal error's other allowances (TV1, a transaction.version change, producer-state expiry's
      // INVALID_TXN_STATE, a 4.0/4.1 cluster's processors) may expect it too; without them, only this one.
      const lostReasons = (d.expected.get("fatal-error") ?? []).filter((a) =>
        a.reason.includes("uncommitted __transaction_state"),
      );
      expect(lostReasons.length).toBe(leaderMoves(d) ? 1 : 0);
      if (leaderMoves(d)) expect(drawnReason(d, lostFatal)).not.toBeNull();
      sides.see("producer-state expiry", expiry);
      sides.see("leader moves", leaderMoves(d));
    }
    sides.expectBoth();
  });

  it("expects an aborted read behind an unindexed ABORT marker only with producer-state expiry (seed 397)", () => {
    // A truncation after every producer expired forgot the open transaction, so the replicated
    // ABORT marker closed nothing in the transaction index: only with producer-state expiry.
    const unindexed = {
      kind: "aborted-read" as const,
      summary: `p0.t6 was aborted, yet read_committed consumers read its records: input-2 offsets 21..22; broker-2's ${UNINDEXED_ABORT_TEXT} at offset 23 that follows them`,
    };
    const plain = {
      kind: "aborted-read" as const,
      summary: "p0.t6 was aborted, yet read_committed consumers read its records: input-2 offsets 21..22",
    };
    const sides = new BothSides();
    for (const d of DRAWS) {
      const expiry = d.summary.includes("producer-state expiry");
      // Other allowances (TV1, a transaction.version change, 4.0/4.1) may expect any aborted read;
      // this one only the summary that names the unindexed marker.
      const reasons = (d.expected.get("aborted-read") ?? []).filter((a) => a.reason.includes("transaction index"));
      expect(reasons.length).toBe(expiry ? 1 : 0);
      if (expiry) expect(drawnReason(d, unindexed)).not.toBeNull();
      if (reasons.length === (d.expected.get("aborted-read") ?? []).length) {
        expect(drawnReason(d, unindexed) !== null).toBe(expiry);
        expect(drawnReason(d, plain)).toBeNull();
      }
      sides.see("producer-state expiry", expiry);
    }
    sides.expectBoth();
  });

  it("expects a batch stuck behind a later sequence at a new leader, and a write whose verification a late marker copy cleared, only where the draw makes them possible (Z07's bug-off seeds 2853, 182)", () => {
    const newLeader = {
      kind: "fatal-error" as const,
      summary: `p0.t6's batch at sequence 0 is ${STUCK_SEQUENCE_TEXT} at input-2 on broker-2: sequence 4 was written first, and every retry is refused OUT_OF_ORDER_SEQUENCE_NUMBER; broker-2's ${NO_LOWER_VERIFIED_TEXT}`,
    };
    const lateCopy = {
      kind: "fatal-error" as const,
      summary: `q1#2 got a fatal INVALID_TXN_STATE on TxnOffsetCommit at epoch 22 though no newer producer or coordinator fenced it: a late copy of q1#2.t20's marker (epoch 21) written again at __consumer_offsets-0 on broker-0 ${LATE_MARKER_CLEARED_TEXT}`,
    };
    const moves = (d: (typeof DRAWS)[number]) =>
      /leader moves|controlled shutdowns|broker crashes|broker stalls|link partitions|a rolling upgrade/.test(
        d.summary,
      );
    // TV1 verification (TV1 producers or a transaction.version change) or a leader without KAFKA-18202 (3.x, 4.0).
    const unrefused = (d: (typeof DRAWS)[number]) => /TV1|transaction\.version|4\.0 everywhere/.test(d.summary);
    const heldBack = (d: (typeof DRAWS)[number]) =>
      /slow requests|slow markers|broker stalls|link partitions/.test(d.summary);
    const reasons = (d: (typeof DRAWS)[number], words: string) =>
      (d.expected.get("fatal-error") ?? []).filter((a) => a.reason.includes(words)).length;
    const sides = new BothSides();
    for (const d of DRAWS) {
      const stuckExpected = moves(d) && unrefused(d);
      expect(reasons(d, "a leader change between")).toBe(stuckExpected ? 1 : 0);
      if (stuckExpected) expect(drawnReason(d, newLeader)).not.toBeNull();
      expect(reasons(d, "late copy")).toBe(heldBack(d) ? 1 : 0);
      if (heldBack(d)) expect(drawnReason(d, lateCopy)).not.toBeNull();
      // Where no other allowance takes every fatal error, the plain stuck sequence stays a finding.
      const all = d.expected.get("fatal-error") ?? [];
      if (all.every((a) => a.summaryIncludes !== undefined)) {
        const expiry = d.summary.includes("producer-state expiry");
        expect(drawnReason(d, newLeader) !== null).toBe((moves(d) || expiry) && unrefused(d));
        expect(drawnReason(d, lateCopy) !== null).toBe(heldBack(d));
      }
      sides.see("a leader move under unrefused verification", stuckExpected);
      sides.see("a fault that holds a marker back", heldBack(d));
    }
    sides.expectBoth();
  });

  it("expects a duplicate and a reordered record only with producer-state expiry under TV1 verification (Z07's bug-off seed 2711)", () => {
    const duplicate = {
      kind: "duplicate" as const,
      summary: "p2.t5/1 of p2.t5 is visible 2 times: input-1 offsets 18, 22",
    };
    const reordered = {
      kind: "non-monotonic" as const,
      summary: "p2's records out of order at input-1: p2.t5/1 at offset 22 after p2.t5/3 at offset 19",
    };
    const sides = new BothSides();
    for (const d of DRAWS) {
      const expiry = d.summary.includes("producer-state expiry");
      const tv1 = /TV1|transaction\.version/.test(d.summary);
      expect(drawnReason(d, duplicate) !== null).toBe(expiry && tv1);
      expect(drawnReason(d, reordered) !== null).toBe(expiry && tv1);
      // Each condition on both sides while the other holds: expiry with and without TV1, TV1 with and without expiry.
      if (tv1) sides.see("producer-state expiry, under TV1", expiry);
      if (expiry) sides.see("TV1, with producer-state expiry", tv1);
    }
    sides.expectBoth();
  });

  it("expects a lost or torn write under TV1, a transaction.version change or 4.0/4.1 only beside its cause (Z01's ground)", () => {
    const torn = {
      kind: "torn-transaction" as const,
      summary: "p0.t3 is partly visible: input-0 offset 4 visible, input-1 offset 7 not",
      explanation: ["t=10ms     p0.t3 wrote input-0 offset 4 on broker-0 (producerId 1000, epoch 0)"],
    };
    const lost = {
      ...torn,
      kind: "lost-write" as const,
      summary: "p0.t3 was committed, yet 1 of its 2 records is not visible",
    };
    const stale = {
      kind: "stale-marker" as const,
      summary: "stale COMMIT marker for p0.t2 committed p0.t3's records at input-0 offset 4 on broker-0 (3.x)",
      brokerRelease: "3.x",
      coordinatorRelease: "3.x",
    };
    const delayed = {
      ...torn,
      explanation: [...torn.explanation, `${DELAYED_END_TXN_TEXT} reached the coordinator after p0.t3 had begun`],
    };
    const unindexed = {
      kind: "aborted-read" as const,
      summary: `p0.t3 was aborted, yet read_committed consumers read its records: input-0 offset 4; broker-0's ${UNINDEXED_ABORT_TEXT} at offset 5 that follows them`,
    };
    // No operator's abort (which explains a torn write on its own); each regime apart from the others.
    const plain = (d: (typeof DRAWS)[number]) => !d.summary.includes("admin aborts") && !/\b4\.[01]\b/.test(d.summary);
    const tv1 = DRAWS.find((d) => d.summary.includes("3.x with TV1") && plain(d));
    const change = DRAWS.find((d) => d.summary.includes("transaction.version") && plain(d));
    const legacy = DRAWS.find(
      (d) =>
        /\b4\.[01]\b/.test(d.summary) &&
        !d.summary.includes("transaction.version") &&
        !d.summary.includes("admin aborts"),
    );
    const tv1Admin = DRAWS.find((d) => d.summary.includes("3.x with TV1") && d.summary.includes("admin aborts"));
    if (!tv1 || !change || !legacy || !tv1Admin) throw new Error("the draws lack a setting this test needs");
    for (const d of [tv1, change, legacy])
      for (const v of [torn, lost]) {
        // Alone it is a finding (KAFKA-6119's torn transaction under TV1 has no marker of another transaction).
        expect(drawnReason(d, v, [v])).toBeNull();
        // Beside a stale marker, a delayed EndTxn the explanation names, or an unindexed ABORT: Kafka's own.
        expect(drawnReason(d, v, [stale, v])).not.toBeNull();
        expect(drawnReason(d, { ...v, explanation: delayed.explanation }, [v])).not.toBeNull();
        expect(drawnReason(d, v, [unindexed, v])).not.toBeNull();
      }
    // The reads themselves stay expected as they were, and an operator's abort explains a torn write on its own.
    expect(drawnReason(tv1, unindexed)).not.toBeNull();
    expect(drawnReason(tv1Admin, torn, [torn])).toContain("operator");
  });

  it("Z01 (KAFKA-6119) tears a transaction at seeds 144 (TV1) and 0 (a 4.1 upgrade, TV 2 -> 1) with nothing to expect it by; with the bug off both are clean", () => {
    // Seed 0 draws a rolling upgrade from 4.1: the KIP-1228-gap allowance took its lost write
    // until it asked for a cause as TV1's does.
    for (const seed of [144, 0]) {
      const unexpected = (overrides: Parameters<typeof runConfigFor>[1]) =>
        runSeed(runConfigFor(loaded, overrides), { seed })
          .violations.filter((v) => v.expectedBy === undefined)
          .map((v) => v.kind);
      expect(unexpected({ tcTimeoutAbortKeepsEpoch: true })).toEqual(["lost-write", "torn-transaction"]);
      expect(unexpected({})).toEqual([]);
    }
  });

  it("Z07's bug-off run (aborts without flush) meets everything's expectation at seeds 182, 2853 and 2711, each violation of the cause its draw expects", () => {
    const withoutFlush = runConfigFor(loaded, { appAbortsWithoutFlush: true });
    for (const [seed, words] of [
      [182, LATE_MARKER_CLEARED_TEXT],
      [2853, NO_LOWER_VERIFIED_TEXT],
    ] as const) {
      const run = runSeed(withoutFlush, { seed });
      expect(run.violations.map((v) => v.kind)).toEqual(["fatal-error"]);
      expect(run.violations[0]?.summary).toContain(words);
      const drawn = drawEverything(withoutFlush.spec, ChoiceSource.seeded(seed));
      expect(drawnReason(drawn, run.violations[0] as (typeof run.violations)[number])).not.toBeNull();
    }
    // Seed 2711: a stale marker at a 4.0 leader, and the duplicate and reordered record of a retried
    // batch of a producer whose state expired, under TV1 before a change to TV2.
    const run = runSeed(withoutFlush, { seed: 2711 });
    expect(run.violations.map((v) => v.kind)).toEqual(["stale-marker", "duplicate", "non-monotonic"]);
    const drawn = drawEverything(withoutFlush.spec, ChoiceSource.seeded(2711));
    for (const v of run.violations) expect(drawnReason(drawn, v)).not.toBeNull();
  });

  it("a violation marked by the draw does not fail the expectation; a model error always does", () => {
    const expect_ = loaded.scenario.expect;
    expect(isUnexpected(expect_, { kind: "stale-marker" })).toBe(true);
    expect(isUnexpected(expect_, { kind: "stale-marker", expectedBy: "TV1" })).toBe(false);
    expect(isUnexpected(expect_, { kind: "model-error", expectedBy: "TV1" })).toBe(true);
  });

  it("a shrink keeps a finding a finding: a candidate showing the kind only where the draw expects it does not match", () => {
    const finding = { kind: "stale-marker" as const, summary: "stale", explanation: [], atMs: 1, broker: "broker-1" };
    const marked = { ...finding, expectedBy: "TV1" };
    expect(matchesTarget(finding, targetOf(finding))).toBe(true);
    expect(matchesTarget(marked, targetOf(finding))).toBe(false);
    expect(matchesTarget(marked, targetOf(marked))).toBe(true);
    expect(matchesTarget(finding, targetOf(marked))).toBe(false);
  });

  it("a run draws on its tape and replays from it; a scenario without the draw draws nothing", () => {
    const run = runSeed(config, { seed: 3 }, { recordTape: true });
    expect(run.shaping).toBe(draw(3).summary);
    expect(run.tape?.[EVERYTHING_STREAM]?.length).toBeGreaterThan(10);
    const replayed = runSeed(config, { tape: run.tape ?? {} });
    expect(replayed.traceHash).toBe(run.traceHash);
    const plain = runSeed(runConfigFor(resolveScenario("kip-1228-small")), { seed: 3 }, { recordTape: true });
    expect(plain.shaping).toBeNull();
    expect(plain.tape?.[EVERYTHING_STREAM]).toBeUndefined();
  });
});
