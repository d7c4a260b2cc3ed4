import type { ReleaseFlags } from "../../kafka/release.js";
import type { ViolationKind } from "../../oracle/violation.js";

/**
 * Kafka's bug history as a benchmark (issue #18; the source is BUG-ZOO.md, 36 historical bugs of
 * Kafka's transaction protocol). Each entry says which behaviour flags bring the bug back, the
 * generic fuzzed scenario it runs on, and the violation kinds that show its symptom. `eosfuzz bugs
 * run` fuzzes that scenario with the bug on and with it off (same seeds, default random strategy,
 * no knowledge of the schedule): the bug is found when the bug-on run shows one of the kinds and
 * the bug-off run shows none of them.
 *
 * Bugs the model cannot express yet have no flags: `missing` names the capability they need.
 */

/** BUG-ZOO's symptom classes (primary class of each entry). */
export type SymptomClass =
  | "stale-marker"
  | "aborted-read"
  | "lost-write"
  | "torn-transaction"
  | "duplicate"
  | "hanging"
  | "zombie-write"
  | "crash"
  | "other";

/** BUG-ZOO's capability codes: what a simulator must model to reproduce a bug. */
export type Capability =
  | "TC"
  | "TMO"
  | "TLOGF"
  | "TCFO"
  | "MCM"
  | "PSM"
  | "VER"
  | "REPL"
  | "EXP"
  | "CLEAN"
  | "DISK"
  | "CLI"
  | "CONS"
  | "GRP"
  | "NET"
  | "MIXV"
  | "EPX"
  | "STEP";

export interface HistoricalBug {
  /** BUG-ZOO's entry number (Z01..Z36). */
  id: string;
  /** The Kafka ticket(s) or KIP. */
  kafka: string;
  /** The pull requests that fixed it. */
  prs: string[];
  /** One line: the mechanism, in Kafka's terms. */
  title: string;
  symptom: SymptomClass;
  /** BUG-ZOO's capability codes for the bug. */
  needs: Capability[];
  /** BUG-ZOO's suggested flag (on = bug present). */
  flag: string;
  /** The flag overrides that bring the bug back, on every node (absent: not modelled). */
  bug?: Partial<ReleaseFlags>;
  /** The flag overrides of the fixed model, when the scenario's releases still carry the bug. */
  fixed?: Partial<ReleaseFlags>;
  /** The eosfuzz violation kinds that show the symptom (any one counts). */
  kinds: ViolationKind[];
  /** The generic built-in scenario it runs on. */
  scenario?: string;
  /** The benchmark expects it found within the default budget. */
  expectFound: boolean;
  /** Not modelled, or not found: what is missing (capability codes and a few words). */
  missing?: string;
}

/** Kinds that show a hanging transaction, a stuck LSO or a wedged transactional.id. */
const HANGING: ViolationKind[] = ["hanging-transaction"];
/**
 * The benchmark scenario of client faults (send() errors, transactions without records), kept in
 * scenarios/bugs/ outside the built-in set: the bugs of the producer client run there.
 */
const CLIENT_FAULTS = "bugs/client-faults";
const IDEMPOTENT = "bugs/idempotent-producer";
/**
 * The benchmark scenario of exactly-once processors on TV1 with slow requests (scenarios/bugs/): a
 * TxnOffsetCommit may reach the group coordinator after its transaction ended.
 */
const PROCESSOR_TV1 = "bugs/processor-tv1";
/**
 * The benchmark scenario of consumers committing with a plain OffsetCommit and offset metadata next
 * to exactly-once processors (scenarios/bugs/): KAFKA-16371's ground.
 */
const PLAIN_COMMITTERS = "bugs/plain-committers";
/**
 * The benchmark scenario of TV1 producers paused past their transaction timeout while records are
 * deleted (scenarios/bugs/): KAFKA-7190's ground.
 */
const DELETE_RECORDS = "bugs/delete-records";
/** What consumers see when a marker or EndTxn lands on the wrong transaction. */
const WRONG_TXN: ViolationKind[] = ["stale-marker", "premature-read", "aborted-read", "lost-write", "torn-transaction"];

