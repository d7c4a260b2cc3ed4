import { describe, expect, it } from "vitest";
import { ClientWorld } from "./client-world.js";

describe("marker checks (white box), each in its smallest situation", () => {
  it("stale-marker: a copy of p0.t1's COMMIT marker closes p0.t2's records at orders-0", () => {
    const w = new ClientWorld();
    w.at(5).decide("p0.t1", "COMMIT");
    w.at(10).write("p0.t2", "orders-0", 0, { seq: 0 });
    w.at(11).write("p0.t2", "orders-0", 1, { seq: 1 });
    w.at(20).marker("orders-0", "p0.t1", "COMMIT", { epoch: 1 });
    const [v, ...rest] = w.ledger.violations;
    expect(rest).toEqual([]);
    expect(v).toMatchObject({
      kind: "stale-marker",
      transaction: "p0.t2",
      markerIssuedFor: "p0.t1",
      partition: "orders-0",
      broker: "broker-0",
    });
    expect(v?.summary).toBe(
      "stale COMMIT marker for p0.t1 committed p0.t2's records at orders-0 offsets 0..1 on broker-0 (4.1, WriteTxnMarkers v2, legacy rule)",
    );
    expect(v?.explanation.join("\n")).toMatch(
      /COMMIT marker at offset 2 closed offsets 0\.\.2: p0\.t2's records were committed by p0\.t1's marker/,
    );
  });

  it("outcome-mismatch: p0.t1's marker commits what the coordinator decided to abort", () => {
    const w = new ClientWorld();
    w.at(10).write("p0.t1", "orders-1", 0, { seq: 0 });
    w.at(20).decide("p0.t1", "ABORT", { partitions: ["orders-1"] });
    w.at(21).marker("orders-1", "p0.t1", "COMMIT");
    const [v, ...rest] = w.ledger.violations;
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ kind: "outcome-mismatch", transaction: "p0.t1", partition: "orders-1" });
    expect(v?.summary).toBe("orders-1 on broker-0 committed p0.t1, but the coordinator decided ABORT");
    expect(v?.explanation.join("\n")).toMatch(/applied COMMIT to p0\.t1's offsets 0\.\.1 at orders-1/);
  });
});
