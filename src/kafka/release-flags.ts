/**
 * The behaviour flags a Kafka release is made of, each with what it switches: the release profiles
 * (release.ts) give each a value per release. Scenarios pick a release per node and may override
 * single flags; mutants (deliberately broken variants) are flag overrides too.
 */
export interface ReleaseFlags {
  // ---- wire ----
  /** Highest WriteTxnMarkers version this broker parses and this coordinator may send. */
  maxWriteTxnMarkersVersion: 1 | 2;
  /** Coordinator picks the version from the peer's ApiVersions (KAFKA-20322); off = always its max. */
  markerVersionDiscovery: boolean;
  /** Coordinator fills TransactionVersion from the transaction's clientTransactionVersion (KIP-1228 [2/3]). */
  fillMarkerTransactionVersion: boolean;

  // ---- partition leader ----
  /** KIP-1228 [3/3]: a TV>=2 marker needs markerEpoch > producer epoch (legacy: >=). */
  strictMarkerEpochForTv2: boolean;
  /**
   * KAFKA-19999 (PR #21176, in 4.2.0): under the strict rule, an equal-epoch marker is accepted when no
   * txn is open, and appended like any other (ProducerAppendInfo.checkProducerEpoch returns; the
   * coordinator epoch is still checked; the answer waits for the high watermark as every marker's).
   */
  equalEpochNoOpenTxnTolerance: boolean;
  /**
   * KAFKA-20090's leader half (4.3.0): the KAFKA-19999 tolerance also takes an equal-epoch TV2 marker
   * while a transaction is open when the epoch is Short.MAX_VALUE (a transaction begun at 32767).
   */
  equalEpochToleranceAtMaxEpoch: boolean;
  /** Mutant switch: the KAFKA-19999 tolerance also accepts an equal epoch while a txn is open. */
  equalEpochToleranceIgnoresOpenTxn: boolean;
  /** Reject markers whose coordinator epoch is below the stored one (TRANSACTION_COORDINATOR_FENCED). */
  coordinatorEpochCheck: boolean;
  /** Reject markers whose producer epoch fails the epoch rule (INVALID_PRODUCER_EPOCH). */
  markerProducerEpochCheck: boolean;
  /** Mutant switch: apply the strict (>) rule to legacy (TV<2) markers too. */
  strictMarkerEpochForLegacy: boolean;
  /** KIP-890 part 1: a transactional batch with no open txn is verified with the coordinator first. */
  transactionPartitionVerification: boolean;
  /**
   * KAFKA-18042 (PR #19844, June 2025): UnifiedLog.maybeStartTransactionVerification answers a
   * batch whose epoch is below the stored one INVALID_PRODUCER_EPOCH at once, without asking the coordinator.
   */
  rejectStaleEpochBeforeVerification: boolean;
  /**
   * KAFKA-19690 (PR #20534; 4.1.1, 4.2.0): UnifiedLog.analyzeAndValidateProducerState refuses a
   * transactional batch (a marker too: control batches are transactional) that opens no ongoing
   * transaction and whose epoch is below the stored one, INVALID_PRODUCER_EPOCH, before the
   * verification guard (or the marker's own checks) is looked at. Off: the guard is checked first
   * (INVALID_TXN_STATE), and the epoch after it.
   */
  staleEpochRefusedBeforeGuard: boolean;
  /**
   * KAFKA-18202 (PR #19902, 4.1.0): ProducerAppendInfo.checkSequence refuses a batch whose first
   * sequence is not 0 when a TV2 verification entry exists and the producer has no retained batch
   * (OUT_OF_ORDER_SEQUENCE_NUMBER). Off: such a batch is taken at any sequence.
   */
  tv2FirstSequenceMustBeZero: boolean;
  /**
   * KIP-890 part 2 at the leader (4.0): a verification entry remembers whether its produce came from a
   * client that bumps the epoch (VerificationStateEntry.supportsEpochBump), which decides whether a
   * marker at its epoch keeps it. Off (3.x): there is no such field, and every transactional append
   * clears the entry.
   */
  verificationEntryKnowsEpochBump: boolean;
  /**
   * KIP-890 part 2 at the leader (4.0): hasOngoingTransaction(producerId, epoch) needs the open
   * transaction's epoch to be the batch's. Off (3.x): any open transaction of the producer id counts,
   * so a batch of a newer epoch skips verification while an older transaction is open.
   */
  ongoingTransactionMatchesEpoch: boolean;
  /** Duplicate produce batches (same epoch and sequence range as a retained batch) are not re-appended. */
  produceDuplicateDetection: boolean;
  /** Produce sequence numbers are validated (OUT_OF_ORDER_SEQUENCE_NUMBER on a gap or a repeat). */
  produceSequenceCheck: boolean;
  /** The leader moves completed transactions out of the unstable set (so the LSO advances). */
  advanceLsoOnCompletion: boolean;
  /** The leader's high watermark waits for the in-sync replicas (Partition.maybeIncrementLeaderHW); off: its own log end. */
  highWatermarkFromIsr: boolean;

