import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstStepDivergence, modelFlags, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import { DEFAULT_LEADER_CONFIG, type LeaderOp, type LeaderResult } from "../../src/conform/leader/leader-ops.js";
import { ModelLeader } from "../../src/conform/leader/model-leader.js";
import type { ReleaseFlags } from "../../src/kafka/release.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { type HarnessRelease, harnessReleases, JVM_DIR } from "../../src/harness/kafka-releases.js";
import { inSlot } from "./harness-slots.js";

/**
 * KAFKA-14920's fix (PR #14033, 3.6.0) at every release's UnifiedLog, against the model's leader:
 * a new producer's first batch started verification at sequence 0 and a later batch at sequence 1
 * (VerificationStateEntry keeps the lowest sequence, 0); the later batch, verified, is refused
 * OUT_OF_ORDER_SEQUENCE_NUMBER until the first is written, then taken. The model with the bug switch
 * (no floor) writes the later batch first and diverges from every release.
 */
const data = (baseSequence: number, guard: "verified" | "none"): LeaderOp => ({
  op: "data",
  producerId: 1000,
  producerEpoch: 0,
  baseSequence,
  count: 1,
  transactional: true,
  origin: "CLIENT",
  guard,
});

const OPS: LeaderOp[] = [
  { op: "verify", producerId: 1000, producerEpoch: 0, sequence: 0, supportsEpochBump: false },
  { op: "verify", producerId: 1000, producerEpoch: 0, sequence: 1, supportsEpochBump: false },
  data(1, "verified"),
  data(0, "verified"),
  // The transaction is open now: no verification (the sentinel guard), the sequence follows on.
  data(1, "none"),
];
const ERRORS = ["NONE", "NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER", "NONE", "NONE"];

const READY = `${JVM_DIR}target/classpath/READY`;

function runModel(release: HarnessRelease, overrides: Partial<ReleaseFlags> = {}): LeaderResult[] {
  const leader = new ModelLeader(modelFlags(release, overrides), DEFAULT_LEADER_CONFIG);
  return OPS.map((op) => leader.apply(op));
}

async function runKafka(release: HarnessRelease): Promise<LeaderResult[]> {
  // Never skipped: without the harness this test cannot say anything, and says so.
  if (!existsSync(READY))
    throw new Error(`the JVM harness is not set up (${READY} is missing): run npm run harness:setup (Java 17+, Maven)`);
  const harness = await KafkaHarness.start(release);
  try {
    return await runKafkaSequence(harness, OPS);
  } finally {
    await harness.close();
  }
}

describe("the verification entry's sequence floor (KAFKA-14920) at every release", () => {
  for (const release of harnessReleases()) {
    it.concurrent(`Kafka ${release.release} refuses the later batch until the first is written; the model agrees, and its bug switch does not`, async () => {
      const kafka = await inSlot(() => runKafka(release));
      expect(kafka.map((r) => r.error)).toEqual(ERRORS);
      expect(firstStepDivergence(OPS, runModel(release), kafka)).toBeNull();
      const buggy = runModel(release, { verificationNoSequenceFloor: true });
      expect(buggy.map((r) => r.error).slice(2, 4)).toEqual(["NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER"]);
      expect(firstStepDivergence(OPS, buggy, kafka)?.step).toBe(2);
    }, 120_000);
  }
});
