import { Errors, errorName } from "../kafka/common/errors.js";
import { MAX_PRODUCER_EPOCH } from "../kafka/common/types.js";
import type { MarkerOutcome, ProducerEpochAssigned, ProducerFatal, TxnDecision } from "../kafka/ghost.js";
import { renderSteps, type Step, step } from "./client/explain-client.js";
import type { Truncation } from "./ghost-ledger.js";
import {
  LOST_TXN_LOG_RECORD_TEXT,
  type LostOngoingRecord,
  lostOngoingRecord,
  lostRecordText,
} from "./lost-txn-log-record.js";
import {
  type LateMarkerHistory,
  lateMarkerClearedVerification,
  lateMarkerSummary,
  lateMarkerText,
} from "./late-marker-verification.js";
import type { Violation } from "./violation.js";

/** What the fatal-error check reads from the ledger. */
export interface FatalErrorHistory {
  /** Every epoch move outside EndTxn (InitProducerId, timeout fences), in order. */
  readonly epochAssignments: readonly ProducerEpochAssigned[];
  /** Every PrepareCommit/PrepareAbort, in order. */
  readonly decisionLog: readonly TxnDecision[];
  /**
   * KAFKA-20785's contract holds: a producer fenced by a coordinator-side abort gets PRODUCER_FENCED
   * from its EndTxn(COMMIT), never INVALID_TXN_STATE.
   */
  readonly fencedCommitContract?: boolean;
  /** CompleteCommit/CompleteAbort writes, by transaction attempt. */
  readonly completions?: ReadonlyMap<string, { atMs: number }>;
  /** Replicas' truncations (an uncommitted __transaction_state record a coordinator acted on). */
  readonly truncations?: readonly Truncation[];
  /** Markers judged, by marker id (a late marker copy that cleared a verification). */
  readonly markerOutcomes?: LateMarkerHistory["markerOutcomes"];
  /** Transaction attempts begun. */
  readonly begun?: LateMarkerHistory["begun"];
}

/**
 * fatal-error: a producer instance may end in the fatal error state only when it was fenced, that
 * is when, since the InitProducerId it works with, the epoch of its transactional.id was moved by
 * someone else: another producer instance's InitProducerId (or a delayed copy of one of its own,
 * which the coordinator cannot tell from a new producer's), or the coordinator aborting a
 * transaction on its own (a transaction timeout, or the fence of an InitProducerId). Every other
 * fatal error is one Kafka's client and coordinator should not produce: the producer could have
 * aborted and gone on (an abortable error, KIP-360/KIP-588), or retried (a retry the coordinator
 * should recognise, KIP-890).
 */
export function checkFatalError(history: FatalErrorHistory, e: ProducerFatal): Violation | null {
  const { epochAssignments } = history;
  const ownIndex = adoptedAssignment(epochAssignments, e);
  const own = ownIndex >= 0 ? (epochAssignments[ownIndex] as ProducerEpochAssigned) : null;
  const sinceMs = own?.atMs ?? 0;
  // Any later move of the epoch outside EndTxn fenced this producer: another instance's
  // InitProducerId, a delayed copy of one of its own (the coordinator cannot tell it from a new
  // producer's), or a timeout fence of the coordinator's.
  const laterInit = epochAssignments
    .slice(ownIndex + 1)
    .some((a) => a.transactionalId === e.transactionalId && a.atMs <= e.atMs);
  const decisions = history.decisionLog.filter(
    (d) => d.transactionalId === e.transactionalId && d.atMs >= sinceMs && d.atMs <= e.atMs,
  );
  const coordinatorAbort = decisions.find((d) => d.initiator === "coordinator");
  if (history.fencedCommitContract && coordinatorAbort && isWrongFencedClass(e))
    return wrongErrorClassViolation(e, own, decisions, coordinatorAbort);
  if (laterInit || coordinatorAbort) return null;
  return e.failedCall
    ? failedCallViolation(e, own, decisions)
    : fatalErrorViolation(
        e,
        own,
        decisions,
        pendingCompletion(history, decisions, e),
        endedEmpty(e),
        lostOngoing(history, e),
        lateMarker(history, e),
      );
}

