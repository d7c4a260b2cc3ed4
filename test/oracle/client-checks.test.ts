import { describe, expect, it } from "vitest";
import type { Violation } from "../../src/oracle/violation.js";
import { UNINDEXED_ABORT_TEXT } from "../../src/oracle/client/aborted-read.js";
import { ClientWorld } from "./client-world.js";

const only = (vs: Violation[], kind: string) => vs.filter((v) => v.kind === kind);
const text = (v: Violation) => [v.summary, ...v.explanation].join("\n");

describe("client-visible checks: each kind in its smallest situation", () => {
  it("aborted-read: a stale COMMIT marker of p0.t1 makes the aborted p0.t2's records visible", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t2", "orders-0", 0, { seq: 0 });
    w.at(11).write("p0.t2", "orders-0", 1, { seq: 1 });
    w.at(20).marker("orders-0", "p0.t1", "COMMIT", { epoch: 1 });
    w.at(30).poll("orders-0");
    w.at(40).decide("p0.t2", "ABORT");
    w.outcome("p0.t2", "aborted");
    const [v, ...rest] = only(w.check(), "aborted-read");
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ kind: "aborted-read", transaction: "p0.t2", partition: "orders-0" });
    expect(v?.summary).toContain("orders-0 offsets 0..1");
    expect(text(v as Violation)).toMatch(/COMMIT marker at orders-0 offset 2 \(issued for p0\.t1, not for p0\.t2/);
    expect(text(v as Violation)).toMatch(/c0 polled p0\.t2\/0 at orders-0 offset 0/);
  });

  it("aborted-read: an ABORT marker that closed nothing in the transaction index is named (everything's seed 397)", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t2", "orders-0", 0, { seq: 0 });
    w.at(11).write("p0.t2", "orders-0", 1, { seq: 1 });
    // The replica's producer state forgets the open transaction (in seed 397 a truncation after
    // every producer expired replayed nothing: test/conform/forgotten-transaction-cases.ts shows it
    // on Kafka's UnifiedLog), so p0.t2's own ABORT marker adds no AbortedTxn.
    w.log("orders-0").producerState.reset();
    w.at(20).decide("p0.t2", "ABORT");
    w.outcome("p0.t2", "aborted");
    w.at(21).marker("orders-0", "p0.t2", "ABORT", { epoch: 2 });
    const [v, ...rest] = only(w.check(), "aborted-read");
    expect(rest).toEqual([]);
    expect(v?.summary).toBe(
      `p0.t2 was aborted, yet read_committed consumers read its records: orders-0 offsets 0..1; broker-0's ${UNINDEXED_ABORT_TEXT} at offset 2 that follows them`,
    );
    expect(text(v as Violation)).toMatch(/no open transaction of producer 1000 when the marker was appended/);
  });

  it("aborted-read: a stale COMMIT before the ABORT is not an unindexed ABORT (the summary says nothing of the index)", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t2", "orders-0", 0, { seq: 0 });
    w.at(20).marker("orders-0", "p0.t1", "COMMIT", { epoch: 1 });
    w.at(30).decide("p0.t2", "ABORT");
    w.outcome("p0.t2", "aborted");
    w.at(31).marker("orders-0", "p0.t2", "ABORT", { epoch: 2 });
    const [v] = only(w.check(), "aborted-read");
    expect(v?.summary).toBe("p0.t2 was aborted, yet read_committed consumers read its records: orders-0 offset 0");
  });

  it("lost-write: a stale ABORT marker hides part of the committed p0.t2", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t2", "orders-1", 0, { seq: 0 });
    w.at(12).marker("orders-1", "p0.t1", "ABORT", { epoch: 1 });
    w.at(14).write("p0.t2", "orders-1", 1, { seq: 1 });
    w.at(20).decide("p0.t2", "COMMIT", { partitions: ["orders-1"] });
    w.outcome("p0.t2", "committed");
    w.at(22).marker("orders-1", "p0.t2", "COMMIT", { epoch: 2 });
    const vs = w.check();
    const [lost] = only(vs, "lost-write");
    expect(lost).toMatchObject({ transaction: "p0.t2", partition: "orders-1" });
    expect(lost?.summary).toBe("p0.t2 was committed, yet 1 of its 2 records is not visible: orders-1 offset 0");
    expect(text(lost as Violation)).toMatch(/ABORT marker at orders-1 offset 1 \(issued for p0\.t1, not for p0\.t2/);
    // Partly visible as well: the atomicity violation is reported on its own.
    const [torn] = only(vs, "torn-transaction");
    expect(torn?.summary).toBe("p0.t2 is partly visible: orders-1 offset 2 visible, orders-1 offset 0 not");
  });

  it("lost-write (KAFKA-9279): p0.t3 committed though one of its send() calls failed at once; an aborted one is fine", () => {
    /** One record written to orders-0, one send() to orders-1 that failed at once, then the outcome. */
    const world = (ghostTxn: string, result: "COMMIT" | "ABORT") => {
      const w = new ClientWorld();
      w.at(10).write(ghostTxn, "orders-0", 0, { seq: 0 });
      w.ledger.sendFailed({
        ghostTxn,
        producer: "p0",
        value: `${ghostTxn}/1`,
        partition: "orders-1",
        error: "RecordTooLargeException",
        atMs: 11,
      });
      w.at(20).decide(ghostTxn, result, { partitions: ["orders-0"] });
      w.outcome(ghostTxn, result === "COMMIT" ? "committed" : "aborted");
      w.at(22).marker("orders-0", ghostTxn, result);
      return w;
    };
    const [lost, ...rest] = only(world("p0.t3", "COMMIT").check(), "lost-write");
    expect(rest).toEqual([]);
    expect(lost).toMatchObject({ transaction: "p0.t3", partition: "orders-1" });
    expect(lost?.summary).toBe(
      "p0.t3 was committed, yet its send() of p0.t3/1 had failed: the commit went on without that record",
    );
    expect(text(lost as Violation)).toMatch(
      /send\(\) of p0\.t3\/1 to orders-1 failed at once \(RecordTooLargeException\)/,
    );
    expect(world("p0.t4", "ABORT").check()).toEqual([]);
  });

  it("torn-transaction: an outcome nobody knows may be all or nothing, never half", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t3", "orders-0", 0, { seq: 0 });
    w.at(11).write("p0.t3", "orders-1", 1, { seq: 0 });
    w.at(20).marker("orders-0", "p0.t3", "COMMIT");
    w.at(21).marker("orders-1", "p0.t2", "ABORT");
    w.outcome("p0.t3", "unknown");
    const vs = w.check();
    expect(vs.map((v) => v.kind)).toEqual(["torn-transaction"]);
    expect(vs[0]).toMatchObject({ transaction: "p0.t3", partition: "orders-1" });
    expect(vs[0]?.summary).toBe("p0.t3 is partly visible: orders-0 offset 0 visible, orders-1 offset 0 not");
    expect(text(vs[0] as Violation)).toMatch(/does not know the outcome \(EndTxn: PRODUCER_FENCED\)/);
  });

  it("premature-read: a delayed EndTxn of p0.t1 commits p0.t2 before p0.t2 asked (KAFKA-17754)", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t2", "orders-0", 0, { seq: 0, epoch: 1 });
    w.at(15).decide("p0.t2", "COMMIT", { requestedFor: "p0.t1" });
    w.at(16).marker("orders-0", "p0.t2", "COMMIT", { epoch: 1 });
    w.at(20).poll("orders-0");
    w.at(30).decide("p0.t2", "COMMIT");
    w.outcome("p0.t2", "committed");
    const vs = w.check();
    expect(vs.map((v) => v.kind)).toEqual(["premature-read"]);
    expect(vs[0]).toMatchObject({ transaction: "p0.t2", partition: "orders-0" });
    expect(vs[0]?.summary).toBe(
      "c0 read p0.t2/0 at orders-0 offset 0 at t=20ms, before p0.t2's commit was decided (t=30ms)",
    );
    expect(text(vs[0] as Violation)).toMatch(/on an EndTxn sent for p0\.t1/);
    expect(text(vs[0] as Violation)).toMatch(/KAFKA-17754/);
  });

  it("duplicate: a retried Produce appended as new data is visible twice", () => {
    const w = new ClientWorld({ produceDuplicateDetection: false, produceSequenceCheck: false });
    w.at(10).write("p0.t1", "orders-2", 0, { seq: 0 });
    w.at(11).write("p0.t1", "orders-2", 0, { seq: 0 });
    w.at(20).decide("p0.t1", "COMMIT");
    w.outcome("p0.t1", "committed");
    w.at(21).marker("orders-2", "p0.t1", "COMMIT");
    const vs = w.check();
    expect(vs.map((v) => v.kind)).toEqual(["duplicate"]);
    expect(vs[0]).toMatchObject({ transaction: "p0.t1", partition: "orders-2" });
    expect(vs[0]?.summary).toBe("p0.t1/0 of p0.t1 is visible 2 times: orders-2 offsets 0..1");
    expect(text(vs[0] as Violation)).toMatch(
      /retried Produce of the same batch \(same producerId, epoch and sequence\)/,
    );
  });

  it("non-monotonic: a producer's records out of order within a partition", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t1", "orders-3", 1, { seq: 0 });
    w.at(11).write("p0.t1", "orders-3", 0, { seq: 1 });
    w.at(20).decide("p0.t1", "COMMIT");
    w.outcome("p0.t1", "committed");
    w.at(21).marker("orders-3", "p0.t1", "COMMIT");
    const vs = w.check();
    expect(vs.map((v) => v.kind)).toEqual(["non-monotonic"]);
    expect(vs[0]).toMatchObject({ transaction: "p0.t1", partition: "orders-3" });
    expect(vs[0]?.summary).toBe("p0's records out of order at orders-3: p0.t1/0 at offset 1 after p0.t1/1 at offset 0");
  });
});

