import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import type { LeaderOp, LeaderResult } from "../../src/conform/leader/leader-ops.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { type HarnessRelease, harnessReleases, JVM_DIR } from "../../src/harness/kafka-releases.js";
import { inSlot } from "./harness-slots.js";

/**
 * The leader service of every release's harness answers one fixed sequence as that release's
 * UnifiedLog is known to (each fact below is read from the release's source and names where it
 * comes from). This checks the adapters, not the model: an adapter that calls the wrong overload,
 * drops an argument or builds the log or a batch differently gives a different answer somewhere.
 * One harness per release, started once.
 */

/** What distinguishes the releases on this sequence, one switch per change in Kafka. */
interface LeaderFacts {
  /** KIP-890 part 2 (4.0): VerificationStateEntry records supportsEpochBump; 3.9 has no such flag. */
  recordsSupportsEpochBump: boolean;
  /** 4.0: hasOngoingTransaction(producerId, producerEpoch) needs the open transaction's epoch; 3.9 checks the producer id only. */
  ongoingTxnNeedsSameEpoch: boolean;
  /**
   * KAFKA-19690 (4.0 line 4b0ba42483, 4.1 line a10c1f3ea1, so 4.0.2 and 4.1.1+; not 4.1.0): a
   * transactional batch whose epoch is below the producer's is INVALID_PRODUCER_EPOCH before the
   * verification guard is looked at.
   */
  staleEpochBeforeGuard: boolean;
  /**
   * KIP-1228 (4.2): appendAsLeader takes the marker's transaction version; TV2 markers need
   * epoch > current unless KAFKA-19999's equal-epoch case (no open transaction) applies, and
   * TV_UNKNOWN from COORDINATOR throws IllegalArgumentException.
   */
  kip1228: boolean;
  /** KAFKA-20090 (4.3): KAFKA-19999's equal-epoch case also holds at epoch 32767 with a transaction open. */
  maxEpochEqualMarker: boolean;
}

const V39: LeaderFacts = {
  recordsSupportsEpochBump: false,
  ongoingTxnNeedsSameEpoch: false,
  staleEpochBeforeGuard: false,
  kip1228: false,
  maxEpochEqualMarker: false,
};
const V40_2: LeaderFacts = {
  ...V39,
  recordsSupportsEpochBump: true,
  ongoingTxnNeedsSameEpoch: true,
  staleEpochBeforeGuard: true,
};
const V41_0: LeaderFacts = { ...V40_2, staleEpochBeforeGuard: false };
const V41_2: LeaderFacts = { ...V41_0, staleEpochBeforeGuard: true };
const V42: LeaderFacts = { ...V41_2, kip1228: true };
const V43: LeaderFacts = { ...V42, maxEpochEqualMarker: true };

/** Every release of jvm/releases.json must be here: a new release needs its facts stated. */
const FACTS: Record<string, LeaderFacts> = {
  "3.9.1": V39,
  "4.0.2": V40_2,
  "4.1.0": V41_0,
  "4.1.2": V41_2,
  "4.2.0": V42,
  "4.2.1": V42,
  "4.2.2": V42,
  "4.3.2": V43,
  "4.4.0": V43,
};

const txn = (producerId: number, producerEpoch: number, origin: "CLIENT" | "REPLICATION", guard: "verified" | "none") =>
  ({ op: "data", producerId, producerEpoch, baseSequence: 0, count: 1, transactional: true, origin, guard }) as const;
const marker = (producerId: number, producerEpoch: number, result: "COMMIT" | "ABORT", transactionVersion: number) =>
  ({
    op: "marker",
    producerId,
    producerEpoch,
    coordinatorEpoch: 1,
    result,
    transactionVersion,
    origin: "COORDINATOR",
  }) as const;

