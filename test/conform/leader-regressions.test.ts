import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstStepDivergence, modelFlags, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import { DEFAULT_LEADER_CONFIG, type LeaderOp } from "../../src/conform/leader/leader-ops.js";
import { ModelLeader } from "../../src/conform/leader/model-leader.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { harnessRelease, JVM_DIR } from "../../src/harness/kafka-releases.js";

/**
 * Divergences the long leader campaigns (npm run conform:full) found, each kept as the sequence that
 * showed it and run on Kafka's UnifiedLog beside the model: the model must agree at every step. Each
 * case names what the model had wrong; putting that back makes the case fail (the mutant is named).
 */
/** A marker op (leader epoch 0): the campaigns' sequences are short lists of these. */
const marker = (coordinatorEpoch: number, origin: "COORDINATOR" | "REPLICATION"): LeaderOp => ({
  op: "marker",
  producerId: 1000,
  producerEpoch: 0,
  coordinatorEpoch,
  result: "ABORT",
  transactionVersion: 0,
  origin,
  leaderEpoch: 0,
});
const txnBatch = (producerId: number, origin: "CLIENT" | "REPLICATION"): LeaderOp => ({
  op: "data",
  producerId,
  producerEpoch: 0,
  baseSequence: 0,
  count: 1,
  transactional: true,
  origin,
  guard: "verified",
  leaderEpoch: 0,
});
const restart = (clean: boolean): LeaderOp => ({ op: "restart", clean, highWatermark: 0 });
const verify = (producerId: number, sequence: number): LeaderOp => ({
  op: "verify",
  producerId,
  producerEpoch: 0,
  sequence,
  supportsEpochBump: false,
});

/**
 * An open transaction, a crash with the high watermark at 1, and a truncation that leaves the high
 * watermark below the new log end: UnifiedLog's cached first unstable offset is stale after it.
 */
const STALE_FIRST_UNSTABLE_OFFSET: LeaderOp[] = [
  verify(1000, 2),
  { ...txnBatch(1000, "CLIENT"), count: 2 } as LeaderOp,
  { op: "highWatermark", offset: 1 },
  marker(1, "COORDINATOR"),
  { op: "restart", clean: false, highWatermark: 1 },
  { op: "truncate", offset: 2 },
];