/**
 * INVALID_TXN_STATE answering an EndTxn whose transaction's Ongoing record a replica truncated
 * away: the coordinator that answered holds the transaction as it was before that record (Empty,
 * or complete), which refuses the EndTxn. The record was never committed; a coordinator had
 * loaded it from its log end and answered for the partitions it added (lost-txn-log-record.ts).
 */
function lostOngoing(history: FatalErrorHistory, e: ProducerFatal): LostOngoingRecord | null {
  if (e.api !== "EndTxn" || e.errorCode !== Errors.INVALID_TXN_STATE || !history.truncations) return null;
  return lostOngoingRecord(history.truncations, {
    producerId: e.producerId,
    producerEpoch: e.producerEpoch,
    beforeMs: e.atMs,
  });
}

/** A late copy of an earlier transaction's marker that cleared this write's verification (late-marker-verification.ts). */
function lateMarker(history: FatalErrorHistory, e: ProducerFatal): MarkerOutcome | null {
  const { markerOutcomes, begun } = history;
  return markerOutcomes && begun ? lateMarkerClearedVerification({ markerOutcomes, begun }, e) : null;
}

/**
 * KAFKA-18401: the producer's EndTxn got INVALID_TXN_STATE for a transaction that wrote nothing.
 * A client ends a transaction that added no partition without EndTxn (TV0/1 always did; the TV2
 * client does since the fix), since the coordinator has nothing open to commit.
 */
function endedEmpty(e: ProducerFatal): boolean {
  return e.api === "EndTxn" && e.errorCode === Errors.INVALID_TXN_STATE && e.emptyTransaction === true;
}

/** INVALID_TXN_STATE answering an EndTxn: fatal in every client, where a fenced producer must get PRODUCER_FENCED. */
function isWrongFencedClass(e: ProducerFatal): boolean {
  return e.api === "EndTxn" && e.errorCode === Errors.INVALID_TXN_STATE && !e.failedCall;
}

/**
 * KAFKA-20785's contract (PR #23204): when the coordinator aborted the producer's transaction on
 * its own (a timeout abort bumps the epoch under TV2), the producer's EndTxn(COMMIT) at the old
 * epoch is that of a fenced producer and gets the recoverable PRODUCER_FENCED, as under TV1. The
 * fatal INVALID_TXN_STATE is the wrong class: a Kafka Streams thread dies where it would rebalance.
 */
function wrongErrorClassViolation(
  e: ProducerFatal,
  own: ProducerEpochAssigned | null,
  decisions: TxnDecision[],
  abort: TxnDecision,
): Violation {
  const steps = historySteps(e, own, decisions);
  steps.push(
    step(
      e.atMs,
      `${e.producer} got ${errorName(e.errorCode)} from its ${e.api} (producerId ${e.producerId}, epoch ${e.producerEpoch}): ${e.reason}`,
      `${abort.coordinator} had aborted ${abort.ghostTxn ?? "its transaction"} on its own at epoch ${abort.producerEpoch}: the producer was fenced, and its EndTxn at epoch ${e.producerEpoch} is that of a fenced producer (under TV2 it looks like a retry, one epoch behind, and failed the state check in CompleteAbort instead)`,
      `the contract (KAFKA-20785): a fenced producer gets PRODUCER_FENCED, which applications recover from (Kafka Streams rebalances); INVALID_TXN_STATE is fatal in every client (a Kafka Streams thread dies), for a transaction the coordinator had already rolled back`,
    ),
  );
  return {
    kind: "fatal-error",
    summary: `${e.producer} got a fatal ${errorName(e.errorCode)} on ${e.api} at epoch ${e.producerEpoch} after ${abort.coordinator} aborted its transaction on its own: a fenced producer must get PRODUCER_FENCED`,
    explanation: renderSteps(steps),
    atMs: e.atMs,
    ...(e.ghostTxn !== null ? { transaction: e.ghostTxn } : {}),
  };
}

