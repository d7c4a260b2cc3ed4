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
import { type HarnessRelease, harnessRelease } from "../../src/harness/kafka-releases.js";
import type { ReleaseFlags } from "../../src/kafka/release.js";

/**
 * The client surface at the releases where the producer's error handling changed: 3.9.1, 4.0.2
 * (KAFKA-18019: INVALID_PRODUCER_ID_MAPPING fatal), 4.1.0 (KAFKA-19250: an abort answered
 * TRANSACTION_ABORTABLE fatal) and 4.4.0 (KIP-1319: TxnOffsetCommit's GROUP_ID_NOT_FOUND and
 * STALE_MEMBER_EPOCH abortable). The cells are the errors whose handling differs somewhere, so that
 * it takes seconds; `eosfuzz conform --surface client` runs the whole table at every release.
 */
const RELEASES = ["3.9.1", "4.0.2", "4.1.0", "4.4.0"] as const;

const PRODUCE_ERRORS = [
  "NONE",
  "NOT_ENOUGH_REPLICAS",
  "DISCONNECTED",
  "INVALID_PRODUCER_EPOCH",
  "INVALID_TXN_STATE",
  "PRODUCER_FENCED",
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
  "UNKNOWN_PRODUCER_ID",
  "CLUSTER_AUTHORIZATION_FAILED",
  "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
  "UNSUPPORTED_VERSION",
  "DUPLICATE_SEQUENCE_NUMBER",
  "INVALID_PRODUCER_ID_MAPPING",
];
const COORDINATOR_ERRORS = [
  "NONE",
  "NOT_COORDINATOR",
  "CONCURRENT_TRANSACTIONS",
  "NETWORK_EXCEPTION",
  "DISCONNECTED",
  "INVALID_TXN_STATE",
  "PRODUCER_FENCED",
  "TRANSACTION_ABORTABLE",
  "INVALID_PRODUCER_ID_MAPPING",
  "UNKNOWN_PRODUCER_ID",
  "TRANSACTIONAL_ID_AUTHORIZATION_FAILED",
  "CLUSTER_AUTHORIZATION_FAILED",
  "GROUP_AUTHORIZATION_FAILED",
  "UNKNOWN_SERVER_ERROR",
];
const GROUP_ERRORS = [
  "NONE",
  "NOT_COORDINATOR",
  "REQUEST_TIMED_OUT",
  "COORDINATOR_LOAD_IN_PROGRESS",
  "NOT_ENOUGH_REPLICAS",
  "CONCURRENT_TRANSACTIONS",
  "NETWORK_EXCEPTION",
  "DISCONNECTED",
  "UNKNOWN_MEMBER_ID",
  "ILLEGAL_GENERATION",
  "GROUP_AUTHORIZATION_FAILED",
  "GROUP_ID_NOT_FOUND",
  "STALE_MEMBER_EPOCH",
  "PRODUCER_FENCED",
  "UNKNOWN_SERVER_ERROR",
];
const CELLS: ClientCase[] = [
  ...clientCases(["Produce"], PRODUCE_ERRORS),
  ...clientCases(
    [
      "FindCoordinator",
      "InitProducerId",
      "InitProducerId(bump)",
      "AddPartitionsToTxn",
      "AddOffsetsToTxn",
      "EndTxn(COMMIT)",
      "EndTxn(ABORT)",
    ],
    COORDINATOR_ERRORS,
  ),
  ...clientCases(["TxnOffsetCommit"], GROUP_ERRORS),
];

