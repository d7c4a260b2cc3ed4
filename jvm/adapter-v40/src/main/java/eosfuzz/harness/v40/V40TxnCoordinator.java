package eosfuzz.harness.v40;

import eosfuzz.harness.ManualTime;
import eosfuzz.harness.coordinator.ManualScheduler;
import eosfuzz.harness.coordinator.StubAnswers;
import eosfuzz.harness.coordinator.TxnCoordinatorDriver;
import eosfuzz.harness.coordinator.TxnNames;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import kafka.coordinator.transaction.CoordinatorEpochAndTxnMetadata;
import kafka.coordinator.transaction.InitProducerIdResult;
import kafka.coordinator.transaction.TransactionConfig;
import kafka.coordinator.transaction.TransactionCoordinator;
import kafka.coordinator.transaction.TransactionMarkerChannelManager;
import kafka.coordinator.transaction.TransactionStateManager;
import kafka.server.KafkaConfig;
import kafka.server.ReplicaManager;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.NetworkClient;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.ProducerIdAndEpoch;
import org.apache.kafka.coordinator.transaction.ProducerIdManager;
import kafka.coordinator.transaction.TransactionMetadata;
import kafka.server.MetadataCache;
import org.apache.kafka.server.common.FinalizedFeatures;
import org.apache.kafka.server.common.MetadataVersion;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.server.util.RequestAndCompletionHandler;
import org.mockito.Mockito;
import org.mockito.MockMakers;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;
import scala.util.Either;

/**
 * Kafka 4.0's TransactionCoordinator (kafka_2.13) with its real TransactionStateManager and
 * TransactionMarkerChannelManager, built as TransactionCoordinatorConcurrencyTest builds them: a
 * stub ReplicaManager and MetadataCache (Mockito, StubAnswers), a producer id manager counting from
 * firstProducerId, the marker manager's send thread never started (the service calls its
 * generateRequests and answers its requests' completion handlers itself).
 */
final class V40TxnCoordinator implements TxnCoordinatorDriver {
    static final int BROKER_ID = 0;
    static final Node LEADER = new Node(1, "leader", 9092);

    private final TransactionCoordinator coordinator;
    private final TransactionStateManager stateManager;
    private final TransactionMarkerChannelManager markers;
    private final ManualTime time;
    private final List<RequestAndCompletionHandler> outstanding = new ArrayList<>();
    private int correlationId;

    private V40TxnCoordinator(TransactionCoordinator coordinator, TransactionStateManager stateManager, TransactionMarkerChannelManager markers,
            ManualTime time) {
        this.coordinator = coordinator;
        this.stateManager = stateManager;
        this.markers = markers;
        this.time = time;
    }

    static TxnCoordinatorDriver create(ManualTime time, ManualScheduler scheduler, StubAnswers stubs, Config config) {
        ReplicaManager replicaManager = Mockito.mock(ReplicaManager.class,
                Mockito.withSettings().mockMaker(MockMakers.SUBCLASS).defaultAnswer(stubs.replicaManager(Map.of())));
        FinalizedFeatures features = new FinalizedFeatures(MetadataVersion.latestProduction(),
                Map.of(TransactionVersion.FEATURE_NAME, config.finalizedTransactionVersion()), 0L, true);
        MetadataCache metadataCache = Mockito.mock(MetadataCache.class, Mockito.withSettings().mockMaker(MockMakers.SUBCLASS).defaultAnswer(inv -> {
            switch (inv.getMethod().getName()) {
                case "features": return features;
                case "metadataVersion": return MetadataVersion.latestProduction();
                case "getPartitionLeaderEndpoint": return Option.apply(LEADER);
                default: return StubAnswers.empty(inv);
            }
        }));
        long[] nextProducerId = {config.firstProducerId()};
        ProducerIdManager producerIds = () -> nextProducerId[0]++;
        TransactionConfig txnConfig = new TransactionConfig(config.transactionalIdExpirationMs(), config.transactionMaxTimeoutMs(), 1, (short) 1,
                100 * 1024 * 1024, 5 * 1024 * 1024, 1, 10_000, 3_600_000, 30_000);
        TransactionStateManager stateManager = new TransactionStateManager(BROKER_ID, scheduler, replicaManager, metadataCache, txnConfig, time,
                new Metrics());
        TransactionMarkerChannelManager markers = new TransactionMarkerChannelManager(kafkaConfig(), metadataCache,
                Mockito.mock(NetworkClient.class, Mockito.withSettings().mockMaker(MockMakers.SUBCLASS)), stateManager, time);
        TransactionCoordinator coordinator = new TransactionCoordinator(txnConfig, scheduler, () -> producerIds, stateManager, markers, time,
                new LogContext());
        stateManager.startup(() -> 1, false);
        coordinator.onElection(0, config.coordinatorEpoch());
        scheduler.runDue();
        return new V40TxnCoordinator(coordinator, stateManager, markers, time);
    }

    /** Built once: KafkaConfig.fromProps parses the whole config definition, the costliest step of a fresh coordinator. */
    private static KafkaConfig kafkaConfig;

    static synchronized KafkaConfig kafkaConfig() {
        if (kafkaConfig == null) kafkaConfig = buildKafkaConfig();
        return kafkaConfig;
    }

    private static KafkaConfig buildKafkaConfig() {
        Properties p = new Properties();
        p.put("process.roles", "broker");
        p.put("node.id", String.valueOf(BROKER_ID));
        p.put("controller.quorum.bootstrap.servers", "localhost:9093");
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listeners", "PLAINTEXT://localhost:9092");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        return KafkaConfig.fromProps(p);
    }

