import { describe, expect, it } from "vitest";
import { ApiVersions } from "../../src/kafka/client/api-versions.js";
import { TransactionManager } from "../../src/kafka/client/transaction-manager.js";
import { Errors } from "../../src/kafka/common/errors.js";
import type { TransactionVersion } from "../../src/kafka/common/types.js";
import { QuorumController } from "../../src/kafka/metadata/quorum-controller.js";
import type { KafkaEvents } from "../../src/kafka/trace-events.js";
import { Simulation } from "../../src/sim/simulation.js";
import { Trace } from "../../src/sim/trace.js";
import { loadScenario, runSeed } from "../../src/index.js";

const P0 = "orders-0";
const BEHAVIOUR = { invalidProducerEpochOnProduceAbortable: true, adoptEndTxnEpoch: true, abortWithoutFlush: false };

/**
 * A transaction manager of a client of `clientVersion` whose ApiVersions first heard `finalized`,
 * initialized at producer id 1000, epoch 3, and in a transaction. As KafkaProducer.initTransactions,
 * it reads the finalized features once the InitProducerId is answered.
 */
function initialized(clientVersion: TransactionVersion, finalized: TransactionVersion) {
  const apiVersions = new ApiVersions();
  apiVersions.update({ transactionVersion: finalized, epoch: 0 });
  const heard: string[] = [];
  const tm = new TransactionManager(
    "txn-0",
    clientVersion,
    BEHAVIOUR,
    {
      fatal: (api, code) => heard.push(`fatal ${api} ${code}`),
      abortable: (reason) => heard.push(`abortable ${reason}`),
      transactionVersion: (v) => heard.push(`tv ${v}`),
    },
    apiVersions,
  );
  tm.initializeTransactions(() => tm.maybeUpdateTransactionV2Enabled({ onInitialization: true }));
  expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "InitProducerId", bump: false });
  tm.handleInitProducerIdResponse(Errors.NONE, 1000, 3);
  tm.beginTransaction();
  return { tm, apiVersions, heard };
}

describe("a client following transaction.version (TransactionManager.maybeUpdateTransactionV2Enabled)", () => {
  it("a 4.0+ client on a TV1 cluster runs TV1: AddPartitionsToTxn before its batches, EndTxn v4", () => {
    const { tm, heard } = initialized(2, 1);
    expect(tm.isTransactionV2Enabled).toBe(false);
    // Off until initTransactions completed, and still off: the client never moved.
    expect(heard).toEqual([]);
    tm.maybeAddPartition(P0);
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "AddPartitionsToTxn", partitions: [P0] });
  });

  it("upgraded to TV2 mid-transaction: the transaction ends as TV1, then InitProducerId bumps the epoch before the first TV2 transaction (clientSideEpochBumpRequired)", () => {
    const { tm, apiVersions, heard } = initialized(2, 1);
    tm.maybeAddPartition(P0);
    tm.nextRequest(false, 0);
    tm.handleAddPartitionsResponse([P0], Errors.NONE);
    // A new connection's ApiVersions answer from a broker that applied the FeatureLevelRecord.
    apiVersions.update({ transactionVersion: 2, epoch: 7 });
    expect(tm.isTransactionV2Enabled).toBe(false); // read only at the transaction's boundary
    let committed = false;
    tm.beginCommit(() => {
      committed = true;
    });
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 1 });
    expect(tm.isTransactionV2Enabled).toBe(true);
    // EndTxn v4's answer has no producer id and epoch fields; the model's coordinator fills them anyway.
    tm.handleEndTxnResponse(Errors.NONE, 1000, 9);
    expect([tm.state, tm.producerEpoch, committed]).toEqual(["INITIALIZING", 3, false]);
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "InitProducerId", bump: true });
    tm.handleInitProducerIdResponse(Errors.NONE, 1000, 4);
    expect([tm.state, tm.producerEpoch, committed]).toEqual(["READY", 4, true]);
    tm.beginTransaction();
    tm.maybeAddPartition(P0);
    expect(tm.partitionsInTransaction.has(P0)).toBe(true); // TV2: added implicitly by the produce
    expect(heard).toEqual(["tv 2"]);
  });

  it("downgraded to TV1: the TV2 transaction ends with EndTxn v5 and takes its epoch; the next adds partitions itself, without a client bump", () => {
    const { tm, apiVersions } = initialized(2, 2);
    tm.maybeAddPartition(P0);
    apiVersions.update({ transactionVersion: 1, epoch: 9 });
    tm.beginCommit(() => {});
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 2 });
    tm.handleEndTxnResponse(Errors.NONE, 1000, 4);
    expect([tm.state, tm.producerEpoch, tm.isTransactionV2Enabled]).toEqual(["READY", 4, false]);
    tm.beginTransaction();
    tm.maybeAddPartition(P0);
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "AddPartitionsToTxn", partitions: [P0] });
  });

  it("ApiVersions keeps the answer with the highest finalized-features epoch: a broker behind cannot take a client back", () => {
    const versions = new ApiVersions();
    versions.update({ transactionVersion: 2, epoch: 12 });
    versions.update({ transactionVersion: 1, epoch: 4 });
    versions.learn(undefined); // a broker that is down answers nothing
    expect([versions.finalizedTransactionVersion, versions.maxFinalizedFeaturesEpoch]).toEqual([2, 12]);
  });

  it("a client before 4.0 never moves to TV2, whatever is finalized", () => {
    const { tm, apiVersions } = initialized(1, 2);
    expect(tm.isTransactionV2Enabled).toBe(false);
    tm.maybeAddPartition(P0);
    tm.nextRequest(false, 0);
    tm.handleAddPartitionsResponse([P0], Errors.NONE);
    apiVersions.update({ transactionVersion: 2, epoch: 3 });
    tm.beginCommit(() => {});
    expect(tm.nextRequest(false, 0)?.request).toEqual({ api: "EndTxn", commit: true, transactionVersion: 1 });
    expect(tm.isTransactionV2Enabled).toBe(false);
  });
});

