import type { NetAnnotations, NetEvents } from "../sim/net-events.js";
import type { EventOf, TraceEvent } from "../sim/trace.js";
import type { MarkerEpochRule } from "./broker/partition-log.js";
import type { PartitionKey, TransactionResult } from "./common/types.js";
import type { TransactionStateName } from "./coordinator/transaction-state.js";
import type { ReleaseName } from "./release.js";

/**
 * The trace events of the Kafka model, one entry per kind: its fields, in the order the model
 * writes them (the trace hash absorbs them in that order). Common field names, as in Kafka: `pid`
 * and `epoch` are a producer id and epoch, `ce` a coordinator epoch, `tv` a TransactionVersion,
 * `txnId` a transactional.id, `txn` the ghost transaction (the attempt the oracle follows; null
 * when the model cannot tell), `corr` the correlation id of the request that carried it, `error`
 * a Kafka error code.
 */
export interface KafkaEvents {
  // ---------------------------------------------------------------- broker (server/)

  /** Rolling upgrade: the broker restarts on another release. */
  "broker.upgrade": { from: ReleaseName; to: ReleaseName };
  /** A broker process starts on its release, from the metadata image at `imageOffset`. */
  "broker.start": { release: ReleaseName; imageOffset: number };
  /** A broker process stops (a crash, a controlled shutdown, a restart); its logs stay. */
  "broker.stop": { reason: string };
  /** Controlled shutdown asked: the controller moves the broker's leadership away, then it stops. */
  "broker.controlled-shutdown": { broker: string };
  /** This broker now leads `partition` at `leaderEpoch`, with its log end and high watermark then. */
  "replica.leader": { partition: PartitionKey; leader: string | null; leaderEpoch: number; leo: number; hw: number };
  /** This broker now follows `leader` (null: no leader) for `partition` at `leaderEpoch`. */
  "replica.follower": { partition: PartitionKey; leader: string | null; leaderEpoch: number; leo: number; hw: number };
  /** A follower truncated `partition` from log end `from` to `to` (its log diverged at `epoch`), removing `batches` batches. */
  "replica.truncate": { partition: PartitionKey; from: number; to: number; epoch: number; batches: number };
  /** A leader asks the controller to change the ISR (AlterPartition), to grow or shrink it. */
  "isr.alter": { partition: PartitionKey; isr: string; why: "expand" | "shrink"; leaderEpoch: number };
  /** The coordinator did not verify a transactional produce (KIP-890): the broker refuses it. */
  "produce.verify-failed": { partition: PartitionKey; pid: number; epoch: number; error: number };
  /** The partition log refused a produce (sequence or epoch checks). */
  "produce.rejected": { partition: PartitionKey; pid: number; epoch: number; seq: number; error: number };
  /** A retried produce the log already holds: answered with the original offset, nothing appended. */
  "produce.duplicate": { partition: PartitionKey; pid: number; seq: number; offset: number };
  /** A produce batch appended at `offset`. */
  "produce.append": {
    partition: PartitionKey;
    pid: number;
    epoch: number;
    seq: number;
    offset: number;
    txn: string | null;
    corr: number;
  };
  /** Replication moved a partition's high watermark (and so maybe its last stable offset). */
  "log.hw": { partition: PartitionKey; hw: number; lso: number };
  /** The periodic producer-expiration check forgot producers idle past producer.id.expiration.ms. */
  "psm.expire": { partition: PartitionKey; producers: string };
  /** The broker refused a whole WriteTxnMarkers request of this version and closed the connection. */
  "markers.refused": { version: number; reason: string };
  /** The leader rejected one marker at a partition. */
  "marker.rejected": MarkerJudged & { error: number } & MarkerCopy;
  /**
   * The leader appended a marker at `offset`; `closedFrom` is the first offset of the transaction it
   * closed (-1: nothing was open). A stale marker is one that closed another transaction's records.
   */
  "marker.append": MarkerJudged & { result: TransactionResult; offset: number; closedFrom: number } & MarkerCopy;

  // ---------------------------------------------------------------- coordinator (coordinator/)

