import type { ReleaseFlags } from "../release.js";

/**
 * The producer's behaviour switches: what differs between client releases, and switches that break
 * the client on purpose (mutants). Read from the client's release profile (producerBehaviour).
 */
export interface ProducerBehaviour {
  /** KIP-588: INVALID_PRODUCER_EPOCH on a produce is abortable (off: fatal, as before Kafka 2.7). */
  invalidProducerEpochOnProduceAbortable: boolean;
  /** KIP-890: a TV2 client takes the producer id and epoch from the EndTxn response (off: keeps its own). */
  adoptEndTxnEpoch: boolean;
  /** The application aborts without flushing first (unsent batches fail; EndTxn waits for those in flight). */
  abortWithoutFlush: boolean;
  /** Bug switch KAFKA-9279: an error send() meets itself does not reach the transaction manager. */
  commitIgnoresSyncSendErrors?: boolean;
  /** Bug switch KAFKA-18401: a TV2 client sends EndTxn for a transaction that added nothing. */
  tv2EndTxnForEmptyTxn?: boolean;
  /** Bug switch KAFKA-5364: in ABORTABLE_ERROR queued batches are still drained, without the transactional flag. */
  drainDropsTxnFlagInAbortableError?: boolean;
  /** KAFKA-5793's client half: OUT_OF_ORDER_SEQUENCE_NUMBER on a produce is fatal (0.11 to 2.4); off: abortable. */
  outOfOrderSequenceFatal?: boolean;
  /**
   * KAFKA-18019 (4.0): INVALID_PRODUCER_ID_MAPPING is fatal on AddPartitionsToTxn, AddOffsetsToTxn,
   * EndTxn and a produce; off (3.x): abortable, with a client epoch bump (abortableErrorIfPossible).
   */
  invalidProducerIdMappingFatal?: boolean;
  /**
   * KAFKA-19250 (4.1.0): TRANSACTION_ABORTABLE answering EndTxn(ABORT) is fatal ("Failed to abort
   * transaction"); off: it fails the abort and the state stays ABORTING_TRANSACTION.
   */
  endTxnAbortAbortableErrorFatal?: boolean;
  /**
   * KAFKA-20444 (KIP-1319, 4.4): GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH answering TxnOffsetCommit
   * are abortable (CommitFailedException, as ILLEGAL_GENERATION); off: fatal (an unexpected error).
   */
  txnOffsetCommitMemberEpochErrorsAbortable?: boolean;
  /** Bug switch KAFKA-12152: the idempotent producer's epoch bump leaves the other partitions' sequences as they were. */
  epochBumpKeepsIdlePartitionSequences?: boolean;
  /** Bug switch KAFKA-13794: a partition's in-flight batches are told apart by base sequence only. */
  inflightSetKeyedBySequenceOnly?: boolean;
}

/**
 * The producer's switches of a client release's flags (overrides and mutants included): what a
 * KafkaProducer of that release does, read by its TransactionManager, Sender and application loop.
 */
export function producerBehaviour(flags: Readonly<ReleaseFlags>): ProducerBehaviour {
  return {
    invalidProducerEpochOnProduceAbortable: flags.produceInvalidEpochAbortable,
    adoptEndTxnEpoch: flags.adoptEndTxnEpoch,
    abortWithoutFlush: flags.appAbortsWithoutFlush,
    commitIgnoresSyncSendErrors: flags.commitIgnoresSyncSendErrors,
    tv2EndTxnForEmptyTxn: flags.tv2EndTxnForEmptyTxn,
    drainDropsTxnFlagInAbortableError: flags.drainDropsTxnFlagInAbortableError,
    outOfOrderSequenceFatal: flags.produceOutOfOrderSequenceFatal,
    invalidProducerIdMappingFatal: flags.invalidProducerIdMappingFatal,
    endTxnAbortAbortableErrorFatal: flags.endTxnAbortAbortableErrorFatal,
    txnOffsetCommitMemberEpochErrorsAbortable: flags.txnOffsetCommitMemberEpochErrorsAbortable,
    epochBumpKeepsIdlePartitionSequences: flags.epochBumpKeepsIdlePartitionSequences,
    inflightSetKeyedBySequenceOnly: flags.inflightSetKeyedBySequenceOnly,
  };
}
