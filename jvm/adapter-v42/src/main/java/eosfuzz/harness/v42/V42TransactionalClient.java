package eosfuzz.harness.v42;

import eosfuzz.harness.ManualTime;
import eosfuzz.harness.client.Internals;
import eosfuzz.harness.client.ScriptedNetwork;
import eosfuzz.harness.client.SenderLoop;
import eosfuzz.harness.client.TransactionalClient;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.NodeApiVersions;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.internals.BufferPool;
import org.apache.kafka.clients.producer.internals.ProducerMetadata;
import org.apache.kafka.clients.producer.internals.RecordAccumulator;
import org.apache.kafka.clients.producer.internals.Sender;
import org.apache.kafka.clients.producer.internals.SenderMetricsRegistry;
import org.apache.kafka.clients.producer.internals.TransactionManager;
import org.apache.kafka.clients.producer.internals.TransactionalRequestResult;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.FinalizedFeatureKey;
import org.apache.kafka.common.message.ApiVersionsResponseData.SupportedFeatureKey;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.utils.LogContext;

/**
 * Kafka 4.2's producer internals as TransactionManagerTest builds them (initializeTransactionManager):
 * a TransactionManager over ApiVersions whose node 0 finalizes the cluster's transaction.version, a
 * RecordAccumulator and a Sender over the harness's ScriptedNetwork. The Sender loop runs on a
 * Sender.SenderThread, as KafkaProducer's I/O thread does, so that an invalid transition poisons the
 * TransactionManager as it would there (shouldPoisonStateOnInvalidTransition).
 */
final class V42TransactionalClient implements TransactionalClient {
    private static final String TRANSACTIONAL_ID = "eosfuzz-txn";
    private static final Node NODE = new Node(0, "localhost", 9092);
    private static final Uuid DATA_TOPIC_ID = new Uuid(0x656f7366757a7aL, 1L);
    private static final Method RUN_ONCE;
    /** The producer's I/O thread: a Sender.SenderThread, as KafkaProducer makes it. */
    private static final SenderLoop LOOP = new SenderLoop(body -> new Sender.SenderThread("eosfuzz-sender", body, true));

