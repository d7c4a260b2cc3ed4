import { Errors, errorName } from "../common/errors.js";
import type { ProducerBehaviour } from "./producer-behaviour.js";

/*
 * What each TxnRequestHandler of Kafka's TransactionManager makes of an error in a coordinator's
 * answer, once the retriable ones are sent again: fatal (the producer can only be closed), abortable
 * (the transaction can only be aborted), or abortable with an epoch bump first when the client may
 * bump it (abortableErrorIfPossible). Pure, apart from the manager, so each handler's rule reads in
 * Kafka's order without the manager's state around it.
 */

/** Errors whose exception is a RetriableException: the request (or batch) is simply sent again. */
export const RETRIABLE = new Set<number>([
  Errors.UNKNOWN_TOPIC_OR_PARTITION,
  Errors.NOT_LEADER_OR_FOLLOWER,
  Errors.REQUEST_TIMED_OUT,
  Errors.NETWORK_EXCEPTION,
  Errors.COORDINATOR_LOAD_IN_PROGRESS,
  Errors.COORDINATOR_NOT_AVAILABLE,
  Errors.NOT_COORDINATOR,
  Errors.NOT_ENOUGH_REPLICAS,
  Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  Errors.CONCURRENT_TRANSACTIONS,
  Errors.KAFKA_STORAGE_ERROR,
  Errors.FENCED_LEADER_EPOCH,
  Errors.UNKNOWN_LEADER_EPOCH,
]);

/**
 * Errors maybeTransitionToErrorState makes fatal in every modelled release: their exceptions are
 * ClusterAuthorizationException, TransactionalIdAuthorizationException, ProducerFencedException and
 * UnsupportedVersionException (INVALID_PRODUCER_ID_MAPPING joins them in 4.0, KAFKA-18019).
 */
export const FATAL_SEND_ERRORS = new Set<number>([
  Errors.CLUSTER_AUTHORIZATION_FAILED,
  Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
  Errors.PRODUCER_FENCED,
  Errors.UNSUPPORTED_VERSION,
]);

/** UNKNOWN_PRODUCER_ID (59): the leader lost the producer's state. Not in the coordinator's error list. */
export const UNKNOWN_PRODUCER_ID = Errors.UNKNOWN_PRODUCER_ID;

/** One handler's decision on an error: what the TransactionManager then does with it. */
export interface TxnErrorVerdict {
  readonly kind: "fatal" | "abortable" | "abortable-if-possible";
  /** The error the manager records (PRODUCER_FENCED for INVALID_PRODUCER_EPOCH, as Kafka's handlers do). */
  readonly errorCode: number;
  readonly reason: string;
}

const fatal = (errorCode: number, reason: string): TxnErrorVerdict => ({ kind: "fatal", errorCode, reason });
const abortable = (errorCode: number, reason: string): TxnErrorVerdict => ({ kind: "abortable", errorCode, reason });
const abortableIfPossible = (errorCode: number, reason: string): TxnErrorVerdict => ({
  kind: "abortable-if-possible",
  errorCode,
  reason,
});

const fenced = (errorCode: number) =>
  errorCode === Errors.INVALID_PRODUCER_EPOCH || errorCode === Errors.PRODUCER_FENCED;

/** KAFKA-18019 (4.0): INVALID_PRODUCER_ID_MAPPING is fatal. */
const mappingFatal = (behaviour: ProducerBehaviour) => behaviour.invalidProducerIdMappingFatal === true;

/**
 * FindCoordinatorHandler: a missing authorization for the transactional id is fatal, for the group
 * abortable; TRANSACTION_ABORTABLE is abortable; anything else is fatal.
 */
export function findCoordinatorError(keyType: "TRANSACTION" | "GROUP", errorCode: number): TxnErrorVerdict {
  const reason = `FindCoordinator(${keyType}): ${errorName(errorCode)}`;
  if (errorCode === Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED) return fatal(errorCode, reason);
  if (errorCode === Errors.GROUP_AUTHORIZATION_FAILED || errorCode === Errors.TRANSACTION_ABORTABLE)
    return abortable(errorCode, reason);
  return fatal(errorCode, reason);
}

/**
 * InitProducerIdHandler: a missing authorization is abortable here (the application may retry
 * initTransactions); a fenced producer fatal; anything unexpected fatal.
 */
export function initProducerIdError(errorCode: number): TxnErrorVerdict {
  const reason = `InitProducerId: ${errorName(errorCode)}`;
  if (errorCode === Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED || errorCode === Errors.CLUSTER_AUTHORIZATION_FAILED)
    return abortable(errorCode, reason);
  if (fenced(errorCode)) return fatal(Errors.PRODUCER_FENCED, reason);
  if (errorCode === Errors.TRANSACTION_ABORTABLE) return abortable(errorCode, reason);
  return fatal(errorCode, reason);
}

/**
 * AddPartitionsToTxnHandler (the first error of the response decides): fatal for a fenced producer,
 * a missing transactional-id authorization, INVALID_TXN_STATE and (4.0+) INVALID_PRODUCER_ID_MAPPING;
 * UNKNOWN_PRODUCER_ID needs an epoch bump; anything else abortable.
 */