  /** This broker leads __transaction_state-`partition` at coordinator epoch `ce`: it starts loading it. */
  "coordinator.elected": { partition: number; ce: number };
  /** Done loading `txns` transactions: it serves their ids and re-sends the markers of PrepareX ones. */
  "coordinator.loaded": { partition: number; ce: number; txns: number };
  /** No longer the coordinator of __transaction_state-`partition` (it was at epoch `ce`). */
  "coordinator.resigned": { partition: number; ce: number };
  /** InitProducerId done: the producer id and epoch written for the transactional.id. */
  "txn.init": { txnId: string; pid: number; epoch: number };
  /**
   * InitProducerId refused at an exhausted epoch whose request expected another epoch
   * (TransactionMetadata.prepareIncrementProducerEpoch throws): answered UNKNOWN_SERVER_ERROR.
   */
  "txn.init-epochs-exhausted": { txnId: string; epoch: number; expected: number };
  /**
   * Kafka's coordinator let an exception out (`api` the request, or the timeout task): the int16 epoch
   * overflow of a TV2 end at Short.MAX_VALUE, a fence there before KAFKA-20090. Answered UNKNOWN_SERVER_ERROR.
   */
  "txn.handler-exception": { api: string; exception: string; message: string };
  /** AddPartitionsToTxn written: `partitions` joined by commas; the transaction is Ongoing. */
  "txn.add-partitions": { txnId: string; partitions: string; epoch: number; txn: string | null };
  /** PrepareCommit / PrepareAbort written, at the epoch the markers will carry; `by` who decided. */
  "txn.prepare": {
    txnId: string;
    state: TransactionStateName;
    pid: number;
    epoch: number;
    ce: number;
    tv: number;
    txn: string | null;
    by: "client" | "coordinator";
  };
  /** An Ongoing transaction outlived its timeout: the coordinator aborts it. */
  "txn.timeout": { txnId: string; pid: number; epoch: number; txn: string | null };
  /** transactional.id expiration: `txnId` was idle too long; it is pending Dead and its tombstone is being written. */
  "txn.expire": { txnId: string };
  /** The tombstone of an expired `txnId` was written and the id removed (`removed`), or not (`error`). */
  "txn.expired": { txnId: string; removed: boolean; error: number };
  /** The timeout abort could not be written (`error` is the error's name). */
  "txn.timeout-abort-cancelled": { txnId: string; error: string };
  /** CompleteCommit / CompleteAbort written: every marker of the transaction was acknowledged. */
  "txn.complete": { txnId: string; state: TransactionStateName; pid: number; epoch: number; txn: string | null };
  /** A write to __transaction_state-`partition` failed (`error` is the append's error: not the leader, too few in-sync replicas, a timeout). */
  "txnlog.append-failed": {
    txnId: string;
    state: TransactionStateName;
    partition: number;
    offset: number;
    error: number;
  };
  /** A write to __transaction_state-`partition` at `offset` was acknowledged by the in-sync replicas. */
  "txnlog.append": { txnId: string; state: TransactionStateName; partition: number; offset: number; error: number };
  /** ApiVersions answer: the highest WriteTxnMarkers version `broker` accepts. */
  "markers.api-versions": { broker: string; max: number };
  /** One marker put in a WriteTxnMarkers request to `broker` (`resend` counts earlier copies; `partitions` joined by commas). */
  "markers.send": {
    broker: string;
    marker: number;
    resend: number;
    v: number;
    pid: number;
    epoch: number;
    result: TransactionResult;
    ce: number;
    tv: number;
    partitions: string;
    txn: string | null;
    corr: number;
  };
  /** The marker's request got no answer (the connection closed): it is queued again. */
  "markers.requeue": { broker: string; marker: number; reason: string };
  /** A broker answered with a fencing error: the coordinator stops sending the transaction's markers. */
  "markers.abandon": { txnId: string; broker: string; error: number };
  "markers.completion-wakeup-lost": { txnId: string };

  // ---------------------------------------------------------------- clients (client/)

