package eosfuzz.harness.leader;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One partition's UnifiedLog of one Kafka release, as the leader service drives it: the calls whose
 * signatures differ between releases (4.2 adds the transaction version to appendAsLeader, 4.3 moves
 * the record classes, 3.9's and 4.0's UnifiedLog is the Scala one). Each adapter implements it with
 * its release's classes and nothing else: every decision is Kafka's, the service only says what to
 * call. jvm/PROTOCOL.md ("The leader service at each release") lists what each adapter does.
 *
 * <p>A guard is whatever the release's maybeStartTransactionVerification returns (a
 * VerificationGuard); the service keeps it opaque and hands it back.
 */
public interface LeaderLog extends AutoCloseable {
    /** UnifiedLog.maybeStartTransactionVerification(pid, sequence, epoch[, supportsEpochBump from 4.0]). */
    Object maybeStartTransactionVerification(long producerId, int sequence, short producerEpoch, boolean supportsEpochBump);

    /** VerificationGuard.SENTINEL. */
    Object sentinelGuard();

    /** A guard no verification entry holds (new VerificationGuard()). */
    Object unheldGuard();

    /**
     * appendAsLeader of one data batch of `count` records stamped `timestampMs`, with the given origin
     * (CLIENT or COORDINATOR) and guard. Returns {firstOffset, lastOffset} of LogAppendInfo.
     */
    long[] appendDataAsLeader(DataBatch batch, String origin, Object guard, long timestampMs) throws Exception;

    /** appendAsFollower of the same batch built at `baseOffset` (the log end). */
    void appendDataAsFollower(DataBatch batch, long baseOffset, long timestampMs) throws Exception;

    /**
     * appendAsLeader of an end-transaction marker, origin COORDINATOR, SENTINEL guard; from 4.2 with
     * `transactionVersion` (a release before 4.2 has no such argument and ignores it). Returns the
     * LogAppendInfo's first offset.
     */
    long appendMarkerAsLeader(Marker marker, long timestampMs) throws Exception;

    /** appendAsFollower of that control batch built at `baseOffset`. */
    void appendMarkerAsFollower(Marker marker, long baseOffset, long timestampMs) throws Exception;

    /** One record of no producer (a coordinator's own record): appendAsLeader with origin COORDINATOR. Returns its offset. */
    long appendPlainAsLeader(int leaderEpoch, long timestampMs) throws Exception;

    /** The same as a follower, at `baseOffset`. */
    void appendPlainAsFollower(int leaderEpoch, long baseOffset, long timestampMs) throws Exception;

    void updateHighWatermark(long offset) throws Exception;

    void truncateTo(long offset) throws Exception;

    /**
     * UnifiedLog.maybeIncrementLogStartOffset(offset, ClientRecordDeletion): DeleteRecords. The
     * segments stay until deleteOldSegments; the producer state takes the new log start
     * (ProducerStateManager.onLogStartOffsetIncremented). Returns whether the log start moved.
     */
    boolean maybeIncrementLogStartOffset(long offset) throws Exception;

    /** UnifiedLog.removeExpiredProducers(nowMs). */
    void removeExpiredProducers(long nowMs);

    long logEndOffset();

    long highWatermark();

    long lastStableOffset();

    /**
     * ProducerStateManager.firstUnstableOffset(): the producer state's own answer. UnifiedLog keeps a
     * cached copy that truncateTo does not refresh until the next append or high-watermark move; the
     * last stable offset, which reads that copy only below the high watermark, is compared as well.
     */
    OptionalLong firstUnstableOffset();

    /** collectAbortedTransactions(0, logEnd): {producerId, firstOffset, lastOffset, lastStableOffset} each. */
    List<long[]> abortedTransactions();

    /** ProducerStateManager.activeProducers(), by producer id. */
    Map<Long, ProducerView> producers();

    /** The verification entry of a producer id, or null. */
    VerificationView verificationEntry(long producerId);

    /**
     * The broker restarts: this log is closed (a clean shutdown writes its producer snapshot) and
     * opened again from the same directory (UnifiedLog.create recovers it), as a restarted broker's
     * LogManager does. `clean` false drops the producer snapshots first, so the producer state is
     * rebuilt from the log alone, as after a crash. The returned log replaces this one.
     */
    LeaderLog reopen(boolean clean) throws Exception;

    /** Deletes the log's directory. */
    @Override
    void close() throws Exception;

    /** A batch of `count` records; `leaderEpoch` is the appending leader's epoch (appendAsLeader's argument, the batch's partitionLeaderEpoch as a follower gets it). */
    record DataBatch(long producerId, short producerEpoch, int baseSequence, int count, boolean transactional, int leaderEpoch) {}

    record Marker(long producerId, short producerEpoch, int coordinatorEpoch, boolean commit, short transactionVersion, int leaderEpoch) {}

    record ProducerView(long producerId, short producerEpoch, int coordinatorEpoch, OptionalLong currentTxnFirstOffset, int lastSequence, long lastTimestamp) {}

    record VerificationView(long producerId, short producerEpoch, int lowestSequence, boolean supportsEpochBump) {}
}
