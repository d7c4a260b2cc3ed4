package eosfuzz.harness.v40;

import eosfuzz.harness.coordinator.KafkaErrorAnswer;
import eosfuzz.harness.coordinator.TxnInit;
import eosfuzz.harness.coordinator.TxnMetadataMachine;
import eosfuzz.harness.coordinator.TxnNames;
import eosfuzz.harness.coordinator.TxnView;
import java.util.List;
import kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.common.protocol.Errors;
import kafka.coordinator.transaction.TransactionState;
import kafka.coordinator.transaction.TxnTransitMetadata;
import org.apache.kafka.server.common.TransactionVersion;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.util.Either;

/**
 * Kafka 4.0's TransactionMetadata: the Scala class of kafka_2.13 with Scala TransactionState case
 * objects (named "PrepareCommit", reported by their 4.1 enum names), a Scala case class transit and
 * previousProducerId for prevProducerId. prepareIncrementProducerEpoch answers Either[Errors,
 * TxnTransitMetadata]: a Left is reported as that error.
 */
final class V40TxnMetadata implements TxnMetadataMachine {
    private final TransactionMetadata m;
    private TxnTransitMetadata last;

    private V40TxnMetadata(TransactionMetadata m) {
        this.m = m;
    }

    static TxnMetadataMachine create(TxnInit i) {
        return new V40TxnMetadata(build(i));
    }

    /** The TransactionMetadata `i` describes (the txnCoordinator service starts from one too). */
    static TransactionMetadata build(TxnInit i) {
        return new TransactionMetadata(i.transactionalId(), i.producerId(), i.prevProducerId(), i.nextProducerId(),
                i.producerEpoch(), i.lastProducerEpoch(), i.txnTimeoutMs(), state(i.state()),
                CollectionConverters.asScala(TxnNames.partitions(i.topicPartitions())), i.txnStartTimestamp(), i.txnLastUpdateTimestamp(),
                TransactionVersion.fromFeatureLevel(i.clientTransactionVersion()));
    }

    private static TransactionState state(String enumName) {
        return TransactionState.fromName(TxnNames.scalaName(enumName)).get();
    }

    private TxnView keep(TxnTransitMetadata t) {
        last = t;
        return view(t);
    }

    static TxnView view(TxnTransitMetadata t) {
        return new TxnView(t.producerId(), t.prevProducerId(), t.nextProducerId(), t.producerEpoch(), t.lastProducerEpoch(), t.txnTimeoutMs(),
                TxnNames.enumName(t.txnState().name()), TxnNames.names(CollectionConverters.asJava(t.topicPartitions())), t.txnStartTimestamp(), t.txnLastUpdateTimestamp(),
                t.clientTransactionVersion().featureLevel());
    }

    static TxnView view(TransactionMetadata m) {
        return new TxnView(m.producerId(), m.previousProducerId(), m.nextProducerId(), m.producerEpoch(), m.lastProducerEpoch(), m.txnTimeoutMs(),
                TxnNames.enumName(m.state().name()), TxnNames.names(CollectionConverters.asJava(m.topicPartitions())), m.txnStartTimestamp(),
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
        return keep(m.prepareAbortOrCommit(state(newState), TransactionVersion.fromFeatureLevel(tv), nextProducerId,
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
        return m.pendingState().isDefined() ? TxnNames.enumName(m.pendingState().get().name()) : null;
    }

    @Override
    public boolean hasFailedEpochFence() {
        return m.hasFailedEpochFence();
    }
}
