import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ClientApi, type ClientCase, clientCases } from "../../src/conform/client/client-cases.js";
import { clientDifferenceLines } from "../../src/conform/client/client-report.js";
import {
  answerDifferences,
  type ClientCell,
  type ClientTable,
  runClientTable,
} from "../../src/conform/client/client-table.js";
import { modelClientAnswer } from "../../src/conform/client/model-client.js";
import { modelFlags } from "../../src/conform/leader/leader-differential.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { type HarnessRelease, harnessClasspath, harnessRelease } from "../../src/harness/kafka-releases.js";

/**
 * The client surface at two releases around KAFKA-REAL's client change: 4.0.2, and 4.2.1 where the
 * producer's handling of two answers had changed (it changed in 4.1.0: EndTxnHandler makes an
 * abortable error of an abort fatal, maybeTransitionToErrorState wraps INVALID_TXN_STATE in a
 * TransactionAbortableException). Only the cells the claims need, so that it takes seconds.
 */
const RELEASES = ["4.0.2", "4.2.1"] as const;

function available(): boolean {
  try {
    for (const r of RELEASES) harnessClasspath(harnessRelease(r) as HarnessRelease);
    return true;
  } catch {
    return false;
  }
}
const harnessReady = available();
if (!harnessReady)
  console.warn("SKIPPED: the client conformance test needs the JVM harness (Java 17+, npm run harness:setup)");

const PRODUCE_ERRORS = [
  "NONE",
  "NOT_ENOUGH_REPLICAS",
  "DISCONNECTED",
  "INVALID_PRODUCER_EPOCH",
  "INVALID_TXN_STATE",
  "PRODUCER_FENCED",
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
  "UNKNOWN_PRODUCER_ID",
];
const COORDINATOR_ERRORS = [
  "NONE",
  "NOT_COORDINATOR",
  "CONCURRENT_TRANSACTIONS",
  "INVALID_TXN_STATE",
  "PRODUCER_FENCED",
  "TRANSACTION_ABORTABLE",
  "INVALID_PRODUCER_ID_MAPPING",
];
const CELLS: ClientCase[] = [
  ...clientCases(["Produce"], PRODUCE_ERRORS),
  ...clientCases(["AddPartitionsToTxn", "EndTxn(COMMIT)", "EndTxn(ABORT)"], COORDINATOR_ERRORS),
  ...clientCases(["TxnOffsetCommit"], ["UNKNOWN_MEMBER_ID", "COORDINATOR_LOAD_IN_PROGRESS"]),
];