/** The sequence, each op with the error the facts give (a function of the release's facts). */
const STEPS: { op: LeaderOp; error: (f: LeaderFacts) => string }[] = [
  {
    op: { op: "verify", producerId: 1000, producerEpoch: 3, sequence: 0, supportsEpochBump: true },
    error: () => "NONE",
  },
  { op: { ...txn(1000, 3, "CLIENT", "verified"), count: 2 }, error: () => "NONE" },
  // TV2 marker at the producer's own epoch while its transaction is open: fenced by KIP-1228.
  { op: marker(1000, 3, "COMMIT", 2), error: (f) => (f.kip1228 ? "INVALID_PRODUCER_EPOCH" : "NONE") },
  { op: marker(1000, 3, "COMMIT", 0), error: () => "NONE" },
  // The same TV2 marker once nothing is open: KAFKA-19999 as merged appends it (no exception).
  { op: marker(1000, 3, "COMMIT", 2), error: () => "NONE" },
  // TV_UNKNOWN from COORDINATOR: IllegalArgumentException from 4.2 (UNKNOWN_SERVER_ERROR), no such argument before.
  { op: marker(1000, 3, "ABORT", -1), error: (f) => (f.kip1228 ? "UNKNOWN_SERVER_ERROR" : "NONE") },
  { op: txn(1001, 32767, "REPLICATION", "none"), error: () => "NONE" },
  {
    op: marker(1001, 32767, "ABORT", 2),
    error: (f) => (f.kip1228 && !f.maxEpochEqualMarker ? "INVALID_PRODUCER_EPOCH" : "NONE"),
  },
  { op: txn(1002, 0, "REPLICATION", "none"), error: () => "NONE" },
  // A newer epoch with no guard while the older epoch's transaction is open.
  { op: txn(1002, 1, "CLIENT", "none"), error: (f) => (f.ongoingTxnNeedsSameEpoch ? "INVALID_TXN_STATE" : "NONE") },
  { op: txn(1003, 1, "REPLICATION", "none"), error: () => "NONE" },
  { op: marker(1003, 1, "ABORT", 0), error: () => "NONE" },
  // An older epoch with no guard and nothing open.
  {
    op: txn(1003, 0, "CLIENT", "none"),
    error: (f) => (f.staleEpochBeforeGuard ? "INVALID_PRODUCER_EPOCH" : "INVALID_TXN_STATE"),
  },
];

/**
 * A clean restart between timestamped appends and a truncation: the harness must shut the log down
 * as the release's LogManager.shutdown does. From 4.3 that is prepareActiveSegmentForClose, flush,
 * close: UnifiedLog.close no longer trims the indexes, so a harness that only closed left the
 * preallocated index files, the reopened log read them as full, and this sequence's last append
 * rolled a segment and threw BufferOverflowException (UNKNOWN_SERVER_ERROR) in 4.3.2 and 4.4.0.
 */
const RESTART_STEPS: LeaderOp[] = [
  { op: "advanceTime", ms: 100 },
  {
    op: "data",
    producerId: 1000,
    producerEpoch: 0,
    baseSequence: 0,
    count: 1,
    transactional: false,
    origin: "CLIENT",
    guard: "none",
  },
  txn(1001, 0, "REPLICATION", "none"),
  { op: "restart", clean: true, highWatermark: 0 },
  { op: "truncate", offset: 1 },
  {
    op: "data",
    producerId: 1000,
    producerEpoch: 0,
    baseSequence: 1,
    count: 1,
    transactional: false,
    origin: "CLIENT",
    guard: "none",
  },
];

const READY = `${JVM_DIR}target/classpath/READY`;

async function runSequences(release: HarnessRelease): Promise<{ steps: LeaderResult[]; restart: LeaderResult[] }> {
  // Never skipped: without the harness this test cannot say anything, and says so.
  if (!existsSync(READY))
    throw new Error(`the JVM harness is not set up (${READY} is missing): run npm run harness:setup (Java 17+, Maven)`);
  const harness = await KafkaHarness.start(release);
  try {
    const steps = await runKafkaSequence(
      harness,
      STEPS.map((s) => s.op),
    );
    return { steps, restart: await runKafkaSequence(harness, RESTART_STEPS) };
  } finally {
    await harness.close();
  }
}

describe("the leader service at every release answers as the release's UnifiedLog is known to", () => {
  it("every release of jvm/releases.json has its facts stated", () => {
    expect(harnessReleases().map((r) => r.release)).toEqual(Object.keys(FACTS));
  });

  for (const release of harnessReleases()) {
    it.concurrent(`Kafka ${release.release} (adapter ${release.adapter})`, async () => {
      const facts = FACTS[release.release];
      if (!facts) throw new Error(`no facts for Kafka ${release.release}`);
      const { steps: results, restart } = await inSlot(() => runSequences(release));
      expect(restart.map((r) => r.error)).toEqual(RESTART_STEPS.map(() => "NONE"));
      expect(restart.map((r) => r.state.logEndOffset)).toEqual([0, 1, 2, 2, 1, 2]);
      expect(results.map((r) => r.error)).toEqual(STEPS.map((s) => s.error(facts)));
      expect(results[0]?.guard).toBe("new");
      expect(results[0]?.state.verification).toEqual([
        { producerId: 1000, producerEpoch: 3, lowestSequence: 0, supportsEpochBump: facts.recordsSupportsEpochBump },
      ]);
      expect([results[1]?.firstOffset, results[1]?.lastOffset]).toEqual([0, 1]);
      // The equal-epoch TV2 marker with nothing open is a real control batch in the log.
      expect(typeof results[4]?.offset).toBe("number");
      const end = results[results.length - 1]?.state;
      // The last sequence of each producer, read differently from 4.3 on (batchMetadata).
      expect(end?.producers.find((p) => p.producerId === 1000)?.lastSequence).toBe(1);
      // pid 1003's aborted transaction, read from 4.4's message AbortedTxn or storage's before.
      expect(end?.abortedTxns.some((a) => a.producerId === 1003)).toBe(true);
    });
  }
});
