import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { findMutant } from "../../src/fuzz/catalogue/mutants.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { inputOf, outputValue } from "../../src/kafka/client/processor.js";
import type { FinalPartitionRead, ProcessingView } from "../../src/kafka/cluster-final-state.js";
import type { PartitionKey } from "../../src/kafka/common/types.js";
import { checkProcessing } from "../../src/oracle/processing.js";
import { parseScenario, resolveScenario } from "../../src/scenario/loader.js";

const IN = "input-0" as PartitionKey;
const OUT = "output-0" as PartitionKey;

function read(
  partition: PartitionKey,
  records: { offset: number; value: string; ghostTxn: string }[],
): FinalPartitionRead {
  return {
    partition,
    broker: "broker-0",
    brokerRelease: "4.2.1",
    readBound: 100,
    highWatermark: 100,
    records: records.map((r) => ({ partition, producerId: 1, ...r })),
  };
}

/** Input records 0..2 (p0.t1); q0.t1 processed 0 and 1 in generation 1 and committed offset `committed`. */
function world(
  outputs: { offset: number; value: string; ghostTxn: string }[],
  committed = 2,
): {
  view: ProcessingView;
  reads: FinalPartitionRead[];
} {
  const input = [0, 1, 2].map((offset) => ({ offset, value: `p0.t1/${offset}`, ghostTxn: "p0.t1" }));
  const group = { groupId: "g", generationId: 1, memberId: "g-m1", groupInstanceId: null };
  const view: ProcessingView = {
    groupId: "g",
    inputTopic: "input",
    outputTopic: "output",
    offsetsPartition: "__consumer_offsets-0" as PartitionKey,
    committed: [
      {
        partition: IN,
        offset: {
          offset: committed,
          recordOffset: 0,
          generationId: 1,
          memberId: "g-m1",
          producerId: 7,
          ghostTxn: "q0.t1",
        },
      },
    ],
    journal: [
      {
        ghostTxn: "q0.t1",
        processor: "q0",
        transactionalId: "proc-txn-0",
        group,
        inputs: [
          { partition: IN, offset: 0 },
          { partition: IN, offset: 1 },
        ],
        atMs: 10,
      },
    ],
    accepted: [],
  };
  return { view, reads: [read(IN, input), read(OUT, outputs)] };
}

const out = (offset: number, ghostTxn: string, index: number, inputOffset: number) => ({
  offset,
  ghostTxn,
  value: outputValue(ghostTxn, index, { partition: IN, offset: inputOffset }),
});

describe("processing checks (issue 17): duplicate-processing, lost-processing, zombie-commit", () => {
  it("an output value names its input record, and keeps the record identity the client checks parse", () => {
    expect(outputValue("q0.t3", 1, { partition: IN, offset: 7 })).toBe("q0.t3/1=input-0@7");
    expect(inputOf("q0.t3/1=input-0@7")).toEqual({ partition: IN, offset: 7 });
    expect(inputOf("p0.t1/0")).toBeNull();
  });

  it("is silent when every input record below the committed offset has exactly one committed output", () => {
    const { view, reads } = world([out(0, "q0.t1", 0, 0), out(1, "q0.t1", 1, 1)]);
    expect(checkProcessing(view, reads, 100)).toEqual([]);
  });

  it("duplicate-processing: the same input record's output committed twice names both transactions", () => {
    const { view, reads } = world([out(0, "q0.t1", 0, 0), out(1, "q0.t1", 1, 1), out(2, "q1.t1", 0, 1)]);
    const found = checkProcessing(view, reads, 100);
    expect(found.map((v) => v.kind)).toEqual(["duplicate-processing"]);
    expect(found[0]?.summary).toContain("input-0@1");
    expect(found[0]?.explanation.join("\n")).toContain(
      "q0.t1 of processor q0 (proc-txn-0), member g-m1 of generation 1",
    );
    expect(found[0]?.explanation.join("\n")).toContain("q1.t1");
  });

  it("lost-processing: an input record below the committed offset without output names the committing transaction", () => {
    const { view, reads } = world([out(0, "q0.t1", 0, 0)]);
    const found = checkProcessing(view, reads, 100);
    expect(found.map((v) => v.kind)).toEqual(["lost-processing"]);
    expect(found[0]?.summary).toContain("input-0@1 is below the group's committed offset 2");
    expect(found[0]?.explanation.join("\n")).toContain("read it; its output is not among the committed records");
  });

  it("zombie-commit: a written TxnOffsetCommit of a left-behind generation whose transaction committed", () => {
    const { view, reads } = world([out(0, "q0.t1", 0, 0), out(1, "q0.t1", 1, 1)]);
    const accepted = {
      ghostTxn: "q0.t1",
      transactionalId: "proc-txn-0",
      groupId: "g",
      memberId: "g-m1",
      generationId: 1,
      groupGenerationId: 2,
      memberKnown: false,
      offsets: [{ partition: IN, offset: 2 }],
      atOffset: 5,
    };
    const found = checkProcessing({ ...view, accepted: [accepted] }, reads, 100);
    expect(found.map((v) => v.kind)).toEqual(["zombie-commit"]);
    expect(found[0]?.summary).toContain("generation 1, while the group was at generation 2");
    // The same commit in the current generation by a member still in the group is no zombie.
    const current = { ...accepted, groupGenerationId: 1, memberKnown: true };
    expect(checkProcessing({ ...view, accepted: [current] }, reads, 100)).toEqual([]);
  });
});

