import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstStepDivergence, runKafkaSequence, modelAnswers } from "../../src/conform/leader/leader-differential.js";
import {
  DEFAULT_LEADER_CONFIG,
  type LeaderConfig,
  type LeaderOp,
  type LeaderResult,
} from "../../src/conform/leader/leader-ops.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { type HarnessRelease, harnessReleases, JVM_DIR } from "../../src/harness/kafka-releases.js";
import { inSlot } from "./harness-slots.js";
import { checkForgottenDuplicate } from "./forgotten-duplicate-cases.js";
import { checkForgottenTransaction } from "./forgotten-transaction-cases.js";
import { checkLateMarkerVerification } from "./late-marker-verification-cases.js";
import { checkStaleSnapshot } from "./stale-snapshot-cases.js";
import { checkStuckSequence } from "./stuck-sequence-cases.js";

/**
 * Two facts of the verification entry (KIP-890) at every release's UnifiedLog, against the model's
 * leader, on one harness per release.
 *
 * The sequence floor, KAFKA-14920's fix (PR #14033, 3.6.0): a new producer's first batch started
 * verification at sequence 0 and a later batch at sequence 1 (VerificationStateEntry keeps the
 * lowest sequence, 0); the later batch, verified, is refused OUT_OF_ORDER_SEQUENCE_NUMBER until the
 * first is written, then taken. The model with the bug switch (no floor) writes the later batch
 * first and diverges from every release.
 *
 * The entry's expiry: ProducerStateManager.removeExpiredProducers drops a verification entry
 * producer.id.expiration.ms after it was made; a retried verification finds the entry and keeps
 * its creation time. A write that waited that long for its AddPartitionsToTxn (a group
 * coordinator's transactional offset commit here) finds no entry and is refused INVALID_TXN_STATE.
 * This is why `everything` allows that fatal error when it draws producer-state expiry.
 *
 * A batch stuck behind a later sequence of its own transaction (stuck-sequence-cases.ts) follows
 * from both: on the same harness, one JVM per release. So does a committed transaction open again
 * after every producer expired and a truncation reloaded an older snapshot (stale-snapshot-cases.ts),
 * an aborted transaction forgotten by the same skipped replay, its replicated ABORT marker then
 * leaving no entry in the transaction index (forgotten-transaction-cases.ts), and a copy of a batch
 * the log holds that the producer state no longer recognises as a duplicate
 * (forgotten-duplicate-cases.ts), and a late copy of an earlier transaction's marker that clears
 * the next transaction's verification (late-marker-verification-cases.ts).
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

const FLOOR_OPS: LeaderOp[] = [
  { op: "verify", producerId: 1000, producerEpoch: 0, sequence: 0, supportsEpochBump: false },
  { op: "verify", producerId: 1000, producerEpoch: 0, sequence: 1, supportsEpochBump: false },
  data(1, "verified"),
  data(0, "verified"),
  // The transaction is open now: no verification (the sentinel guard), the sequence follows on.
  data(1, "none"),
];
const FLOOR_ERRORS = ["NONE", "NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER", "NONE", "NONE"];

const EXPIRY_CONFIG: LeaderConfig = { ...DEFAULT_LEADER_CONFIG, producerIdExpirationMs: 300 };
const verifyOffsets: LeaderOp = {
  op: "verify",
  producerId: 1005,
  producerEpoch: 0,
  sequence: 0,
  supportsEpochBump: true,
};
const offsetCommit = (guard: `op:${number}`): LeaderOp => ({
  op: "data",
  producerId: 1005,
  producerEpoch: 0,
  baseSequence: 0,
  count: 1,
  transactional: true,
  origin: "COORDINATOR",
  guard,
});
/** As everything's seed 90 did (a __consumer_offsets partition, producer-state expiry at 300 ms). */
const EXPIRY_OPS: LeaderOp[] = [
  verifyOffsets,
  { op: "advanceTime", ms: 200 },
  { op: "expireProducers" },
  // A retry 200 ms later finds the entry: the same guard, the creation time kept.
  verifyOffsets,
  { op: "advanceTime", ms: 100 },
  { op: "expireProducers" },
  offsetCommit("op:3"),
];
const EXPIRY_ERRORS = ["NONE", "NONE", "NONE", "NONE", "NONE", "NONE", "INVALID_TXN_STATE"];

const READY = `${JVM_DIR}target/classpath/READY`;

async function runKafka(release: HarnessRelease): Promise<{ floor: LeaderResult[]; expiry: LeaderResult[] }> {
  // Never skipped: without the harness this test cannot say anything, and says so.
  if (!existsSync(READY))
    throw new Error(`the JVM harness is not set up (${READY} is missing): run npm run harness:setup (Java 17+, Maven)`);
  const harness = await KafkaHarness.start(release);
  try {
    const floor = await runKafkaSequence(harness, FLOOR_OPS);
    const expiry = await runKafkaSequence(harness, EXPIRY_OPS, EXPIRY_CONFIG);
    await checkStuckSequence(release, harness);
    await checkStaleSnapshot(release, harness);
    await checkForgottenDuplicate(release, harness);
    await checkForgottenTransaction(release, harness);
    await checkLateMarkerVerification(release, harness);
    return { floor, expiry };
  } finally {
    await harness.close();
  }
}

describe("the verification entry at every release", () => {
  for (const release of harnessReleases()) {
    it.concurrent(`Kafka ${release.release}: the sequence floor (KAFKA-14920), the entry's expiry, a stuck sequence, a stale snapshot, a forgotten transaction, a forgotten duplicate and a late marker's clearing; the model agrees`, async () => {
      const kafka = await inSlot(() => runKafka(release));

      expect(kafka.floor.map((r) => r.error)).toEqual(FLOOR_ERRORS);
      expect(firstStepDivergence(FLOOR_OPS, modelAnswers(release, FLOOR_OPS), kafka.floor)).toBeNull();
      const buggy = modelAnswers(release, FLOOR_OPS, { overrides: { verificationNoSequenceFloor: true } });
      expect(buggy.map((r) => r.error).slice(2, 4)).toEqual(["NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER"]);
      expect(firstStepDivergence(FLOOR_OPS, buggy, kafka.floor)?.step).toBe(2);

      expect(kafka.expiry.map((r) => r.error)).toEqual(EXPIRY_ERRORS);
      const model = modelAnswers(release, EXPIRY_OPS, { config: EXPIRY_CONFIG });
      expect(firstStepDivergence(EXPIRY_OPS, model, kafka.expiry)).toBeNull();
    }, 120_000);
  }
});
