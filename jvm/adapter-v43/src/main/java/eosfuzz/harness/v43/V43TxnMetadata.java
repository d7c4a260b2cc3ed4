package eosfuzz.harness.v43;

import eosfuzz.harness.coordinator.TxnInit;
import eosfuzz.harness.coordinator.TxnMetadataMachine;
import eosfuzz.harness.coordinator.TxnNames;
import eosfuzz.harness.coordinator.TxnView;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.coordinator.transaction.TransactionState;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;

/** Kafka 4.3's TransactionMetadata: the Java class of kafka-transaction-coordinator, as in 4.2. */
final class V43TxnMetadata implements TxnMetadataMachine {
    private final TransactionMetadata m;
    private TxnTransitMetadata last;

    private V43TxnMetadata(TransactionMetadata m) {
        this.m = m;
    }

    static TxnMetadataMachine create(TxnInit i) {
        return new V43TxnMetadata(build(i));
    }

    static TransactionMetadata build(TxnInit i) {
        return (new TransactionMetadata(i.transactionalId(), i.producerId(), i.prevProducerId(), i.nextProducerId(),
                i.producerEpoch(), i.lastProducerEpoch(), i.txnTimeoutMs(), TransactionState.valueOf(i.state()),
                TxnNames.partitions(i.topicPartitions()), i.txnStartTimestamp(), i.txnLastUpdateTimestamp(),
                TransactionVersion.fromFeatureLevel(i.clientTransactionVersion())));
    }

    private TxnView keep(TxnTransitMetadata t) {
        last = t;
        return view(t);
    }

    static TxnView view(TxnTransitMetadata t) {
        return new TxnView(t.producerId(), t.prevProducerId(), t.nextProducerId(), t.producerEpoch(), t.lastProducerEpoch(), t.txnTimeoutMs(),
                t.txnState().name(), TxnNames.names(t.topicPartitions()), t.txnStartTimestamp(), t.txnLastUpdateTimestamp(),
                t.clientTransactionVersion().featureLevel());
    }

    static TxnView view(TransactionMetadata m) {
        return new TxnView(m.producerId(), m.prevProducerId(), nextProducerId(m), m.producerEpoch(), m.lastProducerEpoch(), m.txnTimeoutMs(),
                m.state().name(), TxnNames.names(m.topicPartitions()), m.txnStartTimestamp(), m.txnLastUpdateTimestamp(),
                m.clientTransactionVersion().featureLevel());
    }

    /** 4.2 to 4.4 have no getter for nextProducerId: prepareNoTransit copies it without touching the pending state. */
    private static long nextProducerId(TransactionMetadata m) {
        return m.prepareNoTransit().nextProducerId();
    }

    @Override
    public TxnView prepareIncrementProducerEpoch(int newTxnTimeoutMs, Short expected, long updateTimestamp) {
        return keep(m.prepareIncrementProducerEpoch(newTxnTimeoutMs, Optional.ofNullable(expected), updateTimestamp));
    }

    @Override
    public TxnView prepareProducerIdRotation(long producerId, int newTxnTimeoutMs, long updateTimestamp, boolean recordLastEpoch) {
        return keep(m.prepareProducerIdRotation(producerId, newTxnTimeoutMs, updateTimestamp, recordLastEpoch));
    }

    @Override
    public TxnView prepareAddPartitions(List<Object> partitions, long updateTimestamp, short tv) {
        return keep(m.prepareAddPartitions(TxnNames.partitions(partitions), updateTimestamp, TransactionVersion.fromFeatureLevel(tv)));
    }

    @Override
    public TxnView prepareAbortOrCommit(String newState, short tv, long nextProducerId, long updateTimestamp, boolean noPartitionAdded) {
        return keep(m.prepareAbortOrCommit(TransactionState.valueOf(newState), TransactionVersion.fromFeatureLevel(tv), nextProducerId,
                updateTimestamp, noPartitionAdded));
    }

    @Override
    public TxnView prepareFenceProducerEpoch() {
        return keep(m.prepareFenceProducerEpoch());
    }

    @Override
    public TxnView prepareComplete(long updateTimestamp) {
        return keep(m.prepareComplete(updateTimestamp));
    }

    @Override
    public TxnView prepareDead() {
        return keep(m.prepareDead());
    }

    @Override
    public boolean completeTransitionTo() {
        if (last == null) return false;
        m.completeTransitionTo(last);
        return true;
    }

    @Override
    public void clearPendingState() {
        m.pendingState(Optional.empty());
    }

    @Override
    public TxnView view() {
        return view(m);
    }

    @Override
    public String transactionalId() {
        return m.transactionalId();
    }

    @Override
    public String pendingState() {
        return m.pendingState().map(TransactionState::name).orElse(null);
    }

    @Override
    public boolean hasFailedEpochFence() {
        return m.hasFailedEpochFence();
    }
}
