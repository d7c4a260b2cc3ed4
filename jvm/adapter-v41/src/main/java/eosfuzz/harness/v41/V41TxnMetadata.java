package eosfuzz.harness.v41;

import eosfuzz.harness.coordinator.KafkaErrorAnswer;
import eosfuzz.harness.coordinator.TxnInit;
import eosfuzz.harness.coordinator.TxnMetadataMachine;
import eosfuzz.harness.coordinator.TxnNames;
import eosfuzz.harness.coordinator.TxnView;
import java.util.List;
import kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.coordinator.transaction.TransactionState;
import org.apache.kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.util.Either;

/**
 * Kafka 4.1's TransactionMetadata: the Scala class of kafka_2.13 (mutable.Set partitions, Option
 * pending state), with 4.1's Java TransactionState and TxnTransitMetadata. prepareIncrementProducerEpoch
 * answers Either[Errors, TxnTransitMetadata]: a Left is reported as that error.
 */
final class V41TxnMetadata implements TxnMetadataMachine {
    private final TransactionMetadata m;
    private TxnTransitMetadata last;

    private V41TxnMetadata(TransactionMetadata m) {
        this.m = m;
    }

    static TxnMetadataMachine create(TxnInit i) {
        return new V41TxnMetadata(build(i));
    }

    /** The TransactionMetadata `i` describes (the txnCoordinator service starts from one too). */
    static TransactionMetadata build(TxnInit i) {
        return new TransactionMetadata(i.transactionalId(), i.producerId(), i.prevProducerId(), i.nextProducerId(),
                i.producerEpoch(), i.lastProducerEpoch(), i.txnTimeoutMs(), TransactionState.valueOf(i.state()),
                CollectionConverters.asScala(TxnNames.partitions(i.topicPartitions())), i.txnStartTimestamp(), i.txnLastUpdateTimestamp(),
                TransactionVersion.fromFeatureLevel(i.clientTransactionVersion()));
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
        return new TxnView(m.producerId(), m.prevProducerId(), m.nextProducerId(), m.producerEpoch(), m.lastProducerEpoch(), m.txnTimeoutMs(),
                m.state().name(), TxnNames.names(CollectionConverters.asJava(m.topicPartitions())), m.txnStartTimestamp(),
                m.txnLastUpdateTimestamp(), m.clientTransactionVersion().featureLevel());
    }

    @Override
    public TxnView prepareIncrementProducerEpoch(int newTxnTimeoutMs, Short expected, long updateTimestamp) {
        Option<Object> e = expected == null ? Option.empty() : Option.apply((Object) expected);
        Either<Errors, TxnTransitMetadata> r = m.prepareIncrementProducerEpoch(newTxnTimeoutMs, e, updateTimestamp);
        if (r.isLeft()) throw new KafkaErrorAnswer(r.left().get().name());
        return keep(r.right().get());
    }

    @Override
    public TxnView prepareProducerIdRotation(long producerId, int newTxnTimeoutMs, long updateTimestamp, boolean recordLastEpoch) {
        return keep(m.prepareProducerIdRotation(producerId, newTxnTimeoutMs, updateTimestamp, recordLastEpoch));
    }

    @Override
    public TxnView prepareAddPartitions(List<Object> partitions, long updateTimestamp, short tv) {
        return keep(m.prepareAddPartitions(CollectionConverters.asScala(TxnNames.partitions(partitions)).toSet(), updateTimestamp,
                TransactionVersion.fromFeatureLevel(tv)));
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
        m.pendingState_$eq(Option.empty());
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
        return m.pendingState().isDefined() ? m.pendingState().get().name() : null;
    }

    @Override
    public boolean hasFailedEpochFence() {
        return m.hasFailedEpochFence();
    }
}