  // ---- transaction coordinator ----
  /** Understands TV2: EndTxn v5 with an epoch bump per transaction, implicit add-partition on produce. */
  supportsTransactionVersion2: boolean;
  /**
   * KAFKA-18654 (PR #18810, 4.0): a leader adding a partition for a TV2 produce retries the
   * coordinator's CONCURRENT_TRANSACTIONS itself, every add.partitions.to.txn.retry.backoff.ms for up
   * to add.partitions.to.txn.retry.backoff.max.ms (ReplicaManager.appendRecordsWithTransactionVerification,
   * maybeRetryOnConcurrentTransactions), instead of answering the producer at once.
   */
  addPartitionsRetryOnServer: boolean;
  /** TV2 EndTxn writes PrepareCommit/PrepareAbort at epoch+1 (KIP-890 part 2). */
  epochBumpOnEndTxn: boolean;
  /** KAFKA-19367: a TV2 coordinator-initiated abort bumps the epoch once (was twice). */
  singleEpochBumpOnCoordinatorAbort: boolean;
  /** TV2 EndTxn recognises a retry (epoch == current - 1) instead of treating it as fenced/new. */
  recognizeTv2EndTxnRetry: boolean;
  /** TV2 EndTxn on an Ongoing/Empty transaction must carry the current epoch (off: one behind is taken as current). */
  endTxnEpochCheck: boolean;
  /** CompleteCommit/CompleteAbort only after every partition acknowledged its marker. */
  completeAfterAllMarkersAcked: boolean;
  /** KAFKA-20090: epoch 32767 recovery; exhausted epoch also rotates the producer id in the fence path. */
  maxEpochRecovery: boolean;
  /** KAFKA-20785: TV2 EndTxn(COMMIT) retry in CompleteAbort gets PRODUCER_FENCED (else INVALID_TXN_STATE). */
  commitRetryInCompleteAbortFenced: boolean;
  /**
   * Not a behaviour but a promise the oracle holds the cluster to: the error-class contract of
   * KAFKA-20785 (PR #23204, August 2026). A TV2 EndTxn(COMMIT) of a producer whose transaction the
   * coordinator aborted on its own (a timeout, the fence of an InitProducerId) must be answered
   * PRODUCER_FENCED (recoverable: Kafka Streams rebalances), never INVALID_TXN_STATE (fatal: the
   * stream thread dies). On in any broker: the fatal-error check judges the class. Off in every
   * modelled release, which predate the fix and answer INVALID_TXN_STATE.
   */
  promisesFencedCommitProducerFenced: boolean;
  /**
   * Bug switch, KAFKA-18464 (PR #18467, 4.0 pre-release): TV2 EndTxn checks the producer epoch
   * before the pending state, so an abort at the bumped epoch while CompleteCommit is pending gets
   * PRODUCER_FENCED instead of CONCURRENT_TRANSACTIONS.
   */
  tv2EndTxnEpochCheckBeforePending: boolean;
  /**
   * Bug switch, KAFKA-6119 (PR #4137, 0.11.0.0-0.11.0.1): the TV0/TV1 timeout abort keeps the
   * producer epoch (no fence), so the paused producer carries on into a new transaction.
   */
  tcTimeoutAbortKeepsEpoch: boolean;
  /**
   * Bug switch, KAFKA-7519 (PR #5820, up to 2.0.0; fixed 2.0.1, 2.1.0): when the tombstone of an
   * expired transactional.id fails to be written (e.g. under min.insync.replicas), its pending Dead
   * state is not cleared, and every later request for the id gets CONCURRENT_TRANSACTIONS until the
   * coordinator moves (TransactionStateManager.writeTombstonesForExpiredTransactionalIds).
   */
  tcExpireWriteFailureLeavesPending: boolean;
  /**
   * Bug switch, KAFKA-20310 (PR #21828, 4.0-4.2 before March 2026): the TV2 txn-log record's
   * PreviousProducerId / NextProducerId are not persisted, so a coordinator that loads the partition
   * sees -1 (a PrepareX loses its pre-allocated producer id).
   */
  tlogDropsPidLinkFields: boolean;
  /**
   * Bug switch, KAFKA-16352 (PR #15524, 2.6.0-3.7.x): the marker channel manager removes a pending
   * completion by transactional.id instead of compare-and-remove, so a late marker operation of an
   * earlier coordinator epoch deletes the entry a reload of the partition re-queued.
   */
  tcStaleMarkerOpRemovesNewPending: boolean;
  /**
   * Bug switch, KAFKA-9666 (PR #8239, up to 2.5.x): a fence whose __transaction_state write failed
   * leaves its epoch bump in memory and the next fence bumps again (no hasFailedEpochFence).
   */
  tcFenceBumpsEpochOnEveryFailedWrite: boolean;
  /**
   * Bug switch, KAFKA-14884 (PR #13787, 3.5.x): the leader appends a verified batch without checking
   * the VerificationGuard, so a marker that arrived between the verification and the append is missed
   * and the batch opens a transaction the coordinator has already completed.
   */
  verificationWithoutGuard: boolean;
  /**
   * Bug switch, KAFKA-14904 (PR #13579, 3.5.0 pre-release): the coordinator answers a verify-only
   * AddPartitionsToTxn CONCURRENT_TRANSACTIONS while a transition of the transactional.id is pending
   * (pendingTransitionInProgress, e.g. an AddPartitionsToTxn of another partition being written),
   * though the partitions asked about were added long before. Off: only PrepareCommit/PrepareAbort
   * answer CONCURRENT_TRANSACTIONS (the final check is at the append).
   */
  verifyRejectsDuringPendingState: boolean;
  /**
   * Bug switch, KAFKA-14920 (PR #14033, 3.6.0): the verification entry keeps no sequence floor, so
   * ProducerAppendInfo.checkSequence lets through a batch above the lowest sequence a verification
   * saw; for a producer with no state at the partition, a later batch is then written before an
   * earlier one whose verification failed, and the earlier one is refused OUT_OF_ORDER_SEQUENCE_NUMBER
   * on every retry. Off: such a batch is refused (retriable for the client: it is not next in line)
   * until the lowest one is written.
   */
  verificationNoSequenceFloor: boolean;
  /**
   * Bug switch, KAFKA-9777 (PR #8389, 0.11-2.5): the last marker acknowledgement completes the
   * transaction through a purgatory wake-up that is skipped when a request for the same
   * transactional.id holds its lock (here: arrived in the same millisecond); CompleteX is never written.
   */
  tcMarkerCompletionWakeupMayBeLost: boolean;
  /**
   * Bug switch, KAFKA-10080 (PR #8782, 2.6 pre-release): maybeWriteTxnCompletion is not exclusive, so
   * a second acknowledgement writes CompleteX again while the first write is in flight, and completing
   * it meets no pending transition (IllegalStateException). With it on, the completion check is a step
   * of its own after the partition's removal (Kafka's handler threads did both apart), so two
   * acknowledgements handled at the same instant both find every partition acknowledged.
   */
  tcCompletionWriteNotExclusive: boolean;
  /**
   * Model fidelity: a TV2 bump of an epoch already at Short.MAX_VALUE overflows as Kafka's int16 does in
   * every release (TransactionMetadata.prepareAbortOrCommit; prepareTransitionTo then throws
   * IllegalArgumentException, which KafkaApis answers UNKNOWN_SERVER_ERROR); KAFKA-20090's abort at
   * the maximum (maxEpochRecovery) keeps the epoch instead. Off: a model variant that caps the epoch.
   */
  epochOverflowThrows: boolean;
  /**
   * TransactionMetadata.scala of 3.9 and 4.0: completeTransitionTo copies per target state only the
   * fields that transition may change (Empty keeps its old start timestamp; PrepareX and CompleteX of
   * TV0/1 keep the ids). 4.1 (TxnTransitMetadata in Java) copies the whole transit.
   */
  tcCompleteCopiesPerState: boolean;
  /** 4.0's Scala transits carry nextProducerId -1 unless they set one; 4.1 on keep the metadata's. */
  tcTransitDropsNextProducerId: boolean;
  /**
   * 4.2's Java TransactionMetadata (KAFKA-18884): the PrepareEpochFence transit keeps lastProducerEpoch;
   * the Scala class (3.9-4.1) writes -1 there.
   */
  tcFenceKeepsLastProducerEpoch: boolean;
  /**
   * 4.2's prepareInitProducerIdTransit catches prepareIncrementProducerEpoch's exception at an exhausted
   * epoch and answers it through the callback (UNKNOWN_SERVER_ERROR); before (3.9-4.1) the
   * IllegalStateException leaves handleInitProducerId and KafkaApis answers it the same way.
   */
  tcInitCatchesEpochExhaustion: boolean;
  /**
   * KIP-890 part 2 (4.0): AddPartitionsToTxn checks the pending state first (CONCURRENT_TRANSACTIONS),
   * then the producer id and epoch; 3.9 checks the id and epoch first.
   */
  tcAddPartitionsPendingFirst: boolean;
  /**
   * Bug switch, KAFKA-18660 (PRs #18730, #18758, 4.0 pre-release): at epoch overflow the TV2 EndTxn
   * response carries the old producer id and the exhausted epoch instead of the rotated ones.
   */
  tv2OverflowResponseUsesOldPidEpoch: boolean;
  /**
   * KIP-447 (2.5): TxnOffsetCommit carries the member id and generation, and the group coordinator
   * refuses a fenced generation (ILLEGAL_GENERATION). Off: the pre-2.5 gap (BUG-ZOO
   * txnOffsetCommitNoGenerationCheck): a zombie processor's offsets are accepted.
   */
  txnOffsetCommitGenerationCheck: boolean;
  /**
   * The group coordinator's marker write carries the WriteTxnMarkers TransactionVersion to the
   * offsets partition's producer-state check (CoordinatorRuntime.scheduleTransactionCompletion(...,
   * transactionVersion)). Off (a mutant): it is dropped there, so offsets partitions get the legacy rule.
   */
  groupCoordinatorPassesTransactionVersion: boolean;
  /**
   * Bug switch, KAFKA-15449 (PR #14370, fixed 3.7.0): KIP-890 part 1 as 3.6 shipped it verified
   * produce requests only. The group coordinator wrote a TxnOffsetCommit without asking the
   * transaction coordinator (GroupCoordinator.handleTxnCommitOffsets -> GroupMetadataManager.storeOffsets
   * -> ReplicaManager.appendRecords with no verification guard), and UnifiedLog.analyzeAndValidateProducerState
   * checked the guard for origin CLIENT only, not COORDINATOR. A TxnOffsetCommit that arrives after
   * its transaction ended opens a transaction on __consumer_offsets that no marker closes.
   */
  txnOffsetCommitUnverified: boolean;
  /**
   * Bug switch, KAFKA-15784 (PR #14774, 3.7 pre-release, between PR #14370 and it): the group
   * coordinator validated a TxnOffsetCommit against the group (GroupCoordinator.doTxnCommitOffsets,
   * under the group lock) before ReplicaManager.appendRecords verified it with the transaction
   * coordinator, and wrote it once the asynchronous verification answered, without validating
   * again: a rebalance in between lets a fenced member's offsets through. Fixed: the verification
   * takes a callback, and validation and write run together after it.
   */
  txnOffsetValidateBeforeVerify: boolean;
  /**
   * Bug switch, KAFKA-16371 (PR #16072, fixed 3.7.1 and 3.8.0), the classic group coordinator:
   * GroupMetadataManager.storeOffsets wrote only the partitions whose metadata fits
   * offset.metadata.max.bytes but staged every partition of the request as pending
   * (GroupMetadata.prepareOffsetCommit / prepareTxnOffsetCommit with the unfiltered map). A rejected
   * partition of a plain OffsetCommit stays pending for ever (require_stable OffsetFetch answers
   * UNSTABLE_OFFSET_COMMIT); one of a TxnOffsetCommit stays until the producer's next marker, and a
   * COMMIT marker then throws IllegalStateException (completePendingTxnOffsetCommit).
   */
  pendingOffsetsKeepRejectedPartitions: boolean;
  /**
   * Bug switch, KAFKA-7190 (KIP-360, PR #7388, fixed 2.4.0): when the log start offset moves
   * (DeleteRecords, retention), ProducerStateManager.truncateHead evicted every producer whose last
   * data batch is below it, with its open transaction, so a zombie whose transaction the coordinator
   * had aborted (the abort marker alone does not retain a producer) could write again. Fixed
   * (onLogStartOffsetIncremented): the producer state stays until producer.id.expiration.ms.
   */
  psmDropsStateWithLogSegments: boolean;