describe("the controller finalizing transaction.version (FeatureControlManager.updateFeature)", () => {
  function controller() {
    const sim = new Simulation<KafkaEvents>(new Trace());
    const published: number[] = [];
    const c = new QuorumController(sim, ["b0", "b1"], [], (image) => published.push(image.offset), 1);
    return { c, published };
  }

  it("refuses a level a registered broker's release does not support, with INVALID_UPDATE_VERSION and no new image", () => {
    const { c, published } = controller();
    expect(c.updateTransactionVersion(2, (b) => b !== "b1")).toBe(Errors.INVALID_UPDATE_VERSION);
    expect([c.image.features, published]).toEqual([{ transactionVersion: 1, epoch: 0 }, []]);
  });

  it("finalizes a level as one new image whose offset is the finalized-features epoch; a downgrade too", () => {
    const { c, published } = controller();
    expect(c.updateTransactionVersion(2, () => true)).toBe(Errors.NONE);
    expect(c.updateTransactionVersion(1, () => true)).toBe(Errors.NONE);
    expect([c.image.features, published]).toEqual([{ transactionVersion: 1, epoch: 2 }, [1, 2]]);
  });
});

/** The trace of one seed of a built-in scenario: events of `kinds` at `node`, with their time. */
function eventsOf(scenario: string, seed: number) {
  const loaded = loadScenario(scenario);
  const r = runSeed(loaded, { seed }, { recordTrace: true });
  return { trace: r.trace ?? [], violations: r.violations };
}

describe("transaction.version changed while clients run, end to end", () => {
  it("tv-upgrade-under-load: the controller finalizes TV2 at 3 s; a producer that learns it ends its TV1 transaction with EndTxn v4, bumps its epoch, and then sends Produce v12 and EndTxn v5", () => {
    // Seed 1: both producers open a new connection after 3 s (a client learns finalized features only
    // from the ApiVersions exchange of a new connection); in seed 0 neither does, and both stay on TV1.
    const { trace } = eventsOf("tv-upgrade-under-load", 1);
    const features = trace.find((e) => e.kind === "controller.features");
    expect(features?.fields).toMatchObject({ transactionVersion: 2, errorCode: Errors.NONE });
    const switched = trace.find((e) => e.kind === "producer.transaction-version" && e.fields.version === 2);
    expect(switched).toBeDefined();
    const after = trace.filter(
      (e) => e.node === switched?.node && e.timeMs > (switched?.timeMs ?? 0) && e.kind === "net.send",
    );
    const details = after.map((e) => `${e.fields.msg} ${e.fields.detail}`);
    const bump = details.findIndex((d) => d.startsWith("InitProducerId"));
    const endTxnV5 = details.findIndex((d) => d.startsWith("EndTxn v5"));
    expect(bump).toBeGreaterThanOrEqual(0);
    expect(endTxnV5).toBeGreaterThan(bump);
    expect(details.slice(bump).some((d) => d.startsWith("Produce v12"))).toBe(true);
  });

  it("tv-upgrade-under-load: every stale marker over 20 seeds is a TV1 transaction's, judged by the legacy rule", () => {
    let stale = 0;
    for (let seed = 0; seed < 20; seed++) {
      for (const v of eventsOf("tv-upgrade-under-load", seed).violations) {
        if (v.kind !== "stale-marker") continue;
        stale++;
        expect(v.explanation.join("\n")).toMatch(/carried TransactionVersion 0.*legacy rule applied/s);
      }
    }
    expect(stale).toBeGreaterThan(0);
  });

  it("tv-downgrade-under-load: batches still in the accumulator when the client moves down leave as Produce v11, fail verification, and the abort gets a fatal INVALID_TXN_STATE", () => {
    const { trace, violations } = eventsOf("tv-downgrade-under-load", 1);
    const fatal = violations.find((v) => v.kind === "fatal-error");
    expect(fatal?.summary).toMatch(/fatal INVALID_TXN_STATE on EndTxn/);
    const producer = fatal?.summary.split(" ")[0];
    const down = trace.find(
      (e) =>
        e.kind === "producer.transaction-version" && e.fields.version === 1 && e.node === producer && e.timeMs > 3000,
    );
    expect(down).toBeDefined();
    const sends = trace
      .filter((e) => e.node === down?.node && e.timeMs >= (down?.timeMs ?? 0) && e.kind === "net.send")
      .map((e) => `${e.fields.msg} ${e.fields.detail}`);
    const abort = sends.findIndex((d) => d.startsWith("EndTxn v4 ABORT"));
    const beforeAbort = sends.slice(0, abort);
    expect(beforeAbort.some((d) => d.startsWith("Produce v11"))).toBe(true);
    expect(beforeAbort.some((d) => d.startsWith("AddPartitionsToTxn"))).toBe(false);
  });
});