describe.skipIf(!harnessReady)("eosfuzz conform, client surface (Kafka's producer classes against the model)", () => {
  const tables = new Map<string, ClientTable>();

  beforeAll(async () => {
    for (const name of RELEASES) {
      const release = harnessRelease(name) as HarnessRelease;
      const harness = await KafkaHarness.start(release);
      try {
        tables.set(
          name,
          await runClientTable({ harness, flags: modelFlags(release, {}), profile: release.profile, cases: CELLS }),
        );
      } finally {
        await harness.close();
      }
    }
  });

  afterAll(() => tables.clear());

  function cell(release: string, api: ClientApi, error: string, transactionVersion: 1 | 2): ClientCell {
    const found = tables
      .get(release)
      ?.cells.find(
        (c) => c.case.api === api && c.case.error === error && c.case.transactionVersion === transactionVersion,
      );
    if (!found) throw new Error(`no cell ${api} ${error} TV${transactionVersion} at ${release}`);
    return found;
  }

  it("Kafka 4.0.2: an abortable error answered to an abort fails the abort and leaves the state alone; 4.2.1 makes it fatal", () => {
    for (const tv of [1, 2] as const) {
      const before = cell("4.0.2", "EndTxn(ABORT)", "TRANSACTION_ABORTABLE", tv).kafka;
      expect([before.class, before.state, before.detail?.result]).toEqual([
        "failed",
        "ABORTING_TRANSACTION",
        "TransactionAbortableException",
      ]);
      const after = cell("4.2.1", "EndTxn(ABORT)", "TRANSACTION_ABORTABLE", tv).kafka;
      expect([after.class, after.state, after.lastError]).toEqual([
        "fatal",
        "FATAL_ERROR",
        "KafkaException (cause TransactionAbortableException)",
      ]);
    }
  });

  it("Kafka: INVALID_TXN_STATE on a produce is abortable at both releases; from 4.1 the error kept is a TransactionAbortableException", () => {
    for (const tv of [1, 2] as const) {
      const before = cell("4.0.2", "Produce", "INVALID_TXN_STATE", tv).kafka;
      expect([before.class, before.lastError]).toEqual(["abortable", "InvalidTxnStateException"]);
      const after = cell("4.2.1", "Produce", "INVALID_TXN_STATE", tv).kafka;
      expect([after.class, after.lastError]).toEqual([
        "abortable",
        "TransactionAbortableException (cause InvalidTxnStateException)",
      ]);
    }
  });

  it("Kafka: a TV1 abortable produce error asks for a client epoch bump; TV2 leaves the bump to EndTxn", () => {
    for (const release of RELEASES) {
      expect(cell(release, "Produce", "INVALID_PRODUCER_EPOCH", 1).kafka).toMatchObject({
        class: "abortable",
        epochBumpRequired: true,
      });
      expect(cell(release, "Produce", "INVALID_PRODUCER_EPOCH", 2).kafka).toMatchObject({
        class: "abortable",
        epochBumpRequired: false,
      });
      expect(cell(release, "Produce", "PRODUCER_FENCED", 2).kafka.class).toBe("fatal");
      expect(cell(release, "Produce", "NOT_ENOUGH_REPLICAS", 2).kafka).toMatchObject({
        class: "retry",
        requeued: true,
      });
    }
  });

  it("Kafka: coordinator errors: NOT_COORDINATOR looks the coordinator up again, CONCURRENT_TRANSACTIONS just retries, a TV2 client sends no AddPartitionsToTxn", () => {
    for (const release of RELEASES) {
      expect(cell(release, "EndTxn(COMMIT)", "NOT_COORDINATOR", 2).kafka).toMatchObject({
        class: "retry",
        coordinatorLookup: "TRANSACTION",
      });
      expect(cell(release, "AddPartitionsToTxn", "CONCURRENT_TRANSACTIONS", 1).kafka).toMatchObject({
        class: "retry",
        coordinatorLookup: null,
      });
      expect(cell(release, "AddPartitionsToTxn", "NONE", 2).kafka.sent).toBe(false);
      expect(cell(release, "EndTxn(COMMIT)", "INVALID_TXN_STATE", 2).kafka.class).toBe("fatal");
      expect(cell(release, "TxnOffsetCommit", "COORDINATOR_LOAD_IN_PROGRESS", 2).kafka.class).toBe("retry");
    }
  });

  it("the model agrees with Kafka where both release the same answer, and the table names its known differences", () => {
    for (const release of RELEASES) {
      for (const [api, error] of [
        ["Produce", "INVALID_PRODUCER_EPOCH"],
        ["Produce", "NOT_ENOUGH_REPLICAS"],
        ["Produce", "PRODUCER_FENCED"],
        ["EndTxn(COMMIT)", "NOT_COORDINATOR"],
        ["EndTxn(COMMIT)", "INVALID_TXN_STATE"],
        ["AddPartitionsToTxn", "CONCURRENT_TRANSACTIONS"],
      ] as const)
        for (const tv of [1, 2] as const)
          expect(cell(release, api, error, tv).differences, `${api} ${error} TV${tv}`).toEqual([]);
    }
    // The model follows 4.0's abort: the 4.1 change is a difference at 4.2.1 only.
    expect(cell("4.0.2", "EndTxn(ABORT)", "TRANSACTION_ABORTABLE", 2).differences).toEqual([]);
    expect(cell("4.2.1", "EndTxn(ABORT)", "TRANSACTION_ABORTABLE", 2).differences.map((d) => d.path)).toEqual([
      "state",
      "class",
    ]);
    // Kafka's coordinator handlers do not ask for a client epoch bump on TRANSACTION_ABORTABLE; the model does (TV1).
    expect(cell("4.2.1", "AddPartitionsToTxn", "TRANSACTION_ABORTABLE", 1).differences).toEqual([
      { path: "epochBumpRequired", model: true, kafka: false },
    ]);
    const lines = clientDifferenceLines([...tables.values()]);
    expect(lines).toContain(
      "EndTxn(ABORT) TRANSACTION_ABORTABLE, TV1 TV2 at 4.2.1: Kafka fatal FATAL_ERROR [KafkaException (cause TransactionAbortableException)]; model failed ABORTING_TRANSACTION (state: Kafka FATAL_ERROR, model ABORTING_TRANSACTION; class: Kafka fatal, model failed)",
    );
  });

  it("a planted model mistake is caught: with KIP-588 off (produce-epoch-error-fatal) INVALID_PRODUCER_EPOCH on a produce differs, at both releases", () => {
    for (const name of RELEASES) {
      const release = harnessRelease(name) as HarnessRelease;
      const broken = modelFlags(release, { produceInvalidEpochAbortable: false });
      for (const tv of [1, 2] as const) {
        const c = cell(name, "Produce", "INVALID_PRODUCER_EPOCH", tv);
        const differences = answerDifferences(modelClientAnswer(broken, c.case), c.kafka);
        expect(differences.map((d) => d.path)).toContain("class");
        expect(differences.find((d) => d.path === "class")).toEqual({
          path: "class",
          model: "fatal",
          kafka: "abortable",
        });
      }
      // The same cells of the profile as released agree (the check above is the mistake's, not the table's).
      for (const tv of [1, 2] as const)
        expect(cell(name, "Produce", "INVALID_PRODUCER_EPOCH", tv).differences).toEqual([]);
    }
  });
});
