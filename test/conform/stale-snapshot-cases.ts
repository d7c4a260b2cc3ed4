import { expect } from "vitest";
import { firstStepDivergence, modelAnswers, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import { DEFAULT_LEADER_CONFIG, type LeaderConfig, type LeaderOp } from "../../src/conform/leader/leader-ops.js";
import type { KafkaHarness } from "../../src/harness/harness-process.js";
import type { HarnessRelease } from "../../src/harness/kafka-releases.js";

/**
 * A committed transaction open again for good (everything's seed 3911, broker-0's input-0 at
 * 4.2.1, the hanging transaction with "though a marker closed it"): the leader's part, on every
 * release's UnifiedLog, against the model's leader.
 *
 * p1.t3 writes at the leader; a clean shutdown (UnifiedLog.close takes a snapshot at the log end)
 * keeps its transaction open in the snapshot. Back as a follower, the broker appends the marker
 * that closes it and more records. Every producer then expires (producer.id.expiration.ms, 300 ms
 * in the run), and a leader change truncates the log above the snapshot. UnifiedLog.
 * rebuildProducerState finds the state empty (isEmptyBeforeTruncation), so
 * ProducerStateManager.truncateAndReload loads the snapshot (the open transaction comes back: an
 * open transaction never expires) and nothing after it is replayed: the marker is never seen again.
 * The last stable offset stays at the transaction's first offset for ever.
 */
const PID = 1001;
const EXPIRY_CONFIG: LeaderConfig = { ...DEFAULT_LEADER_CONFIG, producerIdExpirationMs: 300 };

function staleSnapshotOps(expire: boolean): LeaderOp[] {
  return [
    { op: "verify", producerId: PID, producerEpoch: 2, sequence: 0, supportsEpochBump: true },
    {
      op: "data",
      producerId: PID,
      producerEpoch: 2,
      baseSequence: 0,
      count: 1,
      transactional: true,
      origin: "CLIENT",
      guard: "verified",
    },
    { op: "highWatermark", offset: 1 },
    { op: "restart", clean: true, highWatermark: 1 }, // the controlled shutdown: a snapshot at 1, the transaction open
    {
      op: "marker",
      producerId: PID,
      producerEpoch: 3,
      coordinatorEpoch: 2,
      result: "COMMIT",
      transactionVersion: 0,
      origin: "REPLICATION",
      leaderEpoch: 1,
    },
    { op: "records", origin: "REPLICATION", leaderEpoch: 1 },
    { op: "records", origin: "REPLICATION", leaderEpoch: 1 },
    { op: "highWatermark", offset: 4 },
    { op: "advanceTime", ms: 400 },
    ...(expire ? [{ op: "expireProducers" } as LeaderOp] : []),
    { op: "truncate", offset: 3 },
  ];
}

/** The sequence on `harness` (Kafka `release`) beside the model, with its contrast (no expiry: the replay closes it). */
export async function checkStaleSnapshot(release: HarnessRelease, harness: KafkaHarness): Promise<void> {
  const stale = staleSnapshotOps(true);
  const kafka = await runKafkaSequence(harness, stale, EXPIRY_CONFIG);
  expect(kafka.map((r) => r.error)).toEqual(stale.map(() => "NONE"));
  const last = kafka.at(-1)?.state;
  // Kafka: the committed transaction is open again at offset 0, and the last stable offset stays there.
  expect({ lso: last?.lastStableOffset, firstUnstable: last?.firstUnstableOffset, hw: last?.highWatermark }).toEqual({
    lso: 0,
    firstUnstable: 0,
    hw: 3,
  });
  expect(last?.producers).toEqual([
    expect.objectContaining({ producerId: PID, producerEpoch: 2, currentTxnFirstOffset: 0 }),
  ]);
  expect(firstStepDivergence(stale, modelAnswers(release, stale, { config: EXPIRY_CONFIG }), kafka)).toBeNull();

  // Able to fail, and the cause pinned on the expiry: without it the state is not empty, the log
  // after the snapshot is replayed, the marker closes the transaction again and the last stable
  // offset is the high watermark (Kafka and the model agree here too).
  const replayed = staleSnapshotOps(false);
  const kafkaReplayed = await runKafkaSequence(harness, replayed, EXPIRY_CONFIG);
  const after = kafkaReplayed.at(-1)?.state;
  expect({ lso: after?.lastStableOffset, firstUnstable: after?.firstUnstableOffset }).toEqual({
    lso: 3,
    firstUnstable: null,
  });
  expect(
    firstStepDivergence(replayed, modelAnswers(release, replayed, { config: EXPIRY_CONFIG }), kafkaReplayed),
  ).toBeNull();
}