/**
 * The InitProducerId whose answer the producer works with: its own latest one for its producer id
 * at an epoch it has reached (a TV2 producer moves on from it with every EndTxn). -1: none.
 */
function adoptedAssignment(assignments: readonly ProducerEpochAssigned[], e: ProducerFatal): number {
  let index = -1;
  for (let i = 0; i < assignments.length; i++) {
    const a = assignments[i] as ProducerEpochAssigned;
    if (a.transactionalId !== e.transactionalId || a.requestedBy !== e.producer || a.atMs > e.atMs) continue;
    if (a.producerId === e.producerId && a.producerEpoch <= e.producerEpoch) index = i;
  }
  return index;
}

/** The InitProducerId the producer works with, and the coordinator's decisions for its transactional.id since. */
function historySteps(e: ProducerFatal, own: ProducerEpochAssigned | null, decisions: TxnDecision[]): Step[] {
  const steps: Step[] = [];
  if (own)
    steps.push(
      step(
        own.atMs,
        `${own.coordinator} gave ${e.producer} producerId ${own.producerId}, epoch ${own.producerEpoch} (InitProducerId for ${e.transactionalId})`,
      ),
    );
  for (const d of decisions) steps.push(step(d.atMs, decisionText(d)));
  return steps;
}

function notFencedText(e: ProducerFatal, own: ProducerEpochAssigned | null): string {
  return `nothing fenced it: no InitProducerId for ${e.transactionalId} (another instance's, or a delayed copy of its own) moved the epoch${own ? " since" : ""}, and no coordinator aborted a transaction of ${e.transactionalId} on its own (timeout or fence)`;
}

/**
 * An application call failed with an error that leaves the producer unable to end its transaction
 * (abortTransaction throwing, in Kafka's client): the application can only close the producer.
 */
function failedCallViolation(e: ProducerFatal, own: ProducerEpochAssigned | null, decisions: TxnDecision[]): Violation {
  const steps = historySteps(e, own, decisions);
  const call = e.failedCall as string;
  const error = errorName(e.errorCode);
  const why = exhaustedProducerIdText(e, decisions);
  steps.push(
    step(
      e.atMs,
      `${e.producer}'s ${call} failed: its ${e.api} (producerId ${e.producerId}, epoch ${e.producerEpoch}) got ${error}, and the transaction could not be ended`,
      ...why,
      notFencedText(e, own),
      `Kafka's ${call} throws the error (the producer stays in ABORTING_TRANSACTION, and every retry gets the same answer): the application can only close a producer nobody fenced, as after a fatal error (here it gave up after max.block.ms)`,
    ),
  );
  return {
    kind: "fatal-error",
    summary: `${e.producer} could not abort${e.ghostTxn ? ` ${e.ghostTxn}` : ""}: its ${e.api} got ${error} at producerId ${e.producerId}, epoch ${e.producerEpoch}, though no newer producer or coordinator fenced it, and the application had to close it`,
    explanation: renderSteps(steps),
    atMs: e.atMs,
    ...(e.ghostTxn !== null ? { transaction: e.ghostTxn } : {}),
  };
}

/**
 * INVALID_PRODUCER_ID_MAPPING after the coordinator's last decision at the exhausted epoch of the
 * producer's id: why the coordinator no longer maps that id (KIP-890's rotation). Empty otherwise.
 * A 3.x client meets it as an abortable error (its abortTransaction fails), a 4.0+ one as a fatal
 * error (KAFKA-18019).
 */
function exhaustedProducerIdText(e: ProducerFatal, decisions: TxnDecision[]): string[] {
  const last = decisions[decisions.length - 1];
  if (
    e.errorCode !== Errors.INVALID_PRODUCER_ID_MAPPING ||
    !last ||
    last.producerId !== e.producerId ||
    last.producerEpoch !== MAX_PRODUCER_EPOCH
  )
    return [];
  return [
    `${last.coordinator}'s last decision for ${e.transactionalId} was at epoch ${MAX_PRODUCER_EPOCH}, the last one of producerId ${e.producerId}: completing it moves ${e.transactionalId} to a new producer id at epoch 0 (KIP-890), which the EndTxn response must name; the producer still works with producerId ${e.producerId}, epoch ${e.producerEpoch}, which the coordinator no longer maps to ${e.transactionalId}`,
  ];
}