  // ---- client ----
  /** The read_committed consumer drops batches of aborted transactions using the aborted index. */
  consumerFiltersAborted: boolean;
  /** The read_committed consumer stops at the last stable offset. */
  consumerStopsAtLso: boolean;
  /**
   * Bug switch, KAFKA-5355 + KAFKA-5376 (PRs #3221, #3239, 0.11.0 pre-release): a read_committed
   * fetch completed from the DelayedFetch purgatory reads up to the high watermark and carries no
   * aborted transactions.
   */
  delayedFetchIgnoresIsolation: boolean;
  /**
   * Bug switch, KAFKA-9807 (PR #8418, fixed 2.5.0): a read_committed fetch computes its bound
   * (Log.lastStableOffset) by reading the high watermark twice, once to compare it with the first
   * unstable offset and once to return it; the model makes the gap between the two reads a
   * scheduled step, so a high-watermark advance in between returns data above the first unstable offset.
   */
  fetchReadsHighWatermarkTwice: boolean;
  /**
   * Bug switch, KAFKA-5793 (PR #3865, fixed 1.0.0), the broker half: a leader with no state for a
   * producer answers a batch whose sequence is not 0 OUT_OF_ORDER_SEQUENCE_NUMBER (0.11's
   * ProducerAppendInfo.checkSequence: the missing entry's epoch differs), where 1.0 answered
   * UNKNOWN_PRODUCER_ID and 2.5 on accepts it. Its client half is produceOutOfOrderSequenceFatal.
   */
  unknownProducerReportedAsOutOfOrder: boolean;
  /**
   * Bug switch, KAFKA-6003 (PR #4004, fixed 0.11.0.2 and 1.0.0): a follower validates a replicated
   * batch's sequence even when it has no state for the producer, so a batch whose sequence is not 0
   * throws OutOfOrderSequenceException in the replica fetcher (0.11's fetcher thread dies of it);
   * fixed: a follower with no state takes the leader's batch as it is.
   */
  followerChecksSequenceWithoutState: boolean;
  /**
   * Bug switch, KAFKA-9144 (PR #7687, fixed 2.4.1 and 2.5.0), first half: producer-state expiry
   * (removeExpiredProducers) measures a producer's idle time from its last data batch only; fixed:
   * a transaction marker refreshes the producer's last timestamp too.
   */
  psmExpiryIgnoresMarkerTimestamps: boolean;
  /**
   * Bug switch, KAFKA-9144 (PR #7687), second half: a replica replaying a marker (a follower's copy,
   * a rebuild after truncation) enforces the coordinator-epoch check and throws
   * TransactionCoordinatorFencedException when the stored epoch is higher; fixed: only a leader's
   * append (origin COORDINATOR) is checked, replication and recovery take the marker.
   */
  replayEnforcesCoordinatorEpoch: boolean;
  /** A processor's OffsetFetch on assignment asks require_stable (KIP-447); off: it may read an offset about to move. */
  offsetFetchRequireStable: boolean;
  /** A processor goes back to the committed offsets after an aborted transaction; off: it carries on from its buffer. */
  processorSeeksToCommittedOnAbort: boolean;

