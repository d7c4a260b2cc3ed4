package eosfuzz.harness.client;

import java.util.List;
import java.util.concurrent.Future;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * One transactional KafkaProducer's internals of a Kafka release, as its own TransactionManagerTest
 * builds them: a real TransactionManager, RecordAccumulator and Sender over a ScriptedNetwork (one
 * broker, node 0, that is the transaction coordinator, the group coordinator and the leader of every
 * partition). Each adapter (jvm/adapter-vNN) implements it with its release's constructors and
 * response classes; TransactionManagerService drives it the same way for every release.
 *
 * The application's calls are KafkaProducer's: each does what KafkaProducer does around the
 * TransactionManager call, and nothing blocks (the harness runs the Sender itself, one loop at a time).
 */
public interface TransactionalClient extends AutoCloseable {
    /** The broker the Sender talks to. */
    ScriptedNetwork network();

    /** KafkaProducer.initTransactions, first half: TransactionManager.initializeTransactions. Its TransactionalRequestResult. */
    Object initTransactions();

    /**
     * KafkaProducer.initTransactions once `result` is done: its wait returns (TransactionalRequestResult.await,
     * which acknowledges the result), then maybeUpdateTransactionV2Enabled(true) (from 4.0; nothing before).
     */
    void initTransactionsDone(Object result);

    void beginTransaction();

    /** KafkaProducer.send of one record to `topic`-`partition`: RecordAccumulator.append, then maybeAddPartition. The record's future. */
    Future<?> send(String topic, int partition) throws Exception;

    /** KafkaProducer.sendOffsetsToTransaction of one input partition's offset for a consumer group. Its TransactionalRequestResult. */
    Object sendOffsetsToTransaction(String topic, int partition, long offset, String groupId, int generationId, String memberId);

    /** KafkaProducer.commitTransaction, first half: TransactionManager.beginCommit. Its TransactionalRequestResult. */
    Object beginCommit();

    /** KafkaProducer.abortTransaction, first half: TransactionManager.beginAbort. Its TransactionalRequestResult. */
    Object beginAbort();

    /** One loop of the Sender (Sender.runOnce), on the kind of thread the release's Sender runs on. */
    void runOnce() throws Exception;

    /**
     * The broker's answer to `request` with `error` (NONE: success). A successful answer carries
     * `producerId` and `producerEpoch` (InitProducerId, and EndTxn from v5), `baseOffset` (Produce)
     * and node 0 (FindCoordinator).
     */
    AbstractResponse response(AbstractRequest request, Errors error, long producerId, short producerEpoch, long baseOffset);

    // ------------------------------------------------------------------ read back

    /** TransactionManager's State, by its enum name. */
    String state();

    /** The exception TransactionManager keeps (lastError), or null. */
    RuntimeException lastError();

    /** The client-side epoch bump flag: clientSideEpochBumpRequired (4.0+), epochBumpRequired (3.x). */
    boolean epochBumpRequired();

    /** isTransactionV2Enabled (always false before 4.0, which has no TV2). */
    boolean transactionV2Enabled();

    /** The TxnRequestHandlers in TransactionManager's queue (pendingRequests), in no particular order. */
    List<Object> queuedHandlers();
}