    static {
        try {
            RUN_ONCE = Sender.class.getDeclaredMethod("runOnce");
            RUN_ONCE.setAccessible(true);
        } catch (NoSuchMethodException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final ManualTime time;
    private final Metrics metrics;
    private final TransactionManager tm;
    private final ProducerMetadata metadata;
    private final RecordAccumulator accumulator;
    private final Sender sender;
    private final ScriptedNetwork network;

    private V42TransactionalClient(ManualTime time, int transactionVersion) {
        this.time = time;
        LogContext logContext = new LogContext("[eosfuzz] ");
        ApiVersions apiVersions = new ApiVersions();
        apiVersions.update(NODE.idString(), nodeApiVersions(transactionVersion));
        this.metrics = new Metrics(time);
        this.tm = new TransactionManager(logContext, TRANSACTIONAL_ID, 60_000, 100L, apiVersions, false);
        this.metadata = new ProducerMetadata(100L, 1_000L, Long.MAX_VALUE, Long.MAX_VALUE, logContext, new ClusterResourceListeners(), time);
        metadata.add("eosfuzz", time.milliseconds());
        metadata.updateWithCurrentRequestVersion(metadataResponse(), false, time.milliseconds());
        this.accumulator = new RecordAccumulator(logContext, 16 * 1024, Compression.NONE, 0, 100L, 1_000L, 120_000, metrics,
                "producer-metrics", time, tm, new BufferPool(1024 * 1024, 16 * 1024, metrics, time, "producer-metrics"));
        this.network = new ScriptedNetwork(time, NODE, apiVersions);
        this.sender = new Sender(logContext, network, metadata, accumulator, false, 1024 * 1024, (short) -1, Integer.MAX_VALUE,
                new SenderMetricsRegistry(metrics), time, 30_000, 100L, tm);
    }

    static TransactionalClient create(ManualTime time, int transactionVersion) {
        return new V42TransactionalClient(time, transactionVersion);
    }

    /**
     * What a 4.2 broker answers ApiVersions with: every client API at its latest version, except
     * that without TV2 Produce stops at v11, TxnOffsetCommit at v4 and EndTxn at v4 (the versions
     * before KIP-890 part 2); and the finalized transaction.version.
     */
    private static NodeApiVersions nodeApiVersions(int transactionVersion) {
        List<ApiVersion> versions = new ArrayList<>();
        for (ApiKeys key : ApiKeys.clientApis()) {
            short max = key.latestVersion();
            if (transactionVersion < 2 && key == ApiKeys.PRODUCE) max = 11;
            if (transactionVersion < 2 && (key == ApiKeys.TXN_OFFSET_COMMIT || key == ApiKeys.END_TXN)) max = 4;
            versions.add(new ApiVersion().setApiKey(key.id).setMinVersion(key.oldestVersion()).setMaxVersion(max));
        }
        List<SupportedFeatureKey> supported = List.of(new SupportedFeatureKey().setName("transaction.version").setMinVersion((short) 0).setMaxVersion((short) 2));
        List<FinalizedFeatureKey> finalized = transactionVersion == 0 ? List.of()
                : List.of(new FinalizedFeatureKey().setName("transaction.version")
                        .setMinVersionLevel((short) transactionVersion).setMaxVersionLevel((short) transactionVersion));
        return new NodeApiVersions(versions, supported, finalized, 0L);
    }

    /** Node 0 leads partition 0 of the data topic. */
    private static MetadataResponse metadataResponse() {
        MetadataResponseData data = new MetadataResponseData();
        data.brokers().add(new MetadataResponseData.MetadataResponseBroker().setNodeId(NODE.id()).setHost(NODE.host()).setPort(NODE.port()));
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setName("eosfuzz").setTopicId(DATA_TOPIC_ID).setErrorCode(Errors.NONE.code());
        topic.partitions().add(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0).setLeaderId(NODE.id())
                .setLeaderEpoch(0).setReplicaNodes(List.of(NODE.id())).setIsrNodes(List.of(NODE.id())).setErrorCode(Errors.NONE.code()));
        data.topics().add(topic);
        data.setClusterId("eosfuzz").setControllerId(NODE.id());
        return new MetadataResponse(data, ApiKeys.METADATA.latestVersion());
    }

    @Override
    public ScriptedNetwork network() {
        return network;
    }

    @Override
    public Object initTransactions() {
        return tm.initializeTransactions(false);
    }

    @Override
    public void initTransactionsDone(Object result) {
        ((TransactionalRequestResult) result).await(0, TimeUnit.MILLISECONDS);
        tm.maybeUpdateTransactionV2Enabled(true);
    }

    @Override
    public void beginTransaction() {
        tm.beginTransaction();
    }

    @Override
    public Future<?> send(String topic, int partition) throws Exception {
        long now = time.milliseconds();
        Future<?> future = accumulator.append(topic, partition, now, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8),
                Record.EMPTY_HEADERS, null, 1_000L, now, metadata.fetch()).future;
        tm.maybeAddPartition(new TopicPartition(topic, partition));
        return future;
    }