// Without the JVM harness (npm run harness:setup) KafkaHarness.start fails with the line saying so: never a silent skip.
describe("eosfuzz conform, client surface (Kafka's producer classes against the model)", () => {
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

  /** The compared fields where the model with `overrides` answers a cell otherwise than Kafka did. */
  function withModel(release: string, overrides: Partial<ReleaseFlags>, c: ClientCell): string[] {
    const flags = modelFlags(harnessRelease(release) as HarnessRelease, overrides);
    return answerDifferences(modelClientAnswer(flags, c.case), c.kafka).map((d) => d.path);
  }

  it("the model's producer answers every cell as Kafka's, at every release", () => {
    for (const release of RELEASES) {
      const table = tables.get(release) as ClientTable;
      expect(table.cells).toHaveLength(CELLS.length);
      expect(clientDifferenceLines([table]), `Kafka ${release}`).toEqual([]);
      expect(table.differing).toBe(0);
    }
  });

  it("Kafka: INVALID_PRODUCER_ID_MAPPING is abortable (with a TV1 epoch bump) in 3.9.1, fatal from 4.0.2 (KAFKA-18019)", () => {
    for (const api of ["AddPartitionsToTxn", "AddOffsetsToTxn", "EndTxn(COMMIT)", "Produce"] as const) {
      expect(cell("3.9.1", api, "INVALID_PRODUCER_ID_MAPPING", 1).kafka, `${api} 3.9.1`).toMatchObject({
        class: "abortable",
        epochBumpRequired: true,
      });
      for (const release of ["4.0.2", "4.1.0", "4.4.0"])
        expect(cell(release, api, "INVALID_PRODUCER_ID_MAPPING", 1).kafka.class, `${api} ${release}`).toBe("fatal");
    }
  });

  it("Kafka: an abort answered TRANSACTION_ABORTABLE fails the abort in 4.0.2, is fatal from 4.1.0 (KAFKA-19250)", () => {
    for (const tv of [1, 2] as const) {
      const before = cell("4.0.2", "EndTxn(ABORT)", "TRANSACTION_ABORTABLE", tv).kafka;
      expect([before.class, before.state, before.detail?.result]).toEqual([
        "failed",
        "ABORTING_TRANSACTION",
        "TransactionAbortableException",
      ]);
      const after = cell("4.1.0", "EndTxn(ABORT)", "TRANSACTION_ABORTABLE", tv).kafka;
      expect([after.class, after.state, after.lastError]).toEqual([
        "fatal",
        "FATAL_ERROR",
        "KafkaException (cause TransactionAbortableException)",
      ]);
    }
  });

  it("Kafka: TxnOffsetCommit retries retriable errors, GROUP_AUTHORIZATION_FAILED is abortable, GROUP_ID_NOT_FOUND abortable only from 4.4.0 (KIP-1319)", () => {
    for (const release of RELEASES) {
      expect(cell(release, "TxnOffsetCommit", "NOT_ENOUGH_REPLICAS", 2).kafka).toMatchObject({
        class: "retry",
        coordinatorLookup: null,
      });
      expect(cell(release, "TxnOffsetCommit", "GROUP_AUTHORIZATION_FAILED", 2).kafka.class).toBe("abortable");
    }
    expect(cell("4.1.0", "TxnOffsetCommit", "GROUP_ID_NOT_FOUND", 2).kafka.class).toBe("fatal");
    expect(cell("4.4.0", "TxnOffsetCommit", "GROUP_ID_NOT_FOUND", 2).kafka.class).toBe("abortable");
  });

  it("Kafka: a dropped connection looks the coordinator up again, NETWORK_EXCEPTION answered does not; a coordinator's abortable error asks no TV1 epoch bump", () => {
    for (const release of RELEASES) {
      expect(cell(release, "EndTxn(COMMIT)", "DISCONNECTED", 1).kafka).toMatchObject({
        class: "retry",
        coordinatorLookup: "TRANSACTION",
      });
      expect(cell(release, "EndTxn(COMMIT)", "NETWORK_EXCEPTION", 1).kafka).toMatchObject({
        class: "retry",
        coordinatorLookup: null,
      });
      expect(cell(release, "AddPartitionsToTxn", "TRANSACTION_ABORTABLE", 1).kafka).toMatchObject({
        class: "abortable",
        epochBumpRequired: false,
      });
      expect(cell(release, "AddPartitionsToTxn", "UNKNOWN_PRODUCER_ID", 1).kafka).toMatchObject({
        class: "abortable",
        epochBumpRequired: true,
      });
      expect(cell(release, "Produce", "INVALID_PRODUCER_EPOCH", 1).kafka).toMatchObject({
        class: "abortable",
        epochBumpRequired: true,
      });
    }
  });

  it("a planted model mistake is caught: KIP-588 off (produce-epoch-error-fatal) makes INVALID_PRODUCER_EPOCH on a produce fatal", () => {
    for (const release of RELEASES)
      for (const tv of [1, 2] as const) {
        const c = cell(release, "Produce", "INVALID_PRODUCER_EPOCH", tv);
        expect(c.differences).toEqual([]);
        expect(withModel(release, { produceInvalidEpochAbortable: false }, c), `${release} TV${tv}`).toContain("class");
      }
  });

  it("each client flag is needed: switched off at the release that has it, the cells of its change differ", () => {
    const planted: [string, Partial<ReleaseFlags>, ClientApi, string][] = [
      ["4.0.2", { invalidProducerIdMappingFatal: false }, "AddPartitionsToTxn", "INVALID_PRODUCER_ID_MAPPING"],
      ["4.0.2", { invalidProducerIdMappingFatal: false }, "Produce", "INVALID_PRODUCER_ID_MAPPING"],
      ["4.1.0", { endTxnAbortAbortableErrorFatal: false }, "EndTxn(ABORT)", "TRANSACTION_ABORTABLE"],
      ["4.4.0", { txnOffsetCommitMemberEpochErrorsAbortable: false }, "TxnOffsetCommit", "STALE_MEMBER_EPOCH"],
      // And on where the release does not have it.
      ["3.9.1", { invalidProducerIdMappingFatal: true }, "EndTxn(COMMIT)", "INVALID_PRODUCER_ID_MAPPING"],
      ["4.0.2", { endTxnAbortAbortableErrorFatal: true }, "EndTxn(ABORT)", "TRANSACTION_ABORTABLE"],
    ];
    for (const [release, overrides, api, error] of planted) {
      const c = cell(release, api, error, 1);
      expect(c.differences).toEqual([]);
      expect(withModel(release, overrides, c), `${release} ${JSON.stringify(overrides)} ${api} ${error}`).toContain(
        "class",
      );
    }
  });
});