  // ---- producer client (read from the scenario's overrides, as the consumer's) ----
  /** KIP-588 (2.7): INVALID_PRODUCER_EPOCH on a produce is an abortable error; off: fatal. */
  produceInvalidEpochAbortable: boolean;
  /**
   * Bug switch, KAFKA-5793's client half (0.11; until KIP-360, PR #7389, 2.5.0, for transactional
   * producers): OUT_OF_ORDER_SEQUENCE_NUMBER on a produce is a fatal error; off: abortable.
   */
  produceOutOfOrderSequenceFatal: boolean;
  /** KIP-890 part 2: a TV2 client takes the producer id and epoch from the EndTxn response; off: keeps its own. */
  adoptEndTxnEpoch: boolean;
  /**
   * The application's abortTransaction does not flush first: batches not yet sent are failed
   * (TransactionAbortedException) and EndTxn(ABORT) goes once the batches in flight are done, as
   * Kafka's client allows. Off: the application flushes, then aborts. A workload knob, off
   * everywhere (KAFKA-18464 needs it: an abort right after a commit, while CompleteCommit is pending).
   */
  appAbortsWithoutFlush: boolean;
  /**
   * Bug switch, KAFKA-9279 (PR #11508, clients before 3.2): an error send() meets itself (a record
   * over max.request.size: RecordTooLargeException) only fails the returned future; the transaction
   * manager never hears of it, so commitTransaction commits the transaction without that record.
   * Off: the error moves the transaction manager to ABORTABLE_ERROR (maybeTransitionToErrorState).
   */
  commitIgnoresSyncSendErrors: boolean;
  /**
   * Bug switch, KAFKA-18401 (PR #18448, 4.0 pre-release): a TV2 client sends EndTxn for a
   * transaction that added no partition; the coordinator, in Empty or CompleteCommit, answers
   * EndTxn(COMMIT) with the fatal INVALID_TXN_STATE. Off: such a transaction ends without EndTxn.
   */
  tv2EndTxnForEmptyTxn: boolean;
  /**
   * Bug switch, KAFKA-5364 (PRs #3202, #3231, 0.11.0 pre-release): isInTransaction() was false in
   * ABORTABLE_ERROR, and the Sender asked it for each drained batch: batches queued when the error
   * came are still drained, and written without the transactional flag (plain records that
   * read_committed consumers see and the abort leaves in place). Off: they fail unsent.
   */
  drainDropsTxnFlagInAbortableError: boolean;
  /**
   * Bug switch, KAFKA-12152 (PR #9832, fixed 2.7.1 / 2.8.0): the idempotent producer's client-side
   * epoch bump (TransactionManager.bumpIdempotentProducerEpoch) starts at sequence 0 only the
   * partitions that asked for it; the others keep their old sequences under the new epoch, the
   * leader answers OUT_OF_ORDER_SEQUENCE_NUMBER (a new epoch must start at 0), which asks for the
   * next bump, and so on. Off: each partition keeps the producer id and epoch of its sequences and
   * starts again at 0 once its in-flight batches are resolved (maybeUpdateProducerIdAndEpoch).
   */
  epochBumpKeepsIdlePartitionSequences: boolean;
  /**
   * Bug switch, KAFKA-13794 (PRs #11991, #12006, #12096, fixed 3.0.2 / 3.1.1 / 3.2.0): the set of
   * a partition's in-flight batches (inflightBatchesBySequence) compares batches by base sequence
   * only, so two batches sharing one across an epoch bump are one to it: adding the second is a
   * no-op and removing either removes the one it holds. A batch dropped that way is then
   * re-enqueued untracked and the Sender throws IllegalStateException. Off: by producer id, epoch
   * and sequence (the batch itself).
   */
  inflightSetKeyedBySequenceOnly: boolean;
  /**
   * KAFKA-18019 (PR #17822, 4.0.0): INVALID_PRODUCER_ID_MAPPING is fatal to the transactional
   * producer on AddPartitionsToTxn, AddOffsetsToTxn, EndTxn and a produce
   * (TransactionManager.maybeTransitionToErrorState). Off (3.x): abortable, with a client-side
   * epoch bump where the client must trigger it (abortableErrorIfPossible).
   */
  invalidProducerIdMappingFatal: boolean;
  /**
   * KAFKA-19250 (PR #19656, 4.1.0): TRANSACTION_ABORTABLE answering EndTxn(ABORT) is fatal
   * (EndTxnHandler: KafkaException "Failed to abort transaction"), since aborting again could not
   * end it. Off: it fails abortTransaction and the state stays ABORTING_TRANSACTION.
   */
  endTxnAbortAbortableErrorFatal: boolean;
  /**
   * KAFKA-20444 (KIP-1319, PR #22239, 4.4.0): GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH answering
   * TxnOffsetCommit (v6+) are abortable, a CommitFailedException as ILLEGAL_GENERATION. Off: fatal
   * (TxnOffsetCommitHandler's unexpected error).
   */
  txnOffsetCommitMemberEpochErrorsAbortable: boolean;
}

export type FlagName = keyof ReleaseFlags;
