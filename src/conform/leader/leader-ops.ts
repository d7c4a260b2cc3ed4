/**
 * The leader side's operations (jvm/PROTOCOL.md, service `leader`): what one partition's
 * UnifiedLog is asked, in the same concrete form for the model and for Kafka's classes, and what
 * each answers. Field names are the protocol's.
 */
export type AppendOrigin = "CLIENT" | "COORDINATOR" | "REPLICATION";

/** Fields any op may carry: when it happened (a trace replays the model's clock). */
interface OpTiming {
  atMs?: number;
}

/** Fields an append may carry: the appending leader's epoch and the records' timestamp (default now). */
interface AppendStamp {
  leaderEpoch?: number;
  timestamp?: number;
}

export type LeaderOp = OpTiming &
  (
    | { op: "verify"; producerId: number; producerEpoch: number; sequence: number; supportsEpochBump: boolean }
    | ({
        op: "data";
        producerId: number;
        producerEpoch: number;
        baseSequence: number;
        count: number;
        transactional: boolean;
        origin: AppendOrigin;
        /**
         * verified: this producer's last verify's guard (or the sentinel if it had none); none: the
         * sentinel; stale: a guard no entry holds (one handed out before the entry was replaced);
         * op:K: the guard the K-th op of the sequence (a verify) returned.
         */
        guard: "verified" | "none" | "stale" | `op:${number}`;
      } & AppendStamp)
    /** One record of no producer (a coordinator's own __transaction_state or __consumer_offsets record). */
    | ({ op: "records"; origin: "COORDINATOR" | "REPLICATION" } & AppendStamp)
    | ({
        op: "marker";
        producerId: number;
        producerEpoch: number;
        coordinatorEpoch: number;
        result: "COMMIT" | "ABORT";
        /** What the WriteTxnMarkers request carried: 0 for a v1 request, -1 (TV_UNKNOWN) for none stated. */
        transactionVersion: number;
        origin: "COORDINATOR" | "REPLICATION";
      } & AppendStamp)
    | { op: "highWatermark"; offset: number }
    | { op: "truncate"; offset: number }
    /** DeleteRecords: UnifiedLog.maybeIncrementLogStartOffset(offset, ClientRecordDeletion). */
    | { op: "logStartOffset"; offset: number }
    | { op: "advanceTime"; ms: number }
    | { op: "expireProducers" }
    /** The replica leads from now on (Partition.makeLeader) / follows (makeFollower). */
    | { op: "becomeLeader"; leaderEpoch: number }
    | { op: "becomeFollower" }
    /** The broker restarts: Kafka closes the log and recovers it (clean: from its snapshot). */
    | { op: "restart"; clean: boolean; highWatermark?: number }
  );

export interface LeaderConfig {
  producerIdExpirationMs: number;
  maxTransactionTimeoutMs: number;
}

export interface ProducerStateView {
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  currentTxnFirstOffset: number | null;
  lastSequence: number;
  lastTimestamp: number;
}

export interface VerificationView {
  producerId: number;
  producerEpoch: number;
  lowestSequence: number;
  supportsEpochBump: boolean;
}

export interface AbortedTxnView {
  producerId: number;
  firstOffset: number;
  lastOffset: number;
  lastStableOffset: number;
}

export interface LeaderState {
  logEndOffset: number;
  highWatermark: number;
  lastStableOffset: number;
  firstUnstableOffset: number | null;
  abortedTxns: AbortedTxnView[];
  producers: ProducerStateView[];
  verification: VerificationView[];
}

/** One operation's answer. `exception` is informative (the model's classes are its own); `error` is compared. */
export interface LeaderResult {
  error: string;
  exception: string | null;
  message: string | null;
  guard?: "sentinel" | "new" | "reused";
  firstOffset?: number;
  lastOffset?: number;
  duplicate?: boolean;
  /** logStartOffset: whether the log start moved. */
  moved?: boolean;
  offset?: number | null;
  state: LeaderState;
}

export const DEFAULT_LEADER_CONFIG: LeaderConfig = {
  producerIdExpirationMs: 86_400_000,
  maxTransactionTimeoutMs: 900_000,
};

/** One line per op, for stories: Kafka's words, the op's fields. */
export function describeLeaderOp(op: LeaderOp): string {
  switch (op.op) {
    case "verify":
      return `maybeStartTransactionVerification(pid ${op.producerId}, seq ${op.sequence}, epoch ${op.producerEpoch}, supportsEpochBump ${op.supportsEpochBump})`;
    case "data":
      return `${op.origin === "REPLICATION" ? "appendAsFollower" : `appendAsLeader(${op.origin})`} ${op.transactional ? "transactional" : "idempotent"} batch pid ${op.producerId} epoch ${op.producerEpoch} seq ${op.baseSequence}..${op.baseSequence + op.count - 1}${op.origin === "REPLICATION" ? "" : ` guard ${op.guard}`}`;
    case "marker":
      return `${op.origin === "REPLICATION" ? "appendAsFollower" : "appendAsLeader(COORDINATOR)"} ${op.result} marker pid ${op.producerId} epoch ${op.producerEpoch} coordinatorEpoch ${op.coordinatorEpoch} transactionVersion ${op.transactionVersion}`;
    case "records":
      return `${op.origin === "REPLICATION" ? "appendAsFollower" : "appendAsLeader(COORDINATOR)"} a record of no producer`;
    case "highWatermark":
      return `high watermark to ${op.offset}`;
    case "truncate":
      return `truncateTo(${op.offset})`;
    case "logStartOffset":
      return `maybeIncrementLogStartOffset(${op.offset}) (DeleteRecords)`;
    case "advanceTime":
      return `time +${op.ms} ms`;
    case "expireProducers":
      return "removeExpiredProducers(now)";
    case "becomeLeader":
      return `becomes leader at epoch ${op.leaderEpoch}`;
    case "becomeFollower":
      return "becomes a follower";
    case "restart":
      return `the broker restarts (${op.clean ? "clean shutdown" : "crash"}): the log is recovered`;
  }
}