export function addPartitionsError(errorCode: number, behaviour: ProducerBehaviour): TxnErrorVerdict {
  const reason = `AddPartitionsToTxn: ${errorName(errorCode)}`;
  if (fenced(errorCode)) return fatal(Errors.PRODUCER_FENCED, reason);
  if (
    errorCode === Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED ||
    errorCode === Errors.INVALID_TXN_STATE ||
    (errorCode === Errors.INVALID_PRODUCER_ID_MAPPING && mappingFatal(behaviour))
  )
    return fatal(errorCode, reason);
  if (errorCode === Errors.UNKNOWN_PRODUCER_ID || errorCode === Errors.INVALID_PRODUCER_ID_MAPPING)
    return abortableIfPossible(errorCode, reason);
  // TOPIC_AUTHORIZATION_FAILED, OPERATION_NOT_ATTEMPTED, TRANSACTION_ABORTABLE and any other error.
  return abortable(errorCode, reason);
}

/**
 * AddOffsetsToTxnHandler: UNKNOWN_PRODUCER_ID needs an epoch bump; a fenced producer, a missing
 * transactional-id authorization, INVALID_TXN_STATE and (4.0+) INVALID_PRODUCER_ID_MAPPING are
 * fatal; a missing group authorization and TRANSACTION_ABORTABLE abortable; anything else is fatal.
 */
export function addOffsetsError(errorCode: number, behaviour: ProducerBehaviour): TxnErrorVerdict {
  const reason = `AddOffsetsToTxn: ${errorName(errorCode)}`;
  if (
    errorCode === Errors.UNKNOWN_PRODUCER_ID ||
    (errorCode === Errors.INVALID_PRODUCER_ID_MAPPING && !mappingFatal(behaviour))
  )
    return abortableIfPossible(errorCode, reason);
  if (fenced(errorCode)) return fatal(Errors.PRODUCER_FENCED, reason);
  if (errorCode === Errors.GROUP_AUTHORIZATION_FAILED || errorCode === Errors.TRANSACTION_ABORTABLE)
    return abortable(errorCode, reason);
  // TRANSACTIONAL_ID_AUTHORIZATION_FAILED, INVALID_TXN_STATE, INVALID_PRODUCER_ID_MAPPING (4.0+), anything else.
  return fatal(errorCode, reason);
}

/**
 * TxnOffsetCommitHandler, after its retries: a missing group authorization, a fenced instance,
 * TRANSACTION_ABORTABLE, a stale member or generation (KIP-447's CommitFailedException; with
 * KIP-1319, 4.4, GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH too) -> abortable; a fenced producer ->
 * fatal; anything else fatal.
 */
export function txnOffsetCommitError(errorCode: number, behaviour: ProducerBehaviour): TxnErrorVerdict {
  const reason = `TxnOffsetCommit: ${errorName(errorCode)}`;
  const memberEpochError =
    (errorCode === Errors.GROUP_ID_NOT_FOUND || errorCode === Errors.STALE_MEMBER_EPOCH) &&
    behaviour.txnOffsetCommitMemberEpochErrorsAbortable === true;
  if (
    errorCode === Errors.GROUP_AUTHORIZATION_FAILED ||
    errorCode === Errors.FENCED_INSTANCE_ID ||
    errorCode === Errors.TRANSACTION_ABORTABLE ||
    errorCode === Errors.UNKNOWN_MEMBER_ID ||
    errorCode === Errors.ILLEGAL_GENERATION ||
    memberEpochError
  )
    return abortable(errorCode, reason);
  if (fenced(errorCode)) return fatal(Errors.PRODUCER_FENCED, reason);
  return fatal(errorCode, reason);
}

/**
 * EndTxnHandler: a fenced producer, a missing transactional-id authorization, INVALID_TXN_STATE and
 * (4.0+) INVALID_PRODUCER_ID_MAPPING are fatal; UNKNOWN_PRODUCER_ID needs an epoch bump;
 * TRANSACTION_ABORTABLE is abortable, except on an abort since KAFKA-19250 (4.1.0), where it is
 * fatal ("Failed to abort transaction": an abort cannot end in another abort); anything else fatal.
 */
export function endTxnError(
  errorCode: number,
  ending: { isAbort: boolean; behaviour: ProducerBehaviour },
): TxnErrorVerdict {
  const { isAbort, behaviour } = ending;
  const reason = `EndTxn: ${errorName(errorCode)}`;
  if (fenced(errorCode)) return fatal(Errors.PRODUCER_FENCED, reason);
  if (
    errorCode === Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED ||
    errorCode === Errors.INVALID_TXN_STATE ||
    (errorCode === Errors.INVALID_PRODUCER_ID_MAPPING && mappingFatal(behaviour))
  )
    return fatal(errorCode, reason);
  if (errorCode === Errors.UNKNOWN_PRODUCER_ID || errorCode === Errors.INVALID_PRODUCER_ID_MAPPING)
    return abortableIfPossible(errorCode, reason);
  if (isAbort && errorCode === Errors.TRANSACTION_ABORTABLE && behaviour.endTxnAbortAbortableErrorFatal)
    return fatal(errorCode, `${reason} (Failed to abort transaction)`);
  if (errorCode === Errors.TRANSACTION_ABORTABLE) return abortable(errorCode, reason);
  return fatal(errorCode, reason);
}
