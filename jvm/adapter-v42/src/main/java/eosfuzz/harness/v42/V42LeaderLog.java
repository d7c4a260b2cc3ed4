package eosfuzz.harness.v42;

import eosfuzz.harness.IdleScheduler;
import eosfuzz.harness.ManualTime;
import eosfuzz.harness.leader.LeaderLog;
import eosfuzz.harness.leader.LogDirectory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.storage.internals.log.AbortedTxn;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.LogOffsetMetadata;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.log.VerificationGuard;
import org.apache.kafka.storage.internals.log.VerificationStateEntry;
import org.apache.kafka.storage.log.metrics.BrokerTopicStats;

/**
 * Kafka 4.2's UnifiedLog (kafka-storage, Java) as LogTestUtils.createLog builds it: appendAsLeader
 * takes the WriteTxnMarkers request's transaction version (KIP-1228), and a data batch passes
 * TV_UNKNOWN as ReplicaManager's produce path does.
 */
final class V42LeaderLog implements LeaderLog {
    private final LogDirectory dir;
    private final ManualTime time;
    private final int producerIdExpirationMs;
    private final int maxTransactionTimeoutMs;
    private final UnifiedLog log;

    private V42LeaderLog(LogDirectory dir, ManualTime time, int producerIdExpirationMs, int maxTransactionTimeoutMs, UnifiedLog log) {
        this.dir = dir;
        this.time = time;
        this.producerIdExpirationMs = producerIdExpirationMs;
        this.maxTransactionTimeoutMs = maxTransactionTimeoutMs;
        this.log = log;
    }

    static LeaderLog create(ManualTime time, int producerIdExpirationMs, int maxTransactionTimeoutMs) throws Exception {
        LogDirectory dir = LogDirectory.create();
        try {
            return open(dir, time, producerIdExpirationMs, maxTransactionTimeoutMs, true);
        } catch (Exception e) {
            dir.close();
            throw e;
        }
    }

    /** The log in `dir`, recovered from what is there; `clean` is UnifiedLog's lastShutdownClean. */
    private static LeaderLog open(LogDirectory dir, ManualTime time, int producerIdExpirationMs, int maxTransactionTimeoutMs, boolean clean)
            throws Exception {
        UnifiedLog log = UnifiedLog.create(dir.partition(), new LogConfig(Map.of()), 0L, 0L, new IdleScheduler(), new BrokerTopicStats(), time,
                maxTransactionTimeoutMs, new ProducerStateManagerConfig(producerIdExpirationMs, true), Integer.MAX_VALUE,
                new LogDirFailureChannel(10), clean, Optional.empty());
        return new V42LeaderLog(dir, time, producerIdExpirationMs, maxTransactionTimeoutMs, log);
    }

    @Override
    public LeaderLog reopen(boolean clean) throws Exception {
        java.util.Set<String> before = dir.producerSnapshots();
        // LogManager.shutdown of this release, log by log: flush(true), then close. A crash does neither
        // (the close below only releases the files; the recovery on open rebuilds what a crash loses).
        if (clean) log.flush(true);
        log.close();
        if (!clean) dir.dropProducerSnapshotsExcept(before);
        return open(dir, time, producerIdExpirationMs, maxTransactionTimeoutMs, clean);
    }

    @Override
    public Object maybeStartTransactionVerification(long producerId, int sequence, short producerEpoch, boolean supportsEpochBump) {
        return log.maybeStartTransactionVerification(producerId, sequence, producerEpoch, supportsEpochBump);
    }

    @Override
    public Object sentinelGuard() {
        return VerificationGuard.SENTINEL;
    }

    @Override
    public Object unheldGuard() {
        return new VerificationGuard();
    }

    @Override
    public long[] appendDataAsLeader(DataBatch batch, String origin, Object guard, long timestampMs) throws Exception {
        LogAppendInfo info = log.appendAsLeader(data(batch, 0L, timestampMs), batch.leaderEpoch(), AppendOrigin.valueOf(origin),
                RequestLocal.noCaching(), (VerificationGuard) guard, TransactionVersion.TV_UNKNOWN);
        return new long[] {info.firstOffset(), info.lastOffset()};
    }

    @Override
    public void appendDataAsFollower(DataBatch batch, long baseOffset, long timestampMs) throws Exception {
        log.appendAsFollower(data(batch, baseOffset, timestampMs), batch.leaderEpoch());
    }

    @Override
    public long appendMarkerAsLeader(Marker marker, long timestampMs) throws Exception {
        LogAppendInfo info = log.appendAsLeader(marker(marker, 0L, timestampMs), marker.leaderEpoch(), AppendOrigin.COORDINATOR,
                RequestLocal.noCaching(), VerificationGuard.SENTINEL, marker.transactionVersion());
        return info.firstOffset();
    }

