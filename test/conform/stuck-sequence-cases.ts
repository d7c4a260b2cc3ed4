import { expect } from "vitest";
import { firstStepDivergence, runKafkaSequence, modelAnswers } from "../../src/conform/leader/leader-differential.js";
import { DEFAULT_LEADER_CONFIG, type LeaderConfig, type LeaderOp } from "../../src/conform/leader/leader-ops.js";
import type { KafkaHarness } from "../../src/harness/harness-process.js";
import type { HarnessRelease } from "../../src/harness/kafka-releases.js";
import { clientOps } from "./client-ops.js";

/**
 * A batch stuck behind a later sequence of its own transaction (the oracle's stuck-sequence
 * fatal error), as everything showed it once it drew one request per connection and one record a
 * batch (issue 31): the leader's part, on every release's UnifiedLog, against the model's leader.
 *
 * Expiry (everything's seed 607): a transaction's first batch at a partition (sequence 0) keeps
 * failing its verification (the coordinator's log refuses NOT_ENOUGH_REPLICAS); its verification
 * entry, lowest sequence 0, expires producer.id.expiration.ms after it was made
 * (ProducerStateManager.removeExpiredProducers, by the entry's creation time). The broker reads the
 * connection's next request only then (SocketServer mutes a connection while a request is in
 * flight): the batch at sequence 2 makes a new entry whose lowest sequence is 2, is verified and
 * written (the producer has no state there: ProducerAppendInfo.checkSequence takes any sequence).
 * The batch at sequence 0, retried, finds the transaction open (the sentinel guard) and is refused
 * OUT_OF_ORDER_SEQUENCE_NUMBER for good.
 *
 * A new leader (everything's seed 5 before f8f0a49): a producer's batch at sequence 0 is on its way
 * to the old leader when the batch at sequence 1 reaches the new one, which never saw the producer:
 * its verification entry starts at sequence 1, the batch is written, and sequence 0 arriving after
 * is refused OUT_OF_ORDER_SEQUENCE_NUMBER for good.
 */
const PID = 1006;
const { verify, data } = clientOps(PID);

const EXPIRY_CONFIG: LeaderConfig = { ...DEFAULT_LEADER_CONFIG, producerIdExpirationMs: 300 };
/** Seed 607's times at broker-0 (4.0, TV2 producer: Produce v12, supportsEpochBump). */
const EXPIRY_OPS: LeaderOp[] = [
  verify(0, 1, true), // 4087: sequence 0 arrives; its AddPartitionsToTxn fails
  { op: "advanceTime", ms: 200 },
  verify(0, 1, true), // 4287..4398: retries of sequence 0 (and sequence 1) find the entry
  { op: "advanceTime", ms: 113 },
  { op: "expireProducers" }, // 4400: the entry, made at 4087, is 313 ms old
  verify(2, 1, true), // 4616: the connection's next request, sequence 2: a new entry at 2
  data(2, 1, "op:5"), // 4620: verified and written
  data(0, 1, "none"), // 4625: sequence 0 again; the transaction is open, no verification
];
/** 3.9 and 4.0 write sequence 2 and leave sequence 0 stuck behind it. */
const EXPIRY_STUCK = ["NONE", "NONE", "NONE", "NONE", "NONE", "NONE", "NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER"];
/**
 * From 4.1.0 (KAFKA-18202) a TV2-verified producer without state must start at sequence 0:
 * sequence 2 is refused OUT_OF_ORDER_SEQUENCE_NUMBER, and sequence 0, unverified now (the sentinel
 * guard here; the real retry verifies again and is written), is refused INVALID_TXN_STATE.
 */
const EXPIRY_REFUSED = [
  "NONE",
  "NONE",
  "NONE",
  "NONE",
  "NONE",
  "NONE",
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
  "INVALID_TXN_STATE",
];

/** Seed 5's broker-1 (TV1 producer after a transaction.version downgrade: Produce v11). */
const NEW_LEADER_OPS: LeaderOp[] = [
  verify(1, 6, false), // sequence 1 reaches the new leader first
  data(1, 6, "op:0"),
  data(0, 6, "none"), // sequence 0, retried from the old leader
];
const NEW_LEADER_ERRORS = ["NONE", "NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER"];

/** Both sequences on `harness` (Kafka `release`), each beside the model and a model made to differ. */
export async function checkStuckSequence(release: HarnessRelease, harness: KafkaHarness): Promise<void> {
  const kafka = {
    expiry: await runKafkaSequence(harness, EXPIRY_OPS, EXPIRY_CONFIG),
    newLeader: await runKafkaSequence(harness, NEW_LEADER_OPS),
  };

  const before41 = release.release === "3.9.1" || release.release === "4.0.2";
  expect(kafka.expiry.map((r) => r.error)).toEqual(before41 ? EXPIRY_STUCK : EXPIRY_REFUSED);
  expect(
    firstStepDivergence(EXPIRY_OPS, modelAnswers(release, EXPIRY_OPS, { config: EXPIRY_CONFIG }), kafka.expiry),
  ).toBeNull();
  // Able to fail: at 3.9/4.0 a model whose entry never expired keeps sequence 0 as the floor
  // and refuses sequence 2 (KAFKA-14920's fix), unlike Kafka; from 4.1 a model without
  // KAFKA-18202 writes sequence 2, unlike Kafka.
  const wrong = before41
    ? modelAnswers(release, EXPIRY_OPS)
    : modelAnswers(release, EXPIRY_OPS, {
        config: EXPIRY_CONFIG,
        overrides: { tv2FirstSequenceMustBeZero: false },
      });
  expect(wrong[6]?.error).not.toBe(kafka.expiry[6]?.error);
  expect(firstStepDivergence(EXPIRY_OPS, wrong, kafka.expiry)).not.toBeNull();

  expect(kafka.newLeader.map((r) => r.error)).toEqual(NEW_LEADER_ERRORS);
  expect(firstStepDivergence(NEW_LEADER_OPS, modelAnswers(release, NEW_LEADER_OPS), kafka.newLeader)).toBeNull();
  // Able to fail: 0.11's leader (KAFKA-5793's bug switch) refused an unknown producer's
  // sequence 1, unlike every release here.
  const strict = modelAnswers(release, NEW_LEADER_OPS, {
    overrides: { unknownProducerReportedAsOutOfOrder: true },
  });
  expect(firstStepDivergence(NEW_LEADER_OPS, strict, kafka.newLeader)?.step).toBe(1);
}
