/**
 * A Kafka release is a set of behaviour flags (release-flags.ts): one profile per release line.
 */
import type { FlagName, ReleaseFlags } from "./release-flags.js";

export type { FlagName, ReleaseFlags };

const kafka3x: ReleaseFlags = {
  maxWriteTxnMarkersVersion: 1,
  markerVersionDiscovery: false,
  fillMarkerTransactionVersion: false,
  strictMarkerEpochForTv2: false,
  equalEpochNoOpenTxnTolerance: false,
  equalEpochToleranceAtMaxEpoch: false,
  equalEpochToleranceIgnoresOpenTxn: false,
  coordinatorEpochCheck: true,
  markerProducerEpochCheck: true,
  strictMarkerEpochForLegacy: false,
  transactionPartitionVerification: true,
  rejectStaleEpochBeforeVerification: false,
  staleEpochRefusedBeforeGuard: false,
  verificationEntryKnowsEpochBump: false,
  tv2FirstSequenceMustBeZero: false,
  ongoingTransactionMatchesEpoch: false,
  produceDuplicateDetection: true,
  produceSequenceCheck: true,
  advanceLsoOnCompletion: true,
  highWatermarkFromIsr: true,
  supportsTransactionVersion2: false,
  addPartitionsRetryOnServer: false,
  epochBumpOnEndTxn: false,
  singleEpochBumpOnCoordinatorAbort: false,
  recognizeTv2EndTxnRetry: true,
  endTxnEpochCheck: true,
  completeAfterAllMarkersAcked: true,
  maxEpochRecovery: false,
  commitRetryInCompleteAbortFenced: false,
  promisesFencedCommitProducerFenced: false,
  tv2EndTxnEpochCheckBeforePending: false,
  tcTimeoutAbortKeepsEpoch: false,
  tcExpireWriteFailureLeavesPending: false,
  tlogDropsPidLinkFields: false,
  tcStaleMarkerOpRemovesNewPending: false,
  tcFenceBumpsEpochOnEveryFailedWrite: false,
  verificationWithoutGuard: false,
  verifyRejectsDuringPendingState: false,
  verificationNoSequenceFloor: false,
  tcMarkerCompletionWakeupMayBeLost: false,
  tcCompletionWriteNotExclusive: false,
  epochOverflowThrows: true,
  tcCompleteCopiesPerState: true,
  tcTransitDropsNextProducerId: true,
  tcFenceKeepsLastProducerEpoch: false,
  tcInitCatchesEpochExhaustion: false,
  tcAddPartitionsPendingFirst: false,
  tv2OverflowResponseUsesOldPidEpoch: false,
  txnOffsetCommitGenerationCheck: true,
  groupCoordinatorPassesTransactionVersion: true,
  txnOffsetCommitUnverified: false,
  txnOffsetValidateBeforeVerify: false,
  pendingOffsetsKeepRejectedPartitions: false,
  psmDropsStateWithLogSegments: false,
  consumerFiltersAborted: true,
  consumerStopsAtLso: true,
  delayedFetchIgnoresIsolation: false,
  fetchReadsHighWatermarkTwice: false,
  unknownProducerReportedAsOutOfOrder: false,
  followerChecksSequenceWithoutState: false,
  psmExpiryIgnoresMarkerTimestamps: false,
  replayEnforcesCoordinatorEpoch: false,
  offsetFetchRequireStable: true,
  processorSeeksToCommittedOnAbort: true,
  produceInvalidEpochAbortable: true,
  produceOutOfOrderSequenceFatal: false,
  adoptEndTxnEpoch: true,
  appAbortsWithoutFlush: false,
  commitIgnoresSyncSendErrors: false,
  tv2EndTxnForEmptyTxn: false,
  drainDropsTxnFlagInAbortableError: false,
  epochBumpKeepsIdlePartitionSequences: false,
  inflightSetKeyedBySequenceOnly: false,
  invalidProducerIdMappingFatal: false,
  endTxnAbortAbortableErrorFatal: false,
  txnOffsetCommitMemberEpochErrorsAbortable: false,
};

/**
 * 4.0 (the 4.0 line at its latest patch, 4.0.1 and later; checked against 4.0.2's classes):
 * TV2-capable coordinator (epoch bump at EndTxn), WriteTxnMarkers max v1, legacy marker check;
 * KAFKA-19367 (single bump on coordinator-initiated TV2 aborts, PR #19910 and follow-up #19976,
 * cherry-picked to 4.0 in June 2025). 4.0.0 is this with singleEpochBumpOnCoordinatorAbort off. The
 * TV2 transaction-log record drops PreviousProducerId/NextProducerId (KAFKA-20310, fixed in 4.3.0).
 * Its client makes INVALID_PRODUCER_ID_MAPPING fatal (KAFKA-18019, PR #17822).
 */
const kafka40: ReleaseFlags = {
  ...kafka3x,
  supportsTransactionVersion2: true,
  addPartitionsRetryOnServer: true,
  epochBumpOnEndTxn: true,
  singleEpochBumpOnCoordinatorAbort: true,
  tlogDropsPidLinkFields: true,
  verificationEntryKnowsEpochBump: true,
  ongoingTransactionMatchesEpoch: true,
  staleEpochRefusedBeforeGuard: true,
  tcAddPartitionsPendingFirst: true,
  invalidProducerIdMappingFatal: true,
};

/**
 * 4.1.0: as 4.0 plus KAFKA-18042 (a stale produce epoch is rejected before verification, PR #19844)
 * and KAFKA-18202 (a TV2 producer with no state must start at sequence 0, PR #19902), but without
 * KAFKA-19690, which reached the 4.0 line in 4.0.2 (4b0ba42483) and the 4.1 line only in 4.1.1
 * (a10c1f3ea1); TxnTransitMetadata in Java: completeTransitionTo copies the whole transit,
 * transits keep nextProducerId; and in the client KAFKA-19250 (an abort answered
 * TRANSACTION_ABORTABLE is fatal, PR #19656). Checked against 4.1.0's and 4.0.2's classes.
 */