  /** InitProducerId answered: the producer's id and epoch. */
  "producer.initialized": { pid: number; epoch: number };
  /** beginTransaction: the producer starts transaction `txn`. */
  "producer.begin": { txn: string; pid: number; epoch: number };
  /** The producer sends EndTxn; `reason` is the error that made the transaction abortable, if any. */
  "producer.end": { txn: string; commit: boolean; pid: number; epoch: number; reason: string | null };
  /** EndTxn acknowledged (or nothing to end): the producer saw `txn` committed or aborted. */
  "producer.outcome": { txn: string; outcome: "committed" | "aborted"; pid: number; epoch: number };
  /** A fatal error: the application closes the producer (and opens a new one). */
  "producer.fatal": { reason: string; txn: string | null };
  /** The producer's transaction manager entered ABORTABLE_ERROR: the transaction can only be aborted. */
  "producer.abortable": { reason: string; txn: string | null };
  /** The application's send() failed at once (client-fault knob sendErrorRatio): the record never reached the accumulator. */
  "producer.send-failed": { txn: string; partition: string; value: string; error: string };
  /** The producer ran out of retries: the transaction's outcome is unknown to it. */
  "producer.give-up": { reason: string; txn: string | null };
  /** The producer ended its workload after `transactions` transactions. */
  "producer.finished": { transactions: number };
  /** The producer was closed (fenced after a restart replaced it). */
  "producer.closed": { transactions: number };
  /** The producer's next transactions use transaction.version `version` (maybeUpdateTransactionV2Enabled). */
  "producer.transaction-version": { version: number };
  /** Zombie fault: the producer sends nothing until `untilMs`. */
  "producer.pause": { untilMs: number };
  /** An idempotent producer bumped its epoch on its own, for the partitions that asked (bumpIdempotentProducerEpoch). */
  "producer.idempotent-bump": { pid: number; epoch: number; partitions: string };
  /** A read_committed fetch returned `records` records of `partition`, up to offset `upTo`. */
  "consumer.poll": { partition: PartitionKey; records: number; upTo: number };

  // ---------------------------------------------------------------- cluster and nemesis (cluster.ts, nemesis.ts)

  /** The workload ended: no faults and no new transactions until `untilMs`, so that everything settles. */
  "quiet-period": { untilMs: number };
  /** The fault window ended: only base latency from now on. */
  "faults-off": Record<string, never>;
  /** The controller moved `partition`'s leadership from `from` to `leader` (null: none) at `leaderEpoch`; `isr` joined by commas. */
  "controller.leader": {
    partition: PartitionKey;
    leader: string | null;
    from: string | null;
    leaderEpoch: number;
    isr: string;
    cause: string;
  };
  /** The controller took an AlterPartition: `partition`'s ISR is now `isr`. */
  "controller.isr": {
    partition: PartitionKey;
    isr: string;
    leader: string;
    leaderEpoch: number;
    partitionEpoch: number;
  };
  /** The nemesis asked the controller to move `partition`'s leadership (for __transaction_state: a coordinator failover). */
  "fault.leader-move": { partition: PartitionKey };
  /** The nemesis deleted `partition`'s records below its high watermark: the log start offset moved; `evicted` producer ids (comma-separated). */
  "fault.delete-records": { partition: PartitionKey; leader: string; logStartOffset: number; evicted: string };
  /** The nemesis makes __transaction_state-`partition` refuse appends (NOT_ENOUGH_REPLICAS) for `durationMs`. */
  "fault.txnlog-outage": { partition: number; durationMs: number };
  /** The nemesis shuts a broker down (controlled) for `downtimeMs`. */
  "fault.controlled-shutdown": { broker: string; downtimeMs: number };
  /** The nemesis crashes a broker for `downtimeMs`. */
  "fault.crash": { broker: string; downtimeMs: number };
  /** An upgrade of `broker` to `release` starts (controlled shutdown, restart on the release). */
  "fault.upgrade": { broker: string; release: ReleaseName };
  /** An upgraded broker is back in every ISR it belongs to: a rolling upgrade moves on. */
  "fault.caught-up": { broker: string };
  /** An operator asks the controller to finalize transaction.version `level` (kafka-features.sh, UpdateFeatures). */
  "fault.feature-update": { level: number };
  /**
   * The controller's answer to UpdateFeatures: finalized at metadata offset `epoch` (errorCode 0), or
   * refused (INVALID_UPDATE_VERSION: a registered broker's release does not support the level).
   */
  "controller.features": { transactionVersion: number; epoch: number; errorCode: number; reason: string };
  /** The application restarted a producer: `fresh` replaces `old`, which lives on as a paused zombie. */
  "fault.producer-restart": { old: string; fresh: string };
  /** A processor (consumer and producer) stalls until `untilMs`: past the session timeout it is a zombie. */
  "fault.processor-pause": { processor: string; untilMs: number };
  /** A processor's process died; the application starts it again, with `newTransactionalId` if it changed. */
  "fault.processor-crash": ProcessorRestart;
  /** A processor closes cleanly (its transaction completes, LeaveGroup) and starts again, with `newTransactionalId` if it changed. */
  "fault.processor-leave": ProcessorRestart;

  // ---------------------------------------------------------------- group coordinator (coordinator/group/)