    @Override
    public void appendMarkerAsFollower(Marker marker, long baseOffset, long timestampMs) throws Exception {
        log.appendAsFollower(marker(marker, baseOffset, timestampMs), marker.leaderEpoch());
    }

    @Override
    public long appendPlainAsLeader(int leaderEpoch, long timestampMs) throws Exception {
        LogAppendInfo info = log.appendAsLeader(plain(0L, leaderEpoch, timestampMs), leaderEpoch, AppendOrigin.COORDINATOR,
                RequestLocal.noCaching(), VerificationGuard.SENTINEL, TransactionVersion.TV_UNKNOWN);
        return info.firstOffset();
    }

    @Override
    public void appendPlainAsFollower(int leaderEpoch, long baseOffset, long timestampMs) throws Exception {
        log.appendAsFollower(plain(baseOffset, leaderEpoch, timestampMs), leaderEpoch);
    }

    private static MemoryRecords data(DataBatch b, long baseOffset, long timestampMs) {
        SimpleRecord[] records = new SimpleRecord[b.count()];
        for (int i = 0; i < b.count(); i++) records[i] = new SimpleRecord(timestampMs, null, ("v" + i).getBytes(StandardCharsets.UTF_8));
        return b.transactional()
                ? MemoryRecords.withTransactionalRecords(baseOffset, Compression.NONE, b.producerId(), b.producerEpoch(), b.baseSequence(), b.leaderEpoch(), records)
                : MemoryRecords.withIdempotentRecords(baseOffset, Compression.NONE, b.producerId(), b.producerEpoch(), b.baseSequence(), b.leaderEpoch(), records);
    }

    private static MemoryRecords marker(Marker m, long baseOffset, long timestampMs) {
        EndTransactionMarker marker = new EndTransactionMarker(m.commit() ? ControlRecordType.COMMIT : ControlRecordType.ABORT, m.coordinatorEpoch());
        return MemoryRecords.withEndTransactionMarker(baseOffset, timestampMs, m.leaderEpoch(), m.producerId(), m.producerEpoch(), marker);
    }

    private static MemoryRecords plain(long baseOffset, int leaderEpoch, long timestampMs) {
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, leaderEpoch,
                new SimpleRecord(timestampMs, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public void updateHighWatermark(long offset) throws Exception {
        log.updateHighWatermark(offset);
    }

    @Override
    public void truncateTo(long offset) throws Exception {
        log.truncateTo(offset);
    }

    @Override
    public boolean maybeIncrementLogStartOffset(long offset) {
        return log.maybeIncrementLogStartOffset(offset, LogStartOffsetIncrementReason.ClientRecordDeletion);
    }

    @Override
    public void removeExpiredProducers(long nowMs) {
        log.removeExpiredProducers(nowMs);
    }

    @Override
    public long logEndOffset() {
        return log.logEndOffset();
    }

    @Override
    public long highWatermark() {
        return log.highWatermark();
    }

    @Override
    public long lastStableOffset() {
        return log.lastStableOffset();
    }

    @Override
    public OptionalLong firstUnstableOffset() {
        Optional<LogOffsetMetadata> first = log.producerStateManager().firstUnstableOffset();
        return first.isPresent() ? OptionalLong.of(first.get().messageOffset) : OptionalLong.empty();
    }

    @Override
    public List<long[]> abortedTransactions() {
        List<long[]> out = new ArrayList<>();
        for (AbortedTxn a : log.collectAbortedTransactions(0L, log.logEndOffset()))
            out.add(new long[] {a.producerId(), a.firstOffset(), a.lastOffset(), a.lastStableOffset()});
        return out;
    }

    @Override
    public Map<Long, ProducerView> producers() {
        Map<Long, ProducerView> out = new HashMap<>();
        for (Map.Entry<Long, ProducerStateEntry> e : log.producerStateManager().activeProducers().entrySet()) {
            ProducerStateEntry p = e.getValue();
            out.put(e.getKey(), new ProducerView(p.producerId(), p.producerEpoch(), p.coordinatorEpoch(), p.currentTxnFirstOffset(), p.lastSeq(), p.lastTimestamp()));
        }
        return out;
    }

    @Override
    public VerificationView verificationEntry(long producerId) {
        VerificationStateEntry v = log.producerStateManager().verificationStateEntry(producerId);
        return v == null ? null : new VerificationView(producerId, v.epoch(), v.lowestSequence(), v.supportsEpochBump());
    }

    @Override
    public void close() throws Exception {
        try {
            log.close();
        } finally {
            dir.close();
        }
    }
}