const kafka410: ReleaseFlags = {
  ...kafka40,
  rejectStaleEpochBeforeVerification: true,
  tv2FirstSequenceMustBeZero: true,
  staleEpochRefusedBeforeGuard: false,
  tcCompleteCopiesPerState: false,
  tcTransitDropsNextProducerId: false,
  endTxnAbortAbortableErrorFatal: true,
};

/**
 * 4.1 (4.1.1 and later, checked against 4.1.2's classes): 4.1.0 plus KAFKA-19690 (#20618: the stale
 * epoch is refused at the append before the verification guard).
 */
const kafka41: ReleaseFlags = { ...kafka410, staleEpochRefusedBeforeGuard: true };

/**
 * 4.2.0: KIP-1228 (WriteTxnMarkers v2, the strict TV2 check) and KAFKA-19999 (#21176, an ancestor of
 * the 4.2.0 release commit: an equal-epoch TV2 marker with no transaction open is appended), without
 * version discovery: the marker sender sends v2 to every broker (KAFKA-20322 came in 4.2.1).
 */
const kafka420: ReleaseFlags = {
  ...kafka41,
  maxWriteTxnMarkersVersion: 2,
  fillMarkerTransactionVersion: true,
  strictMarkerEpochForTv2: true,
  equalEpochNoOpenTxnTolerance: true,
  tcFenceKeepsLastProducerEpoch: true,
  tcInitCatchesEpochExhaustion: true,
};

/**
 * 4.2.1 (and 4.2.2): KIP-1228 as intended: KAFKA-20322 discovery (#21782, the only transaction
 * change from 4.2.0), so a 4.2.1 coordinator sends v1 to a broker that cannot parse v2.
 */
const kafka421: ReleaseFlags = { ...kafka420, markerVersionDiscovery: true };

/**
 * 4.3 (checked against 4.3.2's classes): KAFKA-20090's epoch 32767 recovery (#21469, #21506) on the
 * coordinator and at the leader (the equal-epoch tolerance at Short.MAX_VALUE), and KAFKA-20310
 * (#21828: the transaction log keeps PreviousProducerId/NextProducerId).
 */
const kafka43: ReleaseFlags = {
  ...kafka421,
  maxEpochRecovery: true,
  equalEpochToleranceAtMaxEpoch: true,
  tlogDropsPidLinkFields: false,
  // KAFKA-20785 is in 4.3.2's TransactionCoordinator (a TV2 COMMIT retry in CompleteAbort is answered
  // PRODUCER_FENCED; the txnCoordinator surface found it), though not on the 4.3 branch this was read from.
  commitRetryInCompleteAbortFenced: true,
};

/**
 * 4.4 (checked against 4.4.0's classes): as 4.3, but without KAFKA-20785 (4.4.0's coordinator answers
 * the CompleteAbort COMMIT retry INVALID_TXN_STATE), and with the client's KIP-1319 (KAFKA-20444:
 * TxnOffsetCommit's GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH are abortable).
 */
const kafka44: ReleaseFlags = {
  ...kafka43,
  commitRetryInCompleteAbortFenced: false,
  txnOffsetCommitMemberEpochErrorsAbortable: true,
};

export const RELEASES = {
  "3.x": kafka3x,
  "4.0": kafka40,
  "4.1.0": kafka410,
  "4.1": kafka41,
  "4.2.0": kafka420,
  "4.2.1": kafka421,
  "4.3": kafka43,
  "4.4": kafka44,
} as const satisfies Record<string, ReleaseFlags>;

export type ReleaseName = keyof typeof RELEASES;
export const RELEASE_NAMES = Object.keys(RELEASES) as ReleaseName[];

/**
 * The client release of producers whose scenario names none: the newest release for a client that
 * knows TV2 (a 4.0+ KafkaProducer, `transactionVersion` 2), else 3.x (clients before 4.0 never use TV2).
 */
export function defaultClientRelease(transactionVersion: number): ReleaseName {
  return transactionVersion >= 2 ? (RELEASE_NAMES[RELEASE_NAMES.length - 1] as ReleaseName) : "3.x";
}

export function isReleaseName(name: string): name is ReleaseName {
  return Object.hasOwn(RELEASES, name);
}

/** A node's release: its name for reports and its effective flags (release + overrides). */
export interface ReleaseProfile {
  readonly name: ReleaseName;
  readonly flags: Readonly<ReleaseFlags>;
}

/**
 * Effective flags by release and overrides, one frozen object each, kept for the process: V8 gives
 * a frozen object a hidden class of its own, and once the objects of earlier runs are collected the
 * next run's get a new one, so every piece of compiled code that read flags was thrown away and
 * compiled again, run after run.
 */
const MAX_REMEMBERED_PROFILES = 1_000;
const rememberedFlags = new Map<string, Readonly<ReleaseFlags>>();

export function releaseProfile(name: ReleaseName, overrides: Partial<ReleaseFlags> = {}): ReleaseProfile {
  const key = [name, ...Object.entries(overrides).map(([flag, value]) => `${flag}=${typeof value}:${value}`)].join(" ");
  let flags = rememberedFlags.get(key);
  if (flags === undefined) {
    flags = Object.freeze({ ...RELEASES[name], ...overrides });
    if (rememberedFlags.size < MAX_REMEMBERED_PROFILES) rememberedFlags.set(key, flags);
  }
  return { name, flags };
}

export const FLAG_NAMES = Object.keys(kafka3x) as FlagName[];
