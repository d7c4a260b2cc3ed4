import { expect } from "vitest";
import { firstStepDivergence, modelAnswers, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import type { LeaderOp, LeaderResult } from "../../src/conform/leader/leader-ops.js";
import type { KafkaHarness } from "../../src/harness/harness-process.js";
import type { HarnessRelease } from "../../src/harness/kafka-releases.js";

/**
 * A late copy of an earlier transaction's marker clears the next transaction's verification
 * (everything's seed 182 with aborts without flush, Z07's bug-off run): the leader's part, on
 * every release's UnifiedLog, against the model's leader.
 *
 * The story at broker-0's __consumer_offsets-0 (every broker 4.2.1, a TV2 processor, producerId
 * 1001): q1#2.t20 commits its offsets at epoch 20 and its COMMIT marker (epoch 21) is written by a
 * re-send of the coordinator's WriteTxnMarkers request. t21 aborts without touching the partition
 * (its epoch bump to 22 leaves the stored epoch at 21). t22's TxnOffsetCommit starts its
 * verification at epoch 22; before the coordinator answers, the marker request's first copy,
 * delayed, arrives: a TV2 marker at the stored epoch with no transaction open is appended again
 * (KAFKA-19999 from 4.2.0; the legacy rule `epoch < current` before it), and
 * UnifiedLog.updateProducers clears the verification entry, which it keeps only for a TV2 control
 * batch at the entry's own epoch. The offset commit, verified, finds no entry: INVALID_TXN_STATE,
 * which the producer's TxnOffsetCommit handler treats as fatal.
 */
const PID = 1001;
const GROUP_OFFSETS_SEQUENCE = 0; // a group coordinator's transactional offset commit always carries sequence 0

const verify = (producerEpoch: number): LeaderOp => ({
  op: "verify",
  producerId: PID,
  producerEpoch,
  sequence: GROUP_OFFSETS_SEQUENCE,
  supportsEpochBump: true,
});
const offsetCommit = (producerEpoch: number, guard: `op:${number}`): LeaderOp => ({
  op: "data",
  producerId: PID,
  producerEpoch,
  baseSequence: GROUP_OFFSETS_SEQUENCE,
  count: 1,
  transactional: true,
  origin: "COORDINATOR",
  guard,
});

/** `lateCopy` false: the contrast, no late copy arrives and the offset commit is written. */
function storyOps(transactionVersion: number, lateCopy: boolean): LeaderOp[] {
  const commitMarker: LeaderOp = {
    op: "marker",
    producerId: PID,
    producerEpoch: 21,
    coordinatorEpoch: 0,
    result: "COMMIT",
    transactionVersion,
    origin: "COORDINATOR",
  };
  return [
    verify(20), // t20's TxnOffsetCommit
    offsetCommit(20, "op:0"),
    commitMarker, // t20's COMMIT, written by a re-send (epoch 21)
    verify(22), // t22's TxnOffsetCommit, after t21's empty abort bumped the epoch to 22
    ...(lateCopy ? [commitMarker] : []), // the first copy of t20's marker request, delayed
    offsetCommit(22, "op:3"),
  ];
}

const errors = (results: readonly LeaderResult[]): string[] => results.map((r) => r.error);

/**
 * The story and its contrast on `harness` (Kafka `release`), beside the model. The coordinator sends
 * WriteTxnMarkers v2 with the transaction version from 4.2.0 (KIP-1228), v1 (read as 0) before.
 */
export async function checkLateMarkerVerification(release: HarnessRelease, harness: KafkaHarness): Promise<void> {
  const tv = ["3.9.1", "4.0.2", "4.1.0", "4.1.2"].includes(release.release) ? 0 : 2;
  const story = storyOps(tv, true);
  const kafka = await runKafkaSequence(harness, story);
  expect(errors(kafka)).toEqual(["NONE", "NONE", "NONE", "NONE", "NONE", "INVALID_TXN_STATE"]);
  expect(firstStepDivergence(story, modelAnswers(release, story), kafka)).toBeNull();

  // The cause pinned on the late copy: without it the offset commit is written.
  const contrast = storyOps(tv, false);
  const kafkaContrast = await runKafkaSequence(harness, contrast);
  expect(errors(kafkaContrast)).toEqual(["NONE", "NONE", "NONE", "NONE", "NONE"]);
  expect(firstStepDivergence(contrast, modelAnswers(release, contrast), kafkaContrast)).toBeNull();
  // Able to fail: a model whose late copy left the entry alone answers the story as the contrast.
  const kept = [...modelAnswers(release, contrast)];
  kept.splice(4, 0, kafka[4] as LeaderResult);
  expect(firstStepDivergence(story, kept, kafka)?.step).toBe(5);
}
