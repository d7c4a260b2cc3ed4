import { expect } from "vitest";
import { firstStepDivergence, modelAnswers, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import { DEFAULT_LEADER_CONFIG, type LeaderConfig, type LeaderOp } from "../../src/conform/leader/leader-ops.js";
import type { KafkaHarness } from "../../src/harness/harness-process.js";
import type { HarnessRelease } from "../../src/harness/kafka-releases.js";

/**
 * An aborted transaction read by read_committed (everything's seed 397, broker-2's input-2 at 4.4,
 * the aborted-read whose "transaction index has no entry for the ABORT marker"): the replica's
 * part, on every release's UnifiedLog, against the model's.
 *
 * p0.t6 writes two records at the leader, whose own ABORT marker lands above the high watermark
 * (an AbortedTxn from the first record). A clean shutdown (the snapshot at the log end holds the
 * transaction closed); back as a follower every producer expires (producer.id.expiration.ms,
 * 300 ms in the run), and the new leader's log, which has the records but not this marker,
 * truncates it. UnifiedLog.rebuildProducerState finds the state empty (isEmptyBeforeTruncation):
 * no snapshot at or below the truncation point holds the transaction and nothing is replayed, so
 * the open transaction is forgotten. The new leader's copy of the marker then finds no open
 * transaction (ProducerAppendInfo.appendEndTxnMarker emits no CompletedTxn): no AbortedTxn, and
 * read_committed reads the aborted records once this replica leads.
 */
const PID = 1003;
const EXPIRY_CONFIG: LeaderConfig = { ...DEFAULT_LEADER_CONFIG, producerIdExpirationMs: 300 };

function abortMarker(origin: "COORDINATOR" | "REPLICATION"): LeaderOp {
  return {
    op: "marker",
    producerId: PID,
    producerEpoch: 6,
    coordinatorEpoch: 2,
    result: "ABORT",
    transactionVersion: origin === "COORDINATOR" ? 2 : 0,
    origin,
    ...(origin === "REPLICATION" ? { leaderEpoch: 1 } : {}),
  };
}

function forgottenTransactionOps(expire: boolean): LeaderOp[] {
  return [
    { op: "verify", producerId: PID, producerEpoch: 5, sequence: 0, supportsEpochBump: true },
    {
      op: "data",
      producerId: PID,
      producerEpoch: 5,
      baseSequence: 0,
      count: 2,
      transactional: true,
      origin: "CLIENT",
      guard: "verified",
    },
    { op: "highWatermark", offset: 2 },
    abortMarker("COORDINATOR"), // its own marker at offset 2, above the high watermark
    { op: "restart", clean: true, highWatermark: 2 }, // the controlled shutdown: a snapshot at 3
    { op: "becomeFollower" },
    { op: "advanceTime", ms: 400 },
    ...(expire ? [{ op: "expireProducers" } as LeaderOp] : []),
    { op: "truncate", offset: 2 }, // the new leader never had this marker
    abortMarker("REPLICATION"), // the new leader's copy of it
    { op: "highWatermark", offset: 3 },
  ];
}

/** The sequence on `harness` (Kafka `release`) beside the model, with its contrast (no expiry: the replay keeps it open). */
export async function checkForgottenTransaction(release: HarnessRelease, harness: KafkaHarness): Promise<void> {
  const forgotten = forgottenTransactionOps(true);
  const kafka = await runKafkaSequence(harness, forgotten, EXPIRY_CONFIG);
  expect(kafka.map((r) => r.error)).toEqual(forgotten.map(() => "NONE"));
  // Kafka: after the truncation no producer holds the transaction, and the replicated ABORT marker
  // leaves the transaction index without an entry for it (read_committed skips nothing).
  expect(kafka.at(-4)?.state.producers).toEqual([]);
  const last = kafka.at(-1)?.state;
  expect({ lso: last?.lastStableOffset, aborted: last?.abortedTxns }).toEqual({ lso: 3, aborted: [] });
  expect(firstStepDivergence(forgotten, modelAnswers(release, forgotten, { config: EXPIRY_CONFIG }), kafka)).toBeNull();

  // Able to fail, and the cause pinned on the expiry: without it the state is not empty, the records
  // are replayed, the marker closes the open transaction and the index has its AbortedTxn again.
  const replayed = forgottenTransactionOps(false);
  const kafkaReplayed = await runKafkaSequence(harness, replayed, EXPIRY_CONFIG);
  expect(kafkaReplayed.at(-1)?.state.abortedTxns).toEqual([
    expect.objectContaining({ producerId: PID, firstOffset: 0, lastOffset: 2 }),
  ]);
  expect(
    firstStepDivergence(replayed, modelAnswers(release, replayed, { config: EXPIRY_CONFIG }), kafkaReplayed),
  ).toBeNull();
}
