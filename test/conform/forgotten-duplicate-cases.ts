import { expect } from "vitest";
import { firstStepDivergence, modelAnswers, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import type { LeaderOp, LeaderResult } from "../../src/conform/leader/leader-ops.js";
import type { KafkaHarness } from "../../src/harness/harness-process.js";
import type { HarnessRelease } from "../../src/harness/kafka-releases.js";
import { clientOps } from "./client-ops.js";

/**
 * A copy of a batch the leader's log already holds, refused OUT_OF_ORDER_SEQUENCE_NUMBER because the
 * producer state no longer remembers it (everything's seeds 2957, 3208 and 4559 after KIP-951): the
 * leader's part, on every release's UnifiedLog, against the model's leader. A duplicate is found only
 * among the producer entry's retained batches (UnifiedLog.analyzeAndValidateProducerState ->
 * ProducerStateEntry.findDuplicateBatch): the last NUM_BATCHES_TO_RETAIN (5) while the log runs, and
 * only the last one after a snapshot is loaded (ProducerStateManager.readSnapshot keeps one
 * BatchMetadata per producer). An older copy goes on to ProducerAppendInfo.checkSequence and is
 * refused. The batch is in the log all the same: nothing is stuck behind it.
 *
 * Restart (seed 2957, broker-1's output-1): p2.t4's batches at sequences 0 and 1 are written; a
 * controlled shutdown (UnifiedLog.close takes a snapshot at the log end) keeps only sequence 1; the
 * producer's retry of sequence 0 (its first answer was NOT_LEADER_OR_FOLLOWER) finds the transaction
 * open (no verification) and is refused: current end sequence 1.
 *
 * Window (seed 3208, broker-1's output-1, a TV1 producer): a copy of q0.t10's batch at sequence 4,
 * delayed on a connection its producer had closed, arrives after sequences 5..9 were written. Its
 * verification makes an entry whose lowest sequence is 4 (maybeCreateVerificationStateEntry), the
 * batch is refused (current end sequence 9), and the entry stays: q0.t12's first batch at sequence 10
 * is refused too (earliest seen sequence 4) until a transactional append clears the entry.
 *
 * Window, transaction open (seed 4559, broker-2's input-2): a delayed copy of p0.t1's sequence 0
 * arrives after sequences 2..6 of p0.t2 were written; the transaction is open, so no verification,
 * and the copy is refused (current end sequence 6).
 */
const PID = 1001;
const { verify, data } = clientOps(PID);
const marker = (producerEpoch: number, result: "COMMIT" | "ABORT"): LeaderOp => ({
  op: "marker",
  producerId: PID,
  producerEpoch,
  coordinatorEpoch: 0,
  result,
  transactionVersion: 0,
  origin: "COORDINATOR",
});

/** Seed 2957 (TV2 producer: Produce v12). `restart` false: the contrast, the retry is a duplicate. */
function restartOps(restart: boolean): LeaderOp[] {
  return [
    verify(0, 1, true), // 3695: sequence 0 arrives; AddPartitionsToTxn adds output-1
    data(0, 1, "op:0"), // 3708: written (offset 19 in the run)
    data(1, 1, "none"), // 3713: the transaction is open: no verification; written (offset 20)
    ...(restart ? [{ op: "restart", clean: true } as LeaderOp] : []), // 3807: controlled shutdown
    data(0, 1, "none"), // 5138: the retry of sequence 0, the transaction still open
  ];
}

/** Seed 3208 (TV1 producer: Produce v11, epoch 8). */
const WINDOW_OPS: LeaderOp[] = [
  verify(4, 8, false), // q0.t10's first batch at output-1
  data(4, 8, "op:0"),
  data(5, 8, "none"),
  marker(8, "ABORT"), // q0.t10 aborted
  verify(6, 8, false), // q0.t11
  data(6, 8, "op:4"),
  data(7, 8, "none"),
  data(8, 8, "none"),
  data(9, 8, "none"),
  marker(8, "COMMIT"),
  verify(4, 8, false), // 11073: the delayed copy of sequence 4: a new entry, lowest sequence 4
  data(4, 8, "op:10"), // 11106: verified, not among the retained 5..9
  verify(10, 8, false), // 11121: q0.t12's first batch: the entry is reused, lowest sequence 4 stays
  data(10, 8, "op:12"),
];
const WINDOW_ERRORS = [
  ...Array<string>(11).fill("NONE"),
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
  "NONE",
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
];

/** Seed 4559 (TV1 producer, epoch 0). */
const OPEN_WINDOW_OPS: LeaderOp[] = [
  verify(0, 0, false), // p0.t1
  data(0, 0, "op:0"),
  data(1, 0, "none"),
  marker(0, "COMMIT"),
  verify(2, 0, false), // p0.t2
  data(2, 0, "op:4"),
  data(3, 0, "none"),
  data(4, 0, "none"),
  data(5, 0, "none"),
  data(6, 0, "none"),
  data(0, 0, "none"), // 2028: the delayed copies of p0.t1's sequences 0 and 1, p0.t2 open
  data(1, 0, "none"),
];
const OPEN_WINDOW_ERRORS = [
  ...Array<string>(10).fill("NONE"),
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
  "OUT_OF_ORDER_SEQUENCE_NUMBER",
];

const errors = (results: readonly LeaderResult[]): string[] => results.map((r) => r.error);

/** The three sequences (and the restart's contrast) on `harness` (Kafka `release`), beside the model. */
export async function checkForgottenDuplicate(release: HarnessRelease, harness: KafkaHarness): Promise<void> {
  const restart = restartOps(true);
  const kafkaRestart = await runKafkaSequence(harness, restart);
  expect(errors(kafkaRestart)).toEqual(["NONE", "NONE", "NONE", "NONE", "OUT_OF_ORDER_SEQUENCE_NUMBER"]);
  expect(kafkaRestart[4]?.message).toContain("0 (incoming seq. number), 1 (current end sequence number)");
  expect(firstStepDivergence(restart, modelAnswers(release, restart), kafkaRestart)).toBeNull();
  // The cause pinned on the restart: without it the retry is recognised (a duplicate, NONE).
  const running = restartOps(false);
  const kafkaRunning = await runKafkaSequence(harness, running);
  expect(kafkaRunning[3]).toMatchObject({ error: "NONE", duplicate: true, firstOffset: 0 });
  expect(firstStepDivergence(running, modelAnswers(release, running), kafkaRunning)).toBeNull();
  // Able to fail: a model whose snapshot kept every retained batch would call the retry a duplicate.
  expect(firstStepDivergence(restart, modelAnswers(release, running), kafkaRestart)).not.toBeNull();

  const kafkaWindow = await runKafkaSequence(harness, WINDOW_OPS);
  expect(errors(kafkaWindow)).toEqual(WINDOW_ERRORS);
  expect(kafkaWindow[11]?.message).toContain("4 (incoming seq. number), 9 (current end sequence number)");
  expect(kafkaWindow[13]?.message).toContain("10 (incoming seq. number), 4 (earliest seen sequence)");
  expect(firstStepDivergence(WINDOW_OPS, modelAnswers(release, WINDOW_OPS), kafkaWindow)).toBeNull();
  // Able to fail: a model without the verification entry's floor (KAFKA-14920's bug switch) takes
  // sequence 10, unlike Kafka.
  const noFloor = modelAnswers(release, WINDOW_OPS, { overrides: { verificationNoSequenceFloor: true } });
  expect(firstStepDivergence(WINDOW_OPS, noFloor, kafkaWindow)?.step).toBe(13);

  const kafkaOpen = await runKafkaSequence(harness, OPEN_WINDOW_OPS);
  expect(errors(kafkaOpen)).toEqual(OPEN_WINDOW_ERRORS);
  expect(firstStepDivergence(OPEN_WINDOW_OPS, modelAnswers(release, OPEN_WINDOW_OPS), kafkaOpen)).toBeNull();
}
