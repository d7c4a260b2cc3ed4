package eosfuzz.harness.coordinator;

import java.util.List;

/**
 * One TransactionMetadata of one Kafka release, as the txnMetadata service drives it: 4.2 on, the Java
 * class of kafka-transaction-coordinator; before, the Scala class of kafka_2.13. Each prepare method
 * calls Kafka's method of that name, keeps the transit it returned as the one completeTransitionTo
 * completes with, and answers it. A method a release does not have in that form takes the arguments it
 * does have (3.9 has no transaction version: prepareAbortOrCommit(newState, updateTimestamp)). Every
 * decision is Kafka's.
 */
public interface TxnMetadataMachine {
    interface Factory {
        TxnMetadataMachine create(TxnInit init);
    }

    /** Thrown as a KafkaErrorAnswer where the release answers an Errors value. */
    TxnView prepareIncrementProducerEpoch(int newTxnTimeoutMs, Short expectedProducerEpoch, long updateTimestamp);

    TxnView prepareProducerIdRotation(long producerId, int newTxnTimeoutMs, long updateTimestamp, boolean recordLastEpoch);

    TxnView prepareAddPartitions(List<Object> partitions, long updateTimestamp, short clientTransactionVersion);

    TxnView prepareAbortOrCommit(String newState, short clientTransactionVersion, long nextProducerId, long updateTimestamp, boolean noPartitionAdded);

    TxnView prepareFenceProducerEpoch();

    TxnView prepareComplete(long updateTimestamp);

    TxnView prepareDead();

    /** completeTransitionTo(the last transit a prepare returned); false when there was none. */
    boolean completeTransitionTo();

    /** The pending state set to none, as TransactionStateManager does when a write fails. */
    void clearPendingState();

    TxnView view();

    String transactionalId();

    /** The pending state's protocol name, or null. */
    String pendingState();

    boolean hasFailedEpochFence();
}