    @Override
    public Object sendOffsetsToTransaction(String topic, int partition, long offset, String groupId, int generationId, String memberId) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        offsets.put(new TopicPartition(topic, partition), new OffsetAndMetadata(offset));
        return tm.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(groupId, generationId, memberId, Optional.empty()));
    }

    @Override
    public Object beginCommit() {
        return tm.beginCommit();
    }

    @Override
    public Object beginAbort() {
        return tm.beginAbort();
    }

    @Override
    public void runOnce() throws Exception {
        LOOP.run(() -> {
            try {
                RUN_ONCE.invoke(sender);
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof Exception cause) throw cause;
                throw e;
            }
        });
    }

    @Override
    public AbstractResponse response(AbstractRequest request, Errors error, long producerId, short producerEpoch, long baseOffset) {
        boolean ok = error == Errors.NONE;
        AbstractResponse response = switch (request.apiKey()) {
            case FIND_COORDINATOR -> {
                FindCoordinatorRequest r = (FindCoordinatorRequest) request;
                String key = r.data().coordinatorKeys().isEmpty() ? r.data().key() : r.data().coordinatorKeys().get(0);
                yield FindCoordinatorResponse.prepareResponse(error, key, ok ? NODE : Node.noNode());
            }
            case INIT_PRODUCER_ID -> new InitProducerIdResponse(new InitProducerIdResponseData().setErrorCode(error.code())
                    .setProducerId(ok ? producerId : RecordBatch.NO_PRODUCER_ID).setProducerEpoch(ok ? producerEpoch : RecordBatch.NO_PRODUCER_EPOCH));
            case ADD_PARTITIONS_TO_TXN -> {
                Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
                for (TopicPartition tp : AddPartitionsToTxnRequest.getPartitions(((AddPartitionsToTxnRequest) request).data().v3AndBelowTopics()))
                    errors.put(tp, error);
                yield new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData().setResultsByTopicV3AndBelow(
                        AddPartitionsToTxnResponse.resultForTransaction(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID, errors).topicResults()));
            }
            case ADD_OFFSETS_TO_TXN -> new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData().setErrorCode(error.code()));
            case TXN_OFFSET_COMMIT -> {
                Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
                for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic t : ((TxnOffsetCommitRequest) request).data().topics())
                    for (TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition p : t.partitions())
                        errors.put(new TopicPartition(t.name(), p.partitionIndex()), error);
                yield new TxnOffsetCommitResponse(0, errors);
            }
            case END_TXN -> new EndTxnResponse(new EndTxnResponseData().setErrorCode(error.code())
                    .setProducerId(ok ? producerId : RecordBatch.NO_PRODUCER_ID).setProducerEpoch(ok ? producerEpoch : RecordBatch.NO_PRODUCER_EPOCH));
            case PRODUCE -> {
                Map<TopicIdPartition, ProduceResponse.PartitionResponse> partitions = new LinkedHashMap<>();
                for (ProduceRequestData.TopicProduceData t : ((ProduceRequest) request).data().topicData())
                    for (ProduceRequestData.PartitionProduceData p : t.partitionData())
                        partitions.put(new TopicIdPartition(DATA_TOPIC_ID, p.index(), "eosfuzz"),
                                new ProduceResponse.PartitionResponse(error, ok ? baseOffset : -1L, RecordBatch.NO_TIMESTAMP, 0L));
                yield new ProduceResponse(partitions, 0);
            }
            default -> throw new IllegalStateException("no answer for " + request.apiKey());
        };
        // What the client reads is what the wire carries at the request's version (EndTxn before v5 has no epoch).
        return AbstractResponse.parseResponse(request.apiKey(), MessageUtil.toByteBufferAccessor(response.data(), request.version()), request.version());
    }

    @Override
    public String state() {
        return ((Enum<?>) Internals.field(tm, TransactionManager.class, "currentState")).name();
    }

    @Override
    public RuntimeException lastError() {
        return (RuntimeException) Internals.field(tm, TransactionManager.class, "lastError");
    }

    @Override
    public boolean epochBumpRequired() {
        return (Boolean) Internals.field(tm, TransactionManager.class, "clientSideEpochBumpRequired");
    }

    @Override
    public boolean transactionV2Enabled() {
        return tm.isTransactionV2Enabled();
    }

    @Override
    public List<Object> queuedHandlers() {
        return Internals.queued(Internals.field(tm, TransactionManager.class, "pendingRequests"));
    }

    @Override
    public void close() {
        metrics.close();
    }
}
