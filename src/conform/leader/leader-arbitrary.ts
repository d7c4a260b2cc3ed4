import fc from "fast-check";
import type { LeaderConfig, LeaderOp } from "./leader-ops.js";
import type { ModelLeader } from "./model-leader.js";

/**
 * Operation sequences for the leader side, drawn by fast-check and biased to the edges where
 * releases differ: equal epochs, epochs 32766/32767, coordinator-epoch changes, transaction versions
 * 0/1/2 (and TV_UNKNOWN), replication, truncation, expiry. An abstract op names its numbers
 * relative to the log it meets ("the producer's epoch", "the next sequence"), so random sequences
 * reach meaningful states; `concretize` fixes them against the model's log before either side sees
 * them, and both answer the same concrete op.
 */
type EpochChoice = "current" | "next" | "previous" | 0 | 1 | 32766 | 32767;
type SequenceChoice = "next" | "zero" | "repeat" | "gap";
type CoordinatorEpochChoice = "current" | "next" | "previous" | 0 | 3;

export type AbstractLeaderOp =
  | { k: "verify"; pid: number; epoch: EpochChoice; seq: SequenceChoice; bump: boolean }
  | {
      k: "data";
      pid: number;
      epoch: EpochChoice;
      seq: SequenceChoice;
      count: number;
      transactional: boolean;
      origin: "CLIENT" | "COORDINATOR" | "REPLICATION";
      guard: "verified" | "none" | "stale";
    }
  | {
      k: "marker";
      pid: number;
      epoch: EpochChoice;
      ce: CoordinatorEpochChoice;
      commit: boolean;
      tv: number;
      follower: boolean;
    }
  | { k: "records"; follower: boolean }
  | { k: "become"; leader: boolean }
  | { k: "restart"; clean: boolean }
  | { k: "hw"; quarter: number }
  | { k: "truncate"; quarter: number }
  | { k: "time"; long: boolean }
  | { k: "expire" };

const PRODUCER_IDS = [1000, 1001];

const epoch = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<EpochChoice>("current", "next") },
  { weight: 2, arbitrary: fc.constant<EpochChoice>("previous") },
  { weight: 1, arbitrary: fc.constantFrom<EpochChoice>(0, 1, 32766, 32767) },
);
const sequence = fc.oneof(
  { weight: 8, arbitrary: fc.constant<SequenceChoice>("next") },
  { weight: 2, arbitrary: fc.constantFrom<SequenceChoice>("zero", "repeat") },
  { weight: 1, arbitrary: fc.constant<SequenceChoice>("gap") },
);
const pid = fc.oneof({ weight: 4, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) });

const abstractOp: fc.Arbitrary<AbstractLeaderOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ k: fc.constant("verify" as const), pid, epoch, seq: sequence, bump: fc.boolean() }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant("data" as const),
      pid,
      epoch,
      seq: sequence,
      count: fc.integer({ min: 1, max: 3 }),
      transactional: fc.oneof(
        { weight: 5, arbitrary: fc.constant(true) },
        { weight: 1, arbitrary: fc.constant(false) },
      ),
      origin: fc.oneof(
        { weight: 6, arbitrary: fc.constant("CLIENT" as const) },
        { weight: 1, arbitrary: fc.constantFrom("COORDINATOR" as const, "REPLICATION" as const) },
      ),
      guard: fc.oneof(
        { weight: 10, arbitrary: fc.constant("verified" as const) },
        { weight: 2, arbitrary: fc.constant("none" as const) },
        { weight: 1, arbitrary: fc.constant("stale" as const) },
      ),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      k: fc.constant("marker" as const),
      pid,
      epoch,
      ce: fc.oneof(
        { weight: 6, arbitrary: fc.constant<CoordinatorEpochChoice>("current") },
        { weight: 2, arbitrary: fc.constantFrom<CoordinatorEpochChoice>("next", "previous") },
        { weight: 1, arbitrary: fc.constantFrom<CoordinatorEpochChoice>(0, 3) },
      ),
      commit: fc.boolean(),
      tv: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(0, 2) },
        { weight: 1, arbitrary: fc.constant(1) },
        { weight: 1, arbitrary: fc.constant(-1) },
      ),
      follower: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant("hw" as const), quarter: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("truncate" as const), quarter: fc.integer({ min: 0, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("time" as const), long: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("expire" as const) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("records" as const), follower: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("become" as const), leader: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant("restart" as const), clean: fc.boolean() }) },
);

export function leaderSequenceArbitrary(maxLength = 24): fc.Arbitrary<AbstractLeaderOp[]> {
  return fc.array(abstractOp, { minLength: 1, maxLength });
}