/** The latest decision, when its CompleteCommit/CompleteAbort was not written by `atMs`. */
/** Requests the transaction coordinator answers (a pending transition makes them wait). */
const COORDINATOR_APIS: ReadonlySet<string> = new Set(["EndTxn", "AddPartitionsToTxn", "InitProducerId"]);

function pendingCompletion(history: FatalErrorHistory, decisions: TxnDecision[], e: ProducerFatal): TxnDecision | null {
  const last = decisions[decisions.length - 1];
  if (!last?.ghostTxn || !history.completions || !COORDINATOR_APIS.has(e.api)) return null;
  const done = history.completions.get(last.ghostTxn);
  return done && done.atMs <= e.atMs ? null : last;
}

function fatalErrorViolation(
  e: ProducerFatal,
  own: ProducerEpochAssigned | null,
  decisions: TxnDecision[],
  pending: TxnDecision | null,
  empty: boolean,
  lost: LostOngoingRecord | null,
  lateCopy: MarkerOutcome | null,
): Violation {
  const steps = historySteps(e, own, decisions);
  const complete = pending?.result === "COMMIT" ? "CompleteCommit" : "CompleteAbort";
  steps.push(
    step(
      e.atMs,
      `${e.producer} got ${errorName(e.errorCode)} from its ${e.api} (producerId ${e.producerId}, epoch ${e.producerEpoch}): ${e.reason}`,
      ...(pending
        ? [
            `${pending.coordinator} had not yet written ${complete} for ${pending.ghostTxn} (its ${pending.result === "COMMIT" ? "PrepareCommit" : "PrepareAbort"} at epoch ${pending.producerEpoch} was still pending): a request arriving then should wait (CONCURRENT_TRANSACTIONS, which the client retries)`,
          ]
        : []),
      ...exhaustedProducerIdText(e, decisions),
      ...(empty
        ? [
            `${e.ghostTxn} added no partition: the EndTxn ended a transaction without records, which the coordinator (in Empty, CompleteCommit or CompleteAbort) refuses to commit; a client ends such a transaction without EndTxn (KAFKA-18401)`,
          ]
        : []),
      ...(lost ? [lostRecordText(lost)] : []),
      ...(lateCopy ? [lateMarkerText(lateCopy, e)] : []),
      notFencedText(e, own),
      "the error was not deserved: the producer had to give up although it could have aborted or retried and gone on",
    ),
  );
  const causeText = lost
    ? `: the ${LOST_TXN_LOG_RECORD_TEXT} its partitions was truncated`
    : lateCopy
      ? `: ${lateMarkerSummary(lateCopy)}`
      : "";
  return {
    kind: "fatal-error",
    summary: `${e.producer} got a fatal ${errorName(e.errorCode)} on ${e.api} at epoch ${e.producerEpoch}${empty ? ` for ${e.ghostTxn}, a transaction without records,` : ""} though no newer producer or coordinator fenced it${causeText}`,
    explanation: renderSteps(steps),
    atMs: e.atMs,
    ...(e.ghostTxn !== null ? { transaction: e.ghostTxn } : {}),
  };
}

/** A client's own decision, or one a delayed EndTxn of an earlier transaction made for a later one (KAFKA-17754). */
function decisionText(d: TxnDecision): string {
  const prepare = `Prepare${d.result === "COMMIT" ? "Commit" : "Abort"}`;
  const txn = d.ghostTxn ?? "a transaction";
  const by =
    d.initiator === "coordinator"
      ? "on its own (a transaction timeout, or the fence of an InitProducerId)"
      : d.requestedFor !== null && d.requestedFor !== d.ghostTxn
        ? `on an EndTxn sent for ${d.requestedFor}, delayed (KAFKA-17754: a late EndTxn ended a later transaction)`
        : "on its producer's EndTxn";
  return `${d.coordinator} wrote ${prepare} for ${txn} at epoch ${d.producerEpoch}, ${by}`;
}
