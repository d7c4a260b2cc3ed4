import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { firstStepDivergence, modelFlags, runKafkaSequence } from "../../src/conform/leader/leader-differential.js";
import { DEFAULT_LEADER_CONFIG, type LeaderOp } from "../../src/conform/leader/leader-ops.js";
import { ModelLeader } from "../../src/conform/leader/model-leader.js";
import type { ReleaseFlags } from "../../src/kafka/release.js";
import { KafkaHarness } from "../../src/harness/harness-process.js";
import { harnessRelease, JVM_DIR } from "../../src/harness/kafka-releases.js";

/**
 * The log start offset (DeleteRecords: UnifiedLog.maybeIncrementLogStartOffset) judged by Kafka's
 * UnifiedLog (the leader service's `logStartOffset` op): the producer state stays when the log start
 * passes a producer's batches (KIP-360), and a log start above the high watermark is refused
 * (OffsetOutOfRangeException). KAFKA-7190's switch evicts the producer and diverges at that step.
 */
const data = (producerId: number, baseSequence: number, count: number): LeaderOp => ({
  op: "data",
  producerId,
  producerEpoch: 0,
  baseSequence,
  count,
  transactional: false,
  origin: "CLIENT",
  guard: "none",
  leaderEpoch: 0,
});

/** Two producers' first batches, replicated (high watermark 4). */
const TWO_PRODUCERS: LeaderOp[] = [data(1000, 0, 2), data(1001, 0, 2), { op: "highWatermark", offset: 4 }];

const DELETE_RECORDS: LeaderOp[] = [
  ...TWO_PRODUCERS,
  { op: "logStartOffset", offset: 3 },
  data(1000, 2, 1),
  { op: "logStartOffset", offset: 9 },
  { op: "highWatermark", offset: 5 },
  { op: "logStartOffset", offset: 5 },
  data(1001, 2, 1),
];

/**
 * A known divergence, kept so that it is seen: after the log start moved past every producer's
 * batches, truncateTo rebuilds the producer state from the log start (truncateAndReload deletes the
 * snapshots at or below it and the replay starts there), so Kafka forgets both producers; the model
 * replays its whole log and keeps them. The model still serves the records below the log start, so
 * it cannot yet forget what they say (docs/bug-history.md, Z22).
 */
const TRUNCATE_AFTER_DELETE: LeaderOp[] = [
  ...TWO_PRODUCERS,
  { op: "logStartOffset", offset: 4 },
  data(1000, 2, 1),
  { op: "truncate", offset: 4 },
];

const READY = `${JVM_DIR}target/classpath/READY`;

async function divergence(releaseName: string, ops: LeaderOp[], overrides: Partial<ReleaseFlags> = {}) {
  if (!existsSync(READY))
    throw new Error(`the JVM harness is not set up (${READY} is missing): run npm run harness:setup`);
  const release = harnessRelease(releaseName);
  if (!release) throw new Error(`jvm/releases.json has no Kafka ${releaseName}`);
  const leader = new ModelLeader(modelFlags(release, overrides), DEFAULT_LEADER_CONFIG);
  const model = ops.map((op) => leader.apply(op));
  const harness = await KafkaHarness.start(release);
  try {
    return firstStepDivergence(ops, model, await runKafkaSequence(harness, ops));
  } finally {
    await harness.close();
  }
}

describe("the log start offset beside Kafka's UnifiedLog", () => {
  for (const name of ["3.9.1", "4.4.0"])
    it(`DeleteRecords keeps the producer state, and the bug switch diverges where it evicts (Kafka ${name})`, async () => {
      expect(await divergence(name, DELETE_RECORDS)).toBeNull();
      const bug = await divergence(name, DELETE_RECORDS, { psmDropsStateWithLogSegments: true });
      expect(bug?.step).toBe(3);
    }, 60_000);

  it("known divergence: a truncation after DeleteRecords forgets the producers in Kafka, not in the model (Kafka 4.2.1)", async () => {
    const d = await divergence("4.2.1", TRUNCATE_AFTER_DELETE);
    expect(d?.step).toBe(5);
    expect(d?.difference.path).toMatch(/^state\.producers/);
  }, 60_000);
});