/** The concrete op an abstract one stands for, against the model's log as it is now. */
export function concretize(op: AbstractLeaderOp, leader: ModelLeader, config: LeaderConfig): LeaderOp {
  const log = leader.log;
  switch (op.k) {
    case "verify": {
      const producerId = PRODUCER_IDS[op.pid] as number;
      const producerEpoch = epochOf(op.epoch, leader, producerId);
      return {
        op: "verify",
        producerId,
        producerEpoch,
        sequence: sequenceOf(op.seq, leader, producerId, producerEpoch, 1),
        supportsEpochBump: op.bump,
      };
    }
    case "data": {
      const producerId = PRODUCER_IDS[op.pid] as number;
      const producerEpoch = epochOf(op.epoch, leader, producerId);
      return {
        op: "data",
        producerId,
        producerEpoch,
        baseSequence: sequenceOf(op.seq, leader, producerId, producerEpoch, op.count),
        count: op.count,
        transactional: op.transactional,
        origin: op.origin,
        guard: op.guard,
        leaderEpoch: leader.leaderEpoch,
      };
    }
    case "marker": {
      const producerId = PRODUCER_IDS[op.pid] as number;
      return {
        op: "marker",
        producerId,
        producerEpoch: epochOf(op.epoch, leader, producerId),
        coordinatorEpoch: coordinatorEpochOf(op.ce, leader, producerId),
        result: op.commit ? "COMMIT" : "ABORT",
        transactionVersion: op.tv,
        origin: op.follower ? "REPLICATION" : "COORDINATOR",
        leaderEpoch: leader.leaderEpoch,
      };
    }
    case "records":
      return { op: "records", origin: op.follower ? "REPLICATION" : "COORDINATOR", leaderEpoch: leader.leaderEpoch };
    case "become":
      return op.leader ? { op: "becomeLeader", leaderEpoch: leader.leaderEpoch + 1 } : { op: "becomeFollower" };
    case "restart":
      // The restarted broker's high watermark comes from its checkpoint: the model keeps its own.
      return { op: "restart", clean: op.clean, highWatermark: log.highWatermark };
    case "hw": {
      const hw = log.highWatermark;
      return { op: "highWatermark", offset: hw + Math.ceil(((log.logEndOffset - hw) * op.quarter) / 4) };
    }
    case "truncate": {
      // A replica truncates at a batch boundary (a leader epoch's end offset, the high watermark):
      // UnifiedLog.truncateTo inside a batch drops the whole batch yet sets the log end to the
      // offset asked, which no broker path asks for.
      const boundaries = [...log.batches.map((b) => b.baseOffset), log.logEndOffset];
      return { op: "truncate", offset: boundaries[Math.floor(((boundaries.length - 1) * op.quarter) / 4)] as number };
    }
    case "time":
      return { op: "advanceTime", ms: op.long ? config.producerIdExpirationMs : 100 };
    case "expire":
      return { op: "expireProducers" };
  }
}

function storedEpoch(leader: ModelLeader, producerId: number): number {
  const entry = leader.log.producers.get(producerId);
  if (entry && entry.producerEpoch >= 0) return entry.producerEpoch;
  return leader.log.verificationStates.get(producerId)?.epoch ?? 0;
}

function epochOf(choice: EpochChoice, leader: ModelLeader, producerId: number): number {
  const current = storedEpoch(leader, producerId);
  switch (choice) {
    case "current":
      return current;
    case "next":
      return Math.min(current + 1, 32767);
    case "previous":
      return Math.max(current - 1, 0);
    default:
      return choice;
  }
}

function sequenceOf(
  choice: SequenceChoice,
  leader: ModelLeader,
  producerId: number,
  producerEpoch: number,
  count: number,
): number {
  const entry = leader.log.producers.get(producerId);
  const last = entry && entry.producerEpoch === producerEpoch ? entry.lastSeq() : -1;
  switch (choice) {
    case "next":
      return last + 1;
    case "zero":
      return 0;
    case "repeat":
      return Math.max(0, last - count + 1);
    case "gap":
      return last + 3;
  }
}

function coordinatorEpochOf(choice: CoordinatorEpochChoice, leader: ModelLeader, producerId: number): number {
  const current = Math.max(0, leader.log.producers.get(producerId)?.coordinatorEpoch ?? 0);
  switch (choice) {
    case "current":
      return current;
    case "next":
      return current + 1;
    case "previous":
      return Math.max(0, current - 1);
    default:
      return choice;
  }
}
