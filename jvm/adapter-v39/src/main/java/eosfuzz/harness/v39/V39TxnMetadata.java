package eosfuzz.harness.v39;

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
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.util.Either;

/**
 * Kafka 3.9's TransactionMetadata: the Scala class before KIP-890 part 2. It has no transaction
 * version (reported as 0; the ops' versions are not passed), no nextProducerId (reported as -1), and
 * calls prevProducerId lastProducerId. prepareAbortOrCommit takes (newState, updateTimestamp) only: the
 * next producer id and noPartitionAdded of the op have no counterpart. prepareIncrementProducerEpoch
 * answers Either[Errors, TxnTransitMetadata]: a Left is reported as that error.
 */
final class V39TxnMetadata implements TxnMetadataMachine {
    private final TransactionMetadata m;
    private TxnTransitMetadata last;

    private V39TxnMetadata(TransactionMetadata m) {
        this.m = m;
    }

    static TxnMetadataMachine create(TxnInit i) {
        return new V39TxnMetadata(build(i));
    }

    /** The TransactionMetadata `i` describes (the txnCoordinator service starts from one too). */
    static TransactionMetadata build(TxnInit i) {
        return new TransactionMetadata(i.transactionalId(), i.producerId(), i.prevProducerId(),
                i.producerEpoch(), i.lastProducerEpoch(), i.txnTimeoutMs(), state(i.state()),
                CollectionConverters.asScala(TxnNames.partitions(i.topicPartitions())), i.txnStartTimestamp(), i.txnLastUpdateTimestamp());
    }

    private static TransactionState state(String enumName) {
        return TransactionState.fromName(TxnNames.scalaName(enumName)).get();
    }

    private TxnView keep(TxnTransitMetadata t) {
        last = t;
        return view(t);
    }

    static TxnView view(TxnTransitMetadata t) {
        return new TxnView(t.producerId(), t.lastProducerId(), -1L, t.producerEpoch(), t.lastProducerEpoch(), t.txnTimeoutMs(),
                TxnNames.enumName(t.txnState().name()), TxnNames.names(CollectionConverters.asJava(t.topicPartitions())), t.txnStartTimestamp(), t.txnLastUpdateTimestamp(), 0);
    }

    static TxnView view(TransactionMetadata m) {
        return new TxnView(m.producerId(), m.lastProducerId(), -1L, m.producerEpoch(), m.lastProducerEpoch(), m.txnTimeoutMs(),
                TxnNames.enumName(m.state().name()), TxnNames.names(CollectionConverters.asJava(m.topicPartitions())), m.txnStartTimestamp(),
                m.txnLastUpdateTimestamp(), 0);
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
        return keep(m.prepareAddPartitions(CollectionConverters.asScala(TxnNames.partitions(partitions)).toSet(), updateTimestamp));
    }

    @Override
    public TxnView prepareAbortOrCommit(String newState, short tv, long nextProducerId, long updateTimestamp, boolean noPartitionAdded) {
        return keep(m.prepareAbortOrCommit(state(newState), updateTimestamp));
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