export const BUG_HISTORY: readonly HistoricalBug[] = [
  {
    id: "Z01",
    kafka: "KAFKA-6119",
    prs: ["https://github.com/apache/kafka/pull/4137"],
    title: "timeout abort keeps the epoch; a paused producer keeps writing and commits the rest",
    symptom: "torn-transaction",
    needs: ["TC", "TMO", "PSM", "CONS", "NET"],
    flag: "tcTimeoutAbortKeepsEpoch",
    bug: { tcTimeoutAbortKeepsEpoch: true },
    kinds: ["torn-transaction", "lost-write"],
    scenario: "txn-log-outage",
    expectFound: true,
  },
  {
    id: "Z02",
    kafka: "KAFKA-7519",
    prs: ["https://github.com/apache/kafka/pull/5820"],
    title: "failed transactional.id expiration write leaves pendingState: CONCURRENT_TRANSACTIONS forever",
    symptom: "hanging",
    needs: ["TC", "TMO", "TLOGF"],
    flag: "tcExpireWriteFailureLeavesPending",
    bug: { tcExpireWriteFailureLeavesPending: true },
    kinds: HANGING,
    scenario: "txn-id-expiration",
    expectFound: true,
  },
  {
    id: "Z03",
    kafka: "KAFKA-9666",
    prs: ["https://github.com/apache/kafka/pull/8239"],
    title: "every failed fence write bumps the epoch again, until exhaustion",
    symptom: "other",
    needs: ["TC", "TLOGF", "EPX"],
    flag: "tcFenceBumpsEpochOnEveryFailedWrite",
    bug: { tcFenceBumpsEpochOnEveryFailedWrite: true },
    // At 32767 the fence throws IllegalStateException (answered UNKNOWN_SERVER_ERROR, as Kafka's coordinator
    // did): the transaction it should have aborted hangs, and the producer's InitProducerId fails for good.
    kinds: ["hanging-transaction", "fatal-error", "model-error"],
    scenario: "txn-log-outage",
    expectFound: true,
  },
  {
    id: "Z04",
    kafka: "KAFKA-9777",
    prs: ["https://github.com/apache/kafka/pull/8389"],
    title: "purgatory wake-up skipped: CompleteCommit/CompleteAbort never written",
    symptom: "hanging",
    needs: ["TC", "MCM", "STEP"],
    flag: "tcMarkerCompletionWakeupMayBeLost",
    bug: { tcMarkerCompletionWakeupMayBeLost: true },
    kinds: HANGING,
    scenario: "kip-1228",
    expectFound: true,
  },
  {
    id: "Z05",
    kafka: "KAFKA-10080",
    prs: ["https://github.com/apache/kafka/pull/8782"],
    title: "two completion handlers both write CompleteX",
    symptom: "crash",
    needs: ["TC", "MCM", "STEP"],
    flag: "tcCompletionWriteNotExclusive",
    bug: { tcCompletionWriteNotExclusive: true },
    kinds: ["model-error", "torn-transaction", "hanging-transaction"],
    scenario: "kip-1228",
    expectFound: true,
  },
  {
    id: "Z06",
    kafka: "KAFKA-16352",
    prs: ["https://github.com/apache/kafka/pull/15524"],
    title: "an old-epoch marker operation deletes the pending completion re-queued by a reload",
    symptom: "hanging",
    needs: ["TC", "TCFO", "MCM", "NET"],
    flag: "tcStaleMarkerOpRemovesNewPending",
    bug: { tcStaleMarkerOpRemovesNewPending: true },
    kinds: HANGING,
    scenario: "coordinator-failover",
    expectFound: true,
  },
  {
    id: "Z07",
    kafka: "KAFKA-18464",
    prs: ["https://github.com/apache/kafka/pull/18467"],
    title: "TV2 empty abort during a pending PrepareCommit gets PRODUCER_FENCED",
    symptom: "other",
    needs: ["TC", "MCM", "NET"],
    flag: "tv2EndTxnEpochCheckBeforePending",
    // Both runs: the application aborts without flushing (unsent batches fail), so an abort right
    // after a commit reaches the coordinator while CompleteCommit is pending.
    bug: { tv2EndTxnEpochCheckBeforePending: true, appAbortsWithoutFlush: true },
    fixed: { appAbortsWithoutFlush: true },
    kinds: ["fatal-error"],
    scenario: "zombie-producer",
    expectFound: true,
  },
  {
    id: "Z08",
    kafka: "KAFKA-18660",
    prs: ["https://github.com/apache/kafka/pull/18730", "https://github.com/apache/kafka/pull/18758"],
    title: "TV2 overflow: the EndTxn response returns the old producer id and epoch, the client self-fences",
    symptom: "other",
    needs: ["TC", "EPX"],
    flag: "tv2OverflowResponseUsesOldPidEpoch",
    bug: { tv2OverflowResponseUsesOldPidEpoch: true },
    kinds: ["fatal-error"],
    scenario: "epoch-exhaustion",
    expectFound: true,
  },
  {
    id: "Z09",
    kafka: "KAFKA-19367",
    prs: ["https://github.com/apache/kafka/pull/19910", "https://github.com/apache/kafka/pull/19976"],
    title: "TV2 InitProducerId fence bumps twice: a negative epoch at 32766",
    symptom: "hanging",
    needs: ["TC", "EPX"],
    flag: "tv2FenceDoubleBump",
    bug: { singleEpochBumpOnCoordinatorAbort: false },
    // 4.1 at the maximum epoch: no KAFKA-20090 recovery, and the epoch overflows as Kafka's int16 does.
    fixed: { maxEpochRecovery: false, epochOverflowThrows: true },
    kinds: ["model-error", "hanging-transaction"],
    scenario: "epoch-exhaustion",
    expectFound: false,
    missing:
      "a clean baseline: the bug-off run is 4.1 at the maximum epoch, which still has KAFKA-20090 (Z10), and since the rule changes of issue #19 (TransactionMetadata keeps 32766 as the last epoch at producer-id rotation) that baseline overflows on its own (an EndTxn and a fence at 32767, seeds 1453 and 2902 of 5,000), so the bug-on run (first at seed 40) no longer differs from it in kind; a baseline with KAFKA-20090 fixed recovers from the double bump too (0 of 5,000)",
  },
  {
    id: "Z10",
    kafka: "KAFKA-20090",
    prs: ["https://github.com/apache/kafka/pull/21469", "https://github.com/apache/kafka/pull/21506"],
    title: "fencing at epoch 32767 throws; the TV2 fence path skips producer-id rotation",
    symptom: "hanging",
    needs: ["TC", "TMO", "EPX", "NET", "PSM"],
    flag: "fenceAtMaxEpochThrows + tv2FencePathSkipsPidRotation",
    bug: { maxEpochRecovery: false },
    kinds: ["hanging-transaction", "model-error", "fatal-error"],
    scenario: "epoch-exhaustion",
    expectFound: true,
  },
  {
    id: "Z11",
    kafka: "KAFKA-20310 / KAFKA-20357",
    prs: ["https://github.com/apache/kafka/pull/21828", "https://github.com/apache/kafka/pull/22096"],
    title: "prev/next producer id and lastProducerEpoch not persisted: a failover loses the rotation",
    symptom: "hanging",
    needs: ["TC", "TCFO", "EPX", "NET"],
    flag: "tlogDropsPidLinkFields",
    bug: { tlogDropsPidLinkFields: true },
    kinds: ["hanging-transaction", "fatal-error"],
    scenario: "epoch-exhaustion",
    expectFound: true,
  },
  {
    id: "Z12",
    kafka: "KAFKA-20785",
    prs: ["https://github.com/apache/kafka/pull/23204"],
    title: "TV2 EndTxn(COMMIT) racing a timeout abort gets a fatal INVALID_TXN_STATE",
    symptom: "other",
    needs: ["TC", "TMO", "NET"],
    flag: "tv2CommitAfterTimeoutAbortInvalidTxnState",
    // Both runs promise the fix's contract (PRODUCER_FENCED for a fenced commit); the bug reverts the code.
    bug: { commitRetryInCompleteAbortFenced: false, promisesFencedCommitProducerFenced: true },
    fixed: { commitRetryInCompleteAbortFenced: true, promisesFencedCommitProducerFenced: true },
    kinds: ["fatal-error"],
    scenario: "zombie-producer",
    expectFound: true,
  },
  {
    id: "Z13",
    kafka: "KAFKA-17754",
    prs: [
      "https://github.com/apache/kafka/pull/16719",
      "https://github.com/apache/kafka/pull/17402",
      "https://github.com/apache/kafka/pull/17698",
    ],
    title: "TV0/1: a late EndTxn or marker of T1 completes T2 (same epoch across transactions)",
    symptom: "stale-marker",
    needs: ["TC", "MCM", "PSM", "CONS", "NET"],
    flag: "sameEpochAcrossTransactions",
    bug: { epochBumpOnEndTxn: false, strictMarkerEpochForTv2: false },
    kinds: WRONG_TXN,
    scenario: "kafka-17754-tv2",
    expectFound: true,
  },
  {
    id: "Z14",
    kafka: "KAFKA-19446 (KIP-1228)",
    prs: [
      "https://github.com/apache/kafka/pull/20857",
      "https://github.com/apache/kafka/pull/20868",
      "https://github.com/apache/kafka/pull/20882",
    ],
    title: "a late duplicate TV2 marker passes the legacy >= check and completes the next transaction",
    symptom: "stale-marker",
    needs: ["TC", "MCM", "PSM", "CONS", "NET"],
    flag: "leaderLegacyMarkerEpochCheck",
    bug: { strictMarkerEpochForTv2: false },
    kinds: ["stale-marker"],
    scenario: "kip-1228",
    expectFound: true,
  },
  {
    id: "Z15",
    kafka: "KAFKA-19999",
    prs: ["https://github.com/apache/kafka/pull/21176"],
    title: "the strict check rejects an idempotent marker retry and the coordinator gives up",
    symptom: "hanging",
    needs: ["TC", "MCM", "PSM", "NET"],
    flag: "strictMarkerCheckRejectsIdempotentRetry",
    bug: { equalEpochNoOpenTxnTolerance: false },
    kinds: HANGING,
    scenario: "kip-1228",
    expectFound: true,
  },
  {
    id: "Z16",
    kafka: "KAFKA-20322",
    prs: ["https://github.com/apache/kafka/pull/21782"],
    title: "the marker sender never negotiates and sends WriteTxnMarkers v2 to v1-only brokers",
    symptom: "hanging",
    needs: ["TC", "MCM", "MIXV"],
    flag: "tcMarkerSenderNoApiVersions",
    bug: { markerVersionDiscovery: false },
    kinds: HANGING,
    scenario: "kip-1228-gap",
    expectFound: true,
  },
  {
    id: "Z17",
    kafka: "KAFKA-12671 (KIP-890 part 1)",
    prs: ["https://github.com/apache/kafka/pull/13231", "https://github.com/apache/kafka/pull/13391"],
    title: "a produce that lands after EndTxn and its markers opens an orphan transaction: stuck LSO",
    symptom: "hanging",
    needs: ["TC", "PSM", "VER", "CONS", "NET"],
    flag: "leaderNoTxnVerification",
    bug: { transactionPartitionVerification: false },
    kinds: HANGING,
    scenario: "kafka-17754",
    expectFound: true,
  },
  {
    id: "Z18",
    kafka: "KAFKA-14884",
    prs: ["https://github.com/apache/kafka/pull/13787"],
    title: "an abort marker slips between verification and append",
    symptom: "hanging",
    needs: ["TC", "TMO", "PSM", "VER", "STEP"],
    flag: "verificationWithoutGuard",
    kinds: HANGING,
    bug: { verificationWithoutGuard: true },
    scenario: "kafka-17754",
    expectFound: true,
  },
  {
    id: "Z19",
    kafka: "KAFKA-14904 / KAFKA-14920",
    prs: ["https://github.com/apache/kafka/pull/13579", "https://github.com/apache/kafka/pull/14033"],
    title: "a verification error on the first batch leaves the next one in an OutOfOrderSequence loop",
    symptom: "other",
    needs: ["TC", "PSM", "VER", "CLI"],
    flag: "verifyRejectsDuringPendingState + verificationNoSequenceFloor",
    bug: { verifyRejectsDuringPendingState: true, verificationNoSequenceFloor: true },
    kinds: ["fatal-error"],
    scenario: "bugs/verification-pending",
    expectFound: true,
  },
  {
    id: "Z20",
    kafka: "KAFKA-9144",
    prs: ["https://github.com/apache/kafka/pull/7687"],
    title: "producer-state expiry ignores marker timestamps: the coordinator epoch regresses, replay fails",
    symptom: "hanging",
    needs: ["TC", "TMO", "TCFO", "PSM", "REPL", "EXP"],
    flag: "psmExpiryIgnoresMarkerTimestamps + replayEnforcesCoordinatorEpoch",
    bug: { psmExpiryIgnoresMarkerTimestamps: true, replayEnforcesCoordinatorEpoch: true },
    kinds: ["model-error", "hanging-transaction"],
    scenario: "producer-expiry",
    expectFound: true,
  },
  {
    id: "Z21",
    kafka: "KAFKA-5793",
    prs: ["https://github.com/apache/kafka/pull/3865"],
    title: "lost producer state reported as a fatal OutOfOrderSequence",
    symptom: "other",
    needs: ["PSM", "EXP", "CLI"],
    flag: "unknownProducerReportedAsOutOfOrder",
    bug: { unknownProducerReportedAsOutOfOrder: true, produceOutOfOrderSequenceFatal: true },
    kinds: ["fatal-error"],
    scenario: "producer-expiry",
    expectFound: true,
  },
  {
    id: "Z22",
    kafka: "KAFKA-7190 (KIP-360)",
    prs: ["https://github.com/apache/kafka/pull/7388"],
    title: "producer state dropped with log segments: a fenced zombie writes again, a dangling transaction",
    symptom: "other",
    needs: ["TC", "PSM", "EXP", "CLI"],
    flag: "psmDropsStateWithLogSegments",
    // KIP-360's third problem: the coordinator aborted a paused producer's transaction (epoch
    // bumped by the abort marker), DeleteRecords then took the producer's state with its records,
    // and the zombie's next batch opened a transaction nobody ends. Both runs are 2.x's leaders,
    // without KIP-890's verification (which since 3.6 refuses the zombie's epoch anyway).
    bug: { psmDropsStateWithLogSegments: true, transactionPartitionVerification: false },
    fixed: { transactionPartitionVerification: false },
    kinds: HANGING,
    scenario: DELETE_RECORDS,
    expectFound: true,
  },
  {
    id: "Z23",
    kafka: "KAFKA-6003",
    prs: ["https://github.com/apache/kafka/pull/4004"],
    title: "a follower without producer state rejects replicated batches",
    symptom: "crash",
    needs: ["PSM", "REPL", "EXP"],
    flag: "followerChecksSequenceWithoutState",
    bug: { followerChecksSequenceWithoutState: true },
    kinds: ["model-error", "hanging-transaction"],
    scenario: "producer-expiry",
    expectFound: true,
  },
  {
    id: "Z24",
    kafka: "KAFKA-9807",
    prs: ["https://github.com/apache/kafka/pull/8418"],
    title: "a fetch reads the high watermark twice and returns data above the LSO",
    symptom: "aborted-read",
    needs: ["PSM", "REPL", "CONS", "STEP"],
    flag: "fetchReadsHighWatermarkTwice",
    bug: { fetchReadsHighWatermarkTwice: true },
    kinds: ["aborted-read", "premature-read"],
    scenario: "kip-1228",
    expectFound: true,
  },
  {
    id: "Z25",
    kafka: "KAFKA-7866",
    prs: ["https://github.com/apache/kafka/pull/6570"],
    title: "a transaction-index append failure: duplicate offsets, LSO past an unindexed abort",
    symptom: "duplicate",
    needs: ["PSM", "DISK", "CONS"],
    flag: "lsoIgnoresTxnIndexFailure",
    kinds: ["duplicate", "aborted-read"],
    expectFound: false,
    missing:
      "DISK: a storage fault at a marker's append (TransactionIndex.append throwing IOException inside LogSegment.updateTxnIndex), with what follows it in Kafka: UnifiedLog.append's IOException goes to the LogDirFailureChannel, ReplicaManager.handleLogDirFailure marks the directory's partitions offline and either halts the broker (the metadata log's directory) or reports the directory offline to the controller (KIP-858), which moves leadership; the bug side needs a log whose records are written before its end offset moves (the model's append is one step), so that the next append can reuse offsets, and an LSO that passes the abort missing from the index",
  },
  {
    id: "Z26",
    kafka: "KAFKA-14055 (+ KAFKA-8351, KAFKA-13727, KAFKA-13194)",
    prs: [
      "https://github.com/apache/kafka/pull/12390",
      "https://github.com/apache/kafka/pull/6722",
      "https://github.com/apache/kafka/pull/11891",
      "https://github.com/apache/kafka/pull/11199",
    ],
    title: "the log cleaner drops or mis-indexes transaction markers",
    symptom: "aborted-read",
    needs: ["PSM", "CLEAN", "CONS"],
    flag: "cleanerMatchesMarkerKeys",
    kinds: ["aborted-read", "torn-transaction", "hanging-transaction"],
    expectFound: false,
    missing: "CLEAN: no log cleaner (compacted topics) in the model",
  },
  {
    id: "Z27",
    kafka: "KAFKA-5376 / KAFKA-5355",
    prs: ["https://github.com/apache/kafka/pull/3239", "https://github.com/apache/kafka/pull/3221"],
    title: "a long-poll (delayed) fetch ignores the isolation level and the aborted list",
    symptom: "aborted-read",
    needs: ["PSM", "CONS"],
    flag: "delayedFetchIgnoresIsolation",
    bug: { delayedFetchIgnoresIsolation: true },
    kinds: ["aborted-read", "premature-read"],
    scenario: "kip-1228",
    expectFound: true,
  },
  {
    id: "Z28",
    kafka: "KAFKA-5364",
    prs: ["https://github.com/apache/kafka/pull/3202", "https://github.com/apache/kafka/pull/3231"],
    title: "batches drained in the abortable-error state lose the transactional flag",
    symptom: "aborted-read",
    needs: ["TC", "CLI", "PSM", "CONS"],
    flag: "drainDropsTxnFlagInAbortableError",
    bug: { drainDropsTxnFlagInAbortableError: true },
    kinds: ["aborted-read"],
    scenario: CLIENT_FAULTS,
    expectFound: true,
  },
  {
    id: "Z29",
    kafka: "KAFKA-9279",
    prs: ["https://github.com/apache/kafka/pull/11508"],
    title: "send-time errors do not fail the commit",
    symptom: "lost-write",
    needs: ["CLI"],
    flag: "commitIgnoresSyncSendErrors",
    bug: { commitIgnoresSyncSendErrors: true },
    kinds: ["lost-write"],
    scenario: CLIENT_FAULTS,
    expectFound: true,
  },
  {
    id: "Z30",
    kafka: "KAFKA-12152",
    prs: ["https://github.com/apache/kafka/pull/9832"],
    title: "an epoch bump leaves idle partitions' sequences stale",
    symptom: "other",
    needs: ["PSM", "CLI", "NET"],
    flag: "epochBumpKeepsIdlePartitionSequences",
    bug: { epochBumpKeepsIdlePartitionSequences: true },
    // The liveness check of the idempotent producer's endless OUT_OF_ORDER_SEQUENCE_NUMBER loop.
    kinds: ["hanging-transaction"],
    scenario: IDEMPOTENT,
    expectFound: true,
  },
  {
    id: "Z31",
    kafka: "KAFKA-13794",
    prs: [
      "https://github.com/apache/kafka/pull/11991",
      "https://github.com/apache/kafka/pull/12006",
      "https://github.com/apache/kafka/pull/12096",
    ],
    title: "in-flight batches keyed by sequence only: completing one removes another",
    symptom: "crash",
    needs: ["PSM", "CLI", "NET"],
    flag: "inflightSetKeyedBySequenceOnly",
    bug: { inflightSetKeyedBySequenceOnly: true },
    kinds: ["model-error"],
    scenario: IDEMPOTENT,
    expectFound: true,
  },
  {
    id: "Z32",
    kafka: "KAFKA-18401",
    prs: ["https://github.com/apache/kafka/pull/18448"],
    title: "a TV2 client sends EndTxn for an empty transaction: INVALID_TXN_STATE",
    symptom: "other",
    needs: ["TC", "CLI"],
    flag: "tv2EndTxnForEmptyTxn",
    bug: { tv2EndTxnForEmptyTxn: true },
    kinds: ["fatal-error"],
    scenario: CLIENT_FAULTS,
    expectFound: true,
  },
  {
    id: "Z33",
    kafka: "KAFKA-15449",
    prs: ["https://github.com/apache/kafka/pull/14370"],
    title: "an unverified late TxnOffsetCommit opens an orphan transaction on __consumer_offsets",
    symptom: "hanging",
    needs: ["TC", "VER", "GRP", "NET"],
    flag: "txnOffsetCommitUnverified",
    bug: { txnOffsetCommitUnverified: true },
    kinds: HANGING,
    scenario: PROCESSOR_TV1,
    expectFound: true,
  },
  {
    id: "Z34",
    kafka: "KAFKA-15784",
    prs: ["https://github.com/apache/kafka/pull/14774"],
    title: "offset validation and write split around the asynchronous verification",
    symptom: "zombie-write",
    needs: ["TC", "VER", "GRP", "STEP"],
    flag: "txnOffsetValidateBeforeVerify",
    bug: { txnOffsetValidateBeforeVerify: true },
    kinds: ["zombie-commit"],
    scenario: "kip-447-zombie",
    expectFound: true,
  },
  {
    id: "Z35",
    kafka: "KAFKA-16371",
    prs: ["https://github.com/apache/kafka/pull/16072"],
    title: "partitions rejected for OFFSET_METADATA_TOO_LARGE stay pending: UNSTABLE_OFFSET_COMMIT forever",
    symptom: "hanging",
    needs: ["GRP"],
    flag: "pendingOffsetsKeepRejectedPartitions",
    // The lasting hang is on the plain OffsetCommit path: the classic GroupMetadataManager.storeOffsets
    // staged the refused partition in pendingOffsetCommits, which only the append callback clears, for
    // written partitions only; the plain committers commit with metadata, sometimes too large.
    bug: { pendingOffsetsKeepRejectedPartitions: true },
    kinds: HANGING,
    scenario: PLAIN_COMMITTERS,
    expectFound: true,
  },
  {
    id: "Z36",
    kafka: "KIP-447 (KAFKA-9346, KAFKA-9365)",
    prs: ["https://github.com/apache/kafka/pull/7878", "https://github.com/apache/kafka/pull/7897"],
    title: "a new owner reads offsets under a pending transaction; zombie TxnOffsetCommit unfenced",
    symptom: "duplicate",
    needs: ["TC", "GRP", "NET", "CONS"],
    flag: "offsetFetchIgnoresPendingTxnOffsets + txnOffsetCommitNoGenerationCheck",
    // The broker half (KAFKA-9346's generation check on TxnOffsetCommit, off before 2.5): a zombie
    // processor's offsets are accepted. The client half is the processors' require_stable OffsetFetch.
    bug: { txnOffsetCommitGenerationCheck: false },
    kinds: ["zombie-commit", "duplicate-processing"],
    scenario: "kip-447-zombie",
    expectFound: true,
  },
];

export function findBug(id: string): HistoricalBug | undefined {
  const wanted = id.toUpperCase();
  return BUG_HISTORY.find(
    (b) =>
      b.id === wanted ||
      b.kafka
        .toUpperCase()
        .split(/[ /(),+]+/)
        .includes(wanted),
  );
}

/** Modelled: the bug has flags and a generic scenario to run on. */
export function isModelled(b: HistoricalBug): b is HistoricalBug & { bug: Partial<ReleaseFlags>; scenario: string } {
  return b.bug !== undefined && b.scenario !== undefined;
}