  /** This broker leads __consumer_offsets-`partition` at `leaderEpoch`: its group coordinator loaded it. */
  "group.loaded": { partition: number; leaderEpoch: number; groups: number };
  /** A group request answered (`api`: JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, TxnOffsetCommit, OffsetFetch). */
  "group.request": { api: string; group: string; member: string; gen: number; error: number };
  /** TxnOffsetCommit written: `offsets` (partition@offset, comma-joined) are pending for producer `pid`. */
  "group.txn-offsets": {
    group: string;
    member: string;
    gen: number;
    pid: number;
    epoch: number;
    offsets: string;
    txn: string | null;
  };
  /**
   * KAFKA-15784's bug switch only: a TxnOffsetCommit validated against the group on arrival, before
   * its verification with the transaction coordinator (its write follows the verification, unvalidated).
   */
  "group.txn-offsets-validated": { group: string; member: string; gen: number; groupGen: number; txn: string | null };
  /** A marker at an offsets partition decided producer `pid`'s pending offsets: `moved` of them became committed. */
  "group.complete-txn": {
    partition: PartitionKey;
    pid: number;
    result: TransactionResult;
    pending: number;
    moved: number;
    tv: number;
    txn: string | null;
  };
  /** Members silent past the session timeout (or not rejoined) left the group. */
  "group.members-expired": { group: string; members: string };

  // ---------------------------------------------------------------- operator (client/admin-client.ts)

  /** The operator described `partition`'s producers and will abort the transaction open from `startOffset` after `delayMs`. */
  "admin.describe-producers": {
    partition: PartitionKey;
    pid: number;
    epoch: number;
    ce: number;
    startOffset: number;
    txn: string | null;
    delayMs: number;
  };
  /** Admin.abortTransaction (KIP-664) sent WriteTxnMarkers ABORT v`v` (TransactionVersion 0) to the leader. */
  "admin.abort-transaction": {
    broker: string;
    partition: PartitionKey;
    v: number;
    pid: number;
    epoch: number;
    ce: number;
    txn: string | null;
    attempt: number;
  };
  /** The leader's answer to an admin abort. */
  "admin.abort-result": { partition: PartitionKey; error: number };
  /** The admin client gave up on an abort after its attempts. */
  "admin.abort-failed": { partition: PartitionKey; reason: string };
}

/**
 * How a leader judged a marker at one partition (the first fields of marker.append and
 * marker.rejected): the marker's producer id, epoch, coordinator epoch and TransactionVersion, the
 * producer epoch the partition held (`stored`), and the epoch rule that judged it.
 */
type MarkerJudged = {
  partition: PartitionKey;
  pid: number;
  epoch: number;
  stored: number;
  ce: number;
  tv: number;
  rule: MarkerEpochRule;
};

/** A processor's restart: the field `newTransactionalId` is there only when the id changed. */
type ProcessorRestart =
  | { processor: string; restartInMs: number }
  | { processor: string; restartInMs: number; newTransactionalId: string };

/** Which copy of which marker it was (the last fields of marker.append and marker.rejected): `v` is the request's version. */
type MarkerCopy = { txn: string | null; marker: number; resend: number; v: number; corr: number };

/** Every event of a cluster's run: the model's and the network's. */
export type ClusterEvents = KafkaEvents & NetEvents;

/** What a recorded trace holds for each kind: its emitted fields, plus the network's display-only annotations. */
export type RecordedEvents = KafkaEvents &
  Omit<NetEvents, keyof NetAnnotations> & { [K in keyof NetAnnotations]: NetEvents[K] & NetAnnotations[K] };

export type EventKind = keyof RecordedEvents & string;

/** A recorded event of kind K (any kind by default), its fields typed. */
export type RecordedEvent<K extends EventKind = EventKind> = EventOf<RecordedEvents, K>;

/** Whether `e` is of `kind`: narrows its fields to that kind's. */
export function isEvent<K extends EventKind>(e: TraceEvent, kind: K): e is RecordedEvent<K> {
  return e.kind === kind;
}

/**
 * The event with its fields typed by its kind, for a `switch` on the kind. Every kind a run records
 * is declared (trace-events.test.ts checks recorded runs): other kinds fall to the `default` branch.
 */
export function typedEvent(e: TraceEvent): RecordedEvent {
  return e as RecordedEvent;
}

/** The ghost transaction an event is about: its `txn` field, for the kinds that name one (null otherwise). */
export function transactionOf(e: TraceEvent): string | null {
  const txn = e.fields.txn;
  return typeof txn === "string" ? txn : null;
}