describe("processor scenarios", () => {
  // GroupMetadataManager / ClassicGroup.validateOffsetCommit: KIP-447 refuses the zombie's TxnOffsetCommit.
  it("kip-447-zombie: clean, with zombies refused by generation; the mutant without the check shows zombie-commit", () => {
    const loaded = resolveScenario("kip-447-zombie");
    const clean = runSeed(runConfigFor(loaded), { seed: 4 }, { recordTrace: true });
    expect(clean.violations).toEqual([]);
    const refused = (clean.trace ?? []).filter(
      (e) => e.kind === "group.request" && e.fields.api === "TxnOffsetCommit" && e.fields.error !== 0,
    );
    expect(refused.length).toBeGreaterThan(0);
    const mutant = findMutant("no-kip-447-generation-check");
    const broken = runSeed(runConfigFor(loaded, mutant?.overrides ?? {}), { seed: 4 });
    const zombie = broken.violations.find((v) => v.kind === "zombie-commit");
    expect(zombie?.explanation.join("\n")).toMatch(
      /wrote it at offset \d+ although the group eos-app was at generation/,
    );
  });

  it("eos-processor: processors commit input offsets through rebalances and crashes; clean; the same seed gives the same trace", () => {
    const config = runConfigFor(resolveScenario("eos-processor"));
    const a = runSeed(config, { seed: 1 }, { recordTrace: true });
    const b = runSeed(config, { seed: 1 });
    expect(a.violations).toEqual([]);
    expect(b.traceHash).toBe(a.traceHash);
    const kinds = new Set((a.trace ?? []).map((e) => e.kind));
    for (const k of ["group.txn-offsets", "group.complete-txn", "group.members-expired"]) expect(kinds).toContain(k);
  });
});

describe("eos-processor-gap: the group's offsets partition led by a 4.1 broker", () => {
  // KafkaApis.handleWriteTxnMarkersRequest -> GroupCoordinatorService.completeTransaction; a 4.1 leader
  // takes only WriteTxnMarkers v1, so the TV2 marker is judged by the legacy rule (UnifiedLog producer state).
  it("a late marker copy closes the next transaction's offsets at __consumer_offsets-0, judged by the 4.1 broker", () => {
    const r = runSeed(runConfigFor(resolveScenario("eos-processor-gap")), { seed: 1 });
    const stale = r.violations.find((v) => v.kind === "stale-marker" && v.partition === "__consumer_offsets-0");
    expect(stale).toMatchObject({ broker: "broker-2", brokerRelease: "4.1" });
    expect(stale?.explanation.join("\n")).toContain("legacy rule (marker epoch >= producer epoch) passed");
  });
});

describe("stale markers at offsets partitions on 4.2.1", () => {
  // CoordinatorRuntime.scheduleTransactionCompletion(..., transactionVersion): without it the offsets
  // partition's producer-state check falls back to the legacy rule even on a 4.2.1 leader.
  it("eos-processor is clean; with the TransactionVersion dropped on the group coordinator's path, seed 2 shows stale-marker at __consumer_offsets-0", () => {
    const loaded = resolveScenario("eos-processor");
    expect(runSeed(runConfigFor(loaded), { seed: 2 }).violations).toEqual([]);
    const mutant = findMutant("group-coordinator-drops-transaction-version");
    const broken = runSeed(runConfigFor(loaded, mutant?.overrides ?? {}), { seed: 2 });
    const stale = broken.violations.find((v) => v.kind === "stale-marker");
    expect(stale).toMatchObject({ partition: "__consumer_offsets-0", brokerRelease: "4.2.1" });
  });
});

describe("processing section mistakes", () => {
  it("an input or output topic the cluster lacks is the user's mistake (InputError), not the model's", () => {
    const text = [
      "name: p",
      "cluster:",
      "  brokers: [{ id: b0, release: '4.2.1' }]",
      "  topics: [{ name: input, partitions: 1 }]",
      "processing: { inputTopic: input, outputTopic: nowhere, offsetsTopic: { minInsyncReplicas: 1 } }",
    ].join("\n");
    expect(() => parseScenario(text, "s.yaml")).toThrow(
      /processing\.outputTopic: expected a topic of cluster\.topics \(input\), found "nowhere"/,
    );
  });
});