    @Override
    public void putTransactionState(eosfuzz.harness.coordinator.TxnInit init) {
        stateManager.putTransactionStateIfNotExists(V40TxnMetadata.build(init));
    }

    @Override
    public Answer initProducerId(String transactionalId, int transactionTimeoutMs, long producerId, short producerEpoch) {
        Answer[] out = {null};
        Option<ProducerIdAndEpoch> expected = producerId == -1 ? Option.empty() : Option.apply(new ProducerIdAndEpoch(producerId, producerEpoch));
        coordinator.handleInitProducerId(transactionalId, transactionTimeoutMs, expected, (InitProducerIdResult r) -> {
            out[0] = new Answer(r.error().name(), r.producerId(), r.producerEpoch());
            return BoxedUnit.UNIT;
        }, RequestLocal.noCaching());
        return out[0];
    }

    @Override
    public String addPartitions(String transactionalId, long producerId, short producerEpoch, List<Object> partitions, short tv) {
        String[] out = {null};
        coordinator.handleAddPartitionsToTransaction(transactionalId, producerId, producerEpoch,
                CollectionConverters.asScala(TxnNames.partitions(partitions)), (Errors e) -> {
            out[0] = e.name();
            return BoxedUnit.UNIT;
        }, TransactionVersion.fromFeatureLevel(tv), RequestLocal.noCaching());
        return out[0];
    }

    @Override
    public Map<String, String> verifyPartitions(String transactionalId, long producerId, short producerEpoch, List<Object> partitions) {
        Map<String, String> out = new HashMap<>();
        coordinator.handleVerifyPartitionsInTransaction(transactionalId, producerId, producerEpoch,
                CollectionConverters.asScala(TxnNames.partitions(partitions)),
                (AddPartitionsToTxnResponseData.AddPartitionsToTxnResult r) -> {
                    AddPartitionsToTxnResponse.errorsForTransaction(r.topicResults())
                            .forEach((tp, e) -> out.put(tp.topic() + "-" + tp.partition(), e.name()));
                    return BoxedUnit.UNIT;
                });
        return out;
    }

    @Override
    public Answer endTxn(String transactionalId, long producerId, short producerEpoch, boolean commit, short tv) {
        Answer[] out = {null};
        coordinator.handleEndTransaction(transactionalId, producerId, producerEpoch, commit ? TransactionResult.COMMIT : TransactionResult.ABORT,
                TransactionVersion.fromFeatureLevel(tv), (Errors e, Object pid, Object epoch) -> {
                    out[0] = new Answer(e.name(), (Long) pid, (Short) epoch);
                    return BoxedUnit.UNIT;
                }, RequestLocal.noCaching());
        return out[0];
    }

    @Override
    public void abortTimedOutTransactions() {
        coordinator.abortTimedOutTransactions(id -> (Errors e, Object pid, Object epoch) -> BoxedUnit.UNIT);
    }

    @Override
    public Described describe(String transactionalId) {
        Either<Errors, Option<CoordinatorEpochAndTxnMetadata>> state = stateManager.getTransactionState(transactionalId);
        if (state.isLeft() || state.right().get().isEmpty()) return null;
        TransactionMetadata m = state.right().get().get().transactionMetadata();
        return new Described(m.transactionalId(), V40TxnMetadata.view(m), m.pendingState().isDefined() ? TxnNames.enumName(m.pendingState().get().name()) : null,
                m.hasFailedEpochFence());
    }

    @Override
    public List<MarkerView> drainMarkers() {
        List<MarkerView> out = new ArrayList<>();
        for (RequestAndCompletionHandler r : markers.generateRequests()) {
            WriteTxnMarkersRequest.Builder builder = (WriteTxnMarkersRequest.Builder) r.request;
            short version = builder.latestAllowedVersion();
            for (WriteTxnMarkersRequest.TxnMarkerEntry e : builder.build(version).markers())
                // 4.0's marker entry has no transaction version (KIP-1228 is 4.2): reported as 0, what a v1 request means.
                out.add(new MarkerView(e.producerId(), e.producerEpoch(), e.coordinatorEpoch(), e.transactionResult().name(),
                        TxnNames.names(e.partitions()), 0, version));
            outstanding.add(r);
        }
        return out;
    }

    @Override
    public int acknowledgeMarkers() {
        List<RequestAndCompletionHandler> answering = new ArrayList<>(outstanding);
        outstanding.clear();
        for (RequestAndCompletionHandler r : answering) {
            WriteTxnMarkersRequest.Builder builder = (WriteTxnMarkersRequest.Builder) r.request;
            short version = builder.latestAllowedVersion();
            Map<Long, Map<TopicPartition, Errors>> errors = new LinkedHashMap<>();
            for (WriteTxnMarkersRequest.TxnMarkerEntry e : builder.build(version).markers())
                for (TopicPartition tp : e.partitions()) errors.computeIfAbsent(e.producerId(), k -> new LinkedHashMap<>()).put(tp, Errors.NONE);
            RequestHeader header = new RequestHeader(ApiKeys.WRITE_TXN_MARKERS, version, "eosfuzz-harness", ++correlationId);
            r.handler.onComplete(new ClientResponse(header, r.handler, String.valueOf(r.destination.id()), time.milliseconds(), time.milliseconds(),
                    false, null, null, new WriteTxnMarkersResponse(errors)));
        }
        return answering.size();
    }
}