describe("client-visible checks: what is not a violation", () => {
  it("a committed transaction read after its commit, an aborted one never read", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t1", "orders-0", 0, { seq: 0, epoch: 1 });
    w.at(12).write("p0.t1", "orders-1", 1, { seq: 0, epoch: 1 });
    w.at(20).decide("p0.t1", "COMMIT", { partitions: ["orders-0", "orders-1"] });
    w.outcome("p0.t1", "committed");
    w.at(21).marker("orders-0", "p0.t1", "COMMIT", { epoch: 2 });
    w.at(22).marker("orders-1", "p0.t1", "COMMIT", { epoch: 2 });
    w.at(25).write("p0.t2", "orders-0", 0, { seq: 0, epoch: 2 });
    w.at(30).decide("p0.t2", "ABORT");
    w.outcome("p0.t2", "aborted");
    w.at(31).marker("orders-0", "p0.t2", "ABORT", { epoch: 3 });
    w.at(40).poll("orders-0");
    w.poll("orders-1");
    expect(w.check()).toEqual([]);
  });

  it("an unknown outcome, all visible or none visible", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t1", "orders-0", 0, { seq: 0, epoch: 1 });
    w.at(11).write("p1.t1", "orders-1", 0, { seq: 0, epoch: 1, pid: 1001 });
    w.at(20).decide("p0.t1", "COMMIT");
    w.at(21).marker("orders-0", "p0.t1", "COMMIT", { epoch: 2 });
    w.at(22).decide("p1.t1", "ABORT", { initiator: "coordinator" });
    w.at(23).marker("orders-1", "p1.t1", "ABORT", { epoch: 2, pid: 1001 });
    w.outcome("p0.t1", "unknown");
    w.outcome("p1.t1", "unknown", "producer closed mid-transaction");
    w.at(30).poll("orders-0");
    expect(w.check()).toEqual([]);
  });

  it("records behind a stuck LSO are a liveness matter, not lost writes", () => {
    const w = new ClientWorld();
    w.at(10).write("p1.t1", "orders-0", 0, { seq: 0, pid: 1001 }); // never closed: LSO stays at 0
    w.at(11).write("p0.t1", "orders-0", 0, { seq: 0 });
    w.at(20).decide("p0.t1", "COMMIT");
    w.outcome("p0.t1", "committed");
    w.at(21).marker("orders-0", "p0.t1", "COMMIT");
    expect(w.view().finalReads[0]?.readBound).toBe(0);
    expect(w.check()).toEqual([]);
  });

  it("the coordinator's own abort decides for a producer that never learnt the outcome", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t1", "orders-0", 0, { seq: 0 });
    w.at(15).decide("p0.t1", "ABORT", { initiator: "coordinator" });
    w.at(16).marker("orders-0", "p0.t0", "COMMIT", { epoch: 1 }); // a stale COMMIT got there first
    w.outcome("p0.t1", "unknown");
    const vs = w.check();
    expect(vs.map((v) => v.kind)).toEqual(["aborted-read"]);
    expect(text(vs[0] as Violation)).toMatch(/coordinator-initiated abort/);
  });
});
