package eosfuzz.harness.coordinator;

import eosfuzz.harness.ManualTime;
import java.util.List;
import java.util.Map;

/**
 * A real TransactionCoordinator of one release with a real TransactionStateManager and
 * TransactionMarkerChannelManager, as the txnCoordinator service drives it: each adapter builds them
 * with its release's constructors and calls its release's handle* methods; the service says what to
 * call. Every callback of Kafka's is answered before the call returns (the stub ReplicaManager
 * answers appends at once), so each method returns Kafka's answer.
 */
public interface TxnCoordinatorDriver {
    interface Factory {
        TxnCoordinatorDriver create(ManualTime time, ManualScheduler scheduler, StubAnswers stubs, Config config) throws Exception;
    }

    record Config(int transactionalIdExpirationMs, int transactionMaxTimeoutMs, short finalizedTransactionVersion, int coordinatorEpoch,
            long firstProducerId) {}

    /** An answer of handleInitProducerId or handleEndTransaction (the callback's error, producer id and epoch). */
    record Answer(String error, long producerId, short producerEpoch) {}

    /** One WriteTxnMarkers entry generateRequests() produced, with the request's version. */
    record MarkerView(long producerId, short producerEpoch, int coordinatorEpoch, String result, List<String> partitions,
            int transactionVersion, int requestVersion) {}

    /** The metadata of an id, or null when the coordinator has none. */
    record Described(String transactionalId, TxnView view, String pendingState, boolean hasFailedEpochFence) {}

    /**
     * TransactionStateManager.putTransactionStateIfNotExists of a TransactionMetadata built from `init`
     * (what Kafka's TransactionCoordinatorTest does to start from a given state, e.g. an exhausted epoch).
     */
    void putTransactionState(TxnInit init);

    Answer initProducerId(String transactionalId, int transactionTimeoutMs, long producerId, short producerEpoch);

    /** handleAddPartitionsToTransaction: one error for every partition. */
    String addPartitions(String transactionalId, long producerId, short producerEpoch, List<Object> partitions, short clientTransactionVersion);

    /** handleVerifyPartitionsInTransaction: an error per partition. */
    Map<String, String> verifyPartitions(String transactionalId, long producerId, short producerEpoch, List<Object> partitions);

    Answer endTxn(String transactionalId, long producerId, short producerEpoch, boolean commit, short clientTransactionVersion);

    /** TransactionCoordinator.abortTimedOutTransactions, with a callback that records nothing. */
    void abortTimedOutTransactions();

    Described describe(String transactionalId);

    /** TransactionMarkerChannelManager.generateRequests(): what the send thread would send now. */
    List<MarkerView> drainMarkers();

    /** Every request drained and not answered yet gets a NONE response for each of its partitions; how many were answered. */
    int acknowledgeMarkers();
}
