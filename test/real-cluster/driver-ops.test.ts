import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RealCluster } from "../../src/confirm/cluster/real-cluster.js";
import { DriverProcess, DriverProtocolError } from "../../src/confirm/driver/driver-process.js";

// The driver's operations (jvm/DRIVER.md) against one real 4.2.1 cluster of two brokers, each
// checked against what Kafka must answer.

let cluster: RealCluster;
let driver: DriverProcess;
let bs: string;

beforeAll(async () => {
  const started = DriverProcess.start("4.2.1");
  cluster = await RealCluster.start(
    {
      dir: mkdtempSync(join(tmpdir(), "eosfuzz-driver-")),
      controllerRelease: "4.2.1",
      transactionVersion: 2,
      brokers: [
        { nodeId: 0, name: "broker-0", release: "4.2.1" },
        { nodeId: 1, name: "broker-1", release: "4.2.1" },
      ],
      settings: {
        transactionStatePartitions: 1,
        transactionStateReplicationFactor: 1,
        transactionStateMinIsr: 1,
        brokerOverrides: {},
      },
    },
    { driver: started },
  );
  driver = await started;
  bs = cluster.bootstrap();
  await driver.expect({
    op: "createTopic",
    bootstrap: bs,
    name: "orders",
    assignment: [
      [0, 1],
      [1, 0],
    ],
  });
}, 180_000);

afterAll(async () => {
  await cluster?.stop();
  await driver?.close();
});

describe("the driver on a real cluster", () => {
  it("runs transactions, reads them back read_committed, and lists offsets", async () => {
    const init = await driver.expect({ op: "producerInit", producer: "p0", bootstrap: bs, transactionalId: "txn-a" });
    expect(init.state).toBe("Empty");
    expect(init.producerEpoch).toBe(0);
    await driver.expect({ op: "begin", producer: "p0" });
    const sent = await driver.expect({ op: "send", producer: "p0", topic: "orders", partition: 0, value: "p0.t1/0" });
    expect(sent.offset).toBe(0);
    await driver.expect({ op: "commit", producer: "p0" });
    await driver.expect({ op: "begin", producer: "p0" });
    await driver.expect({ op: "send", producer: "p0", topic: "orders", partition: 0, value: "p0.t2/0" });
    await driver.expect({ op: "abort", producer: "p0" });
    const read = await driver.expect({ op: "read", bootstrap: bs, partitions: ["orders-0", "orders-1"] });
    expect((read.records as { value: string }[]).map((r) => r.value)).toEqual(["p0.t1/0"]);
    expect(read.complete).toBe(true);
    // data 0, COMMIT 1, data 2, ABORT 3: TV2 bumped the epoch twice.
    const offsets = await driver.expect({ op: "listOffsets", bootstrap: bs, partitions: ["orders-0"] });
    expect(offsets.offsets).toEqual({ "orders-0": { highWatermark: 4, lastStableOffset: 4 } });
    const described = await driver.expect({ op: "describeTransaction", bootstrap: bs, transactionalId: "txn-a" });
    expect(described.producerEpoch).toBe(2);
  });

  it("describes an open transaction at the leader, and Admin.abortTransaction with a stale epoch is refused there", async () => {
    const init = await driver.expect({ op: "producerInit", producer: "p1", bootstrap: bs, transactionalId: "txn-b" });
    // One committed transaction first: under TV2 its marker moved the epoch to 1.
    await driver.expect({ op: "begin", producer: "p1" });
    await driver.expect({ op: "send", producer: "p1", topic: "orders", partition: 1, value: "p1.t1/0" });
    await driver.expect({ op: "commit", producer: "p1" });
    await driver.expect({ op: "begin", producer: "p1" });
    await driver.expect({ op: "send", producer: "p1", topic: "orders", partition: 1, value: "p1.t2/0" });
    const producers = await driver.expect({ op: "describeProducers", bootstrap: bs, topic: "orders", partition: 1 });
    const mine = (
      producers.producers as {
        producerId: number;
        producerEpoch: number;
        currentTransactionStartOffset: number | null;
      }[]
    ).find((p) => p.producerId === init.producerId);
    expect(mine?.producerEpoch).toBe(1);
    expect(mine?.currentTransactionStartOffset).toBe(2);
    const stale = await driver.request({
      op: "abortTransaction",
      bootstrap: bs,
      topic: "orders",
      partition: 1,
      producerId: init.producerId,
      producerEpoch: (mine?.producerEpoch ?? 0) - 1,
      coordinatorEpoch: 0,
    });
    expect(stale.error).toBe("INVALID_PRODUCER_EPOCH");
    // At the epoch the leader described, the abort lands: the open transaction is aborted there.
    await driver.expect({
      op: "abortTransaction",
      bootstrap: bs,
      topic: "orders",
      partition: 1,
      producerId: init.producerId,
      producerEpoch: 1,
      coordinatorEpoch: 0,
    });
    const after = await driver.expect({ op: "describeProducers", bootstrap: bs, topic: "orders", partition: 1 });
    expect(
      (after.producers as { currentTransactionStartOffset: number | null }[])[0]?.currentTransactionStartOffset,
    ).toBeNull();
    await driver.request({ op: "abort", producer: "p1" });
  });

  it("moves leadership, updates transaction.version, and answers a wrong request with a driver error", async () => {
    await driver.expect({ op: "reassign", bootstrap: bs, topic: "orders", partition: 0, replicas: [1, 0] });
    let leader = -1;
    for (let i = 0; i < 40 && leader !== 1; i++) {
      await driver.request({ op: "electLeaders", bootstrap: bs, type: "PREFERRED", partitions: ["orders-0"] });
      const d = await driver.expect({ op: "describeTopic", bootstrap: bs, name: "orders" });
      leader = (d.partitions as { partition: number; leader: number }[])[0]?.leader ?? -1;
      if (leader !== 1) await new Promise((r) => setTimeout(r, 250));
    }
    expect(leader).toBe(1);
    await driver.expect({
      op: "updateFeature",
      bootstrap: bs,
      feature: "transaction.version",
      level: 1,
      upgradeType: "SAFE_DOWNGRADE",
    });
    const features = await driver.expect({ op: "describeFeatures", bootstrap: bs });
    expect((features.finalized as Record<string, number>)["transaction.version"]).toBe(1);
    await expect(driver.request({ op: "noSuchOp" })).rejects.toThrow(DriverProtocolError);
    await expect(driver.request({ op: "begin", producer: "nobody" })).rejects.toThrow(/no producer nobody/);
  });
});