const CASES: { name: string; releases: string[]; ops: LeaderOp[] }[] = [
  {
    // 100,000 sequences at 4.2.1 found it 14 times. The model rebuilt a snapshot by replaying the log
    // from its start, so a producer that a restart had expired came back with the coordinator epoch of
    // its old marker. Kafka's snapshot file holds the state as it was written: the producer that
    // re-appeared after the expiry has coordinator epoch -1. (Mutant: replay from the log start in
    // PartitionLog.rebuildProducerState instead of loading the snapshot's entries.)
    name: "a snapshot holds the state it was taken with, not a replay of the whole log",
    releases: ["3.9.1", "4.2.1"],
    ops: [
      marker(0, "COORDINATOR"),
      { op: "advanceTime", ms: 86_400_000 },
      restart(false),
      txnBatch(1000, "REPLICATION"),
      restart(true),
    ],
  },
  {
    // 20,000 sequences at 4.2.1 (seed 7) found it 7 times once the first case was fixed. After a
    // crash, LogLoader.recoverSegment replays the unflushed segment from its base, loading no
    // snapshot, and writes the result at the log end; only then are expired producers left out. The
    // model had loaded the latest snapshot (dropping a producer idle since it) and replayed the rest,
    // so the producer lost its coordinator epoch. (Mutant: removeStray for deleteAll in onBrokerStop.)
    name: "a crash's recovery replays the segment from its base, not from the latest snapshot",
    releases: ["3.9.1", "4.2.1"],
    ops: [
      marker(1, "REPLICATION"),
      restart(false),
      { op: "advanceTime", ms: 86_400_000 },
      txnBatch(1000, "REPLICATION"),
      restart(false),
    ],
  },
  {
    // 20,000 sequences at 4.2.1 (seed 11) found it twice once the first two were fixed. A truncation
    // replays the log after the latest snapshot only when the producer state held something before it
    // (UnifiedLog.rebuildProducerState's isEmptyBeforeTruncation): with every producer expired, Kafka
    // keeps none, and the model's replay brought the expired one back. (Mutant: skipReplay ignored.)
    name: "a truncation of a log whose producers all expired brings none back",
    releases: ["3.9.1", "4.2.1"],
    ops: [
      marker(0, "COORDINATOR"),
      { op: "advanceTime", ms: 86_400_000 },
      { op: "expireProducers" },
      { op: "records", origin: "COORDINATOR", leaderEpoch: 0 },
      { op: "truncate", offset: 1 },
    ],
  },
  {
    // 100,000 sequences at 4.1.2, 4.2.0 and 4.2.1 found it once or twice each once the three above were
    // fixed. The crash's recovery of the segment based at the log start deletes every snapshot file
    // (its producer state's truncateAndReload), so a later truncation finds none and replays the log:
    // the replayed marker clears the producer's verification entry. The model had kept the snapshot
    // of the first restart and loaded it, keeping the entry. (Mutant: removeStray for deleteAll.)
    name: "a crash's recovery deletes the producer snapshots it does not write",
    releases: ["4.1.2", "4.2.1"],
    ops: [
      marker(1, "COORDINATOR"),
      restart(false),
      marker(2, "REPLICATION"),
      verify(1001, 0),
      txnBatch(1001, "CLIENT"),
      restart(false),
      marker(3, "REPLICATION"),
      verify(1000, 2),
      { op: "truncate", offset: 1 },
    ],
  },
  {
    // 100,000 sequences at 4.2.2 found it once after the four above were fixed. A truncation leaves
    // UnifiedLog's cached first unstable offset stale while the high watermark is below the new log
    // end; updateHighWatermark refreshes it even when the high watermark does not move. The model
    // refreshed it only on a move, so its last stable offset passed an open transaction. (Mutant:
    // updateHighWatermark without the refresh when hw does not move.)
    name: "an unchanged high watermark still refreshes the last stable offset",
    releases: ["3.9.1", "4.2.1"],
    ops: [...STALE_FIRST_UNSTABLE_OFFSET, { op: "highWatermark", offset: 1 }],
  },
  {
    // Trace validation of everything (seed 75, broker-1's input-2 at 4.3.2) found it after the
    // fifth: a producer expiry after such a truncation. UnifiedLog.removeExpiredProducers only asks
    // the ProducerStateManager and leaves the cached first unstable offset stale; the model
    // refreshed it there, so its last stable offset moved where Kafka's stays. (Mutant: the
    // refresh back in PartitionLog.removeExpiredProducers.)
    name: "a producer expiry leaves a stale last stable offset as it is",
    releases: ["3.9.1", "4.2.1"],
    ops: [...STALE_FIRST_UNSTABLE_OFFSET, { op: "advanceTime", ms: 10 }, { op: "expireProducers" }],
  },
];

const READY = `${JVM_DIR}target/classpath/READY`;

// One harness per release runs every case that names it (a JVM start costs more than a case).
const RELEASES = [...new Set(CASES.flatMap((c) => c.releases))].sort();

describe("leader divergences found by long campaigns stay fixed (Kafka's UnifiedLog beside the model)", () => {
  for (const name of RELEASES)
    it(`Kafka ${name}: ${CASES.filter((c) => c.releases.includes(name)).length} cases`, async () => {
      // Never skipped: without the harness this test cannot say anything, and says so.
      if (!existsSync(READY))
        throw new Error(`the JVM harness is not set up (${READY} is missing): run npm run harness:setup`);
      const release = harnessRelease(name);
      if (!release) throw new Error(`jvm/releases.json has no Kafka ${name}`);
      const harness = await KafkaHarness.start(release);
      try {
        for (const c of CASES.filter((x) => x.releases.includes(name))) {
          const leader = new ModelLeader(modelFlags(release, {}), DEFAULT_LEADER_CONFIG);
          const model = c.ops.map((op) => leader.apply(op));
          const kafka = await runKafkaSequence(harness, c.ops);
          expect({ case: c.name, divergence: firstStepDivergence(c.ops, model, kafka) }).toEqual({
            case: c.name,
            divergence: null,
          });
        }
      } finally {
        await harness.close();
      }
    }, 120_000);
});
