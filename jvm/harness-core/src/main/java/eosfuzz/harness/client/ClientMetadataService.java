package eosfuzz.harness.client;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.Service;
import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.Metadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.ClusterResourceListeners;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * KIP-951's client side: a release's own {@link Metadata}, holding what one Metadata response said
 * of partition eosfuzz-0 (`cached`: its leader id and epoch, or null: the partition is not in the
 * response, only eosfuzz-1 is), brokers 0, 1 and 2 alive; then
 * {@link Metadata#updatePartitionLeadership} with `incoming` for eosfuzz-0, as Sender.handleProduceResponse
 * and AbstractFetch.handleFetchSuccess call it, with the response's NodeEndpoints `nodeEndpoints`
 * (broker ids). The reply: `updated` (the partition is in the returned set) and the leader id and
 * epoch Metadata.currentLeader gives after it (-1: none).
 */
public final class ClientMetadataService implements Service {
    private static final String TOPIC = "eosfuzz";

    @Override
    public Map<String, Object> handle(Fields request) throws Exception {
        Metadata metadata = newMetadata();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        Fields cached = request.raw("cached") == null ? null : Fields.of(request.raw("cached"), "cached");
        Fields incoming = Fields.of(request.raw("incoming"), "incoming");

        List<Node> brokers = List.of(node(0), node(1), node(2));
        MetadataResponseData.MetadataResponsePartition partition = new MetadataResponseData.MetadataResponsePartition()
                .setErrorCode(Errors.NONE.code())
                .setPartitionIndex(cached == null ? 1 : 0)
                .setLeaderId(cached == null ? 0 : cached.getInt("leaderId"))
                .setLeaderEpoch(cached == null ? 0 : cached.getInt("leaderEpoch"))
                .setReplicaNodes(List.of(0, 1, 2))
                .setIsrNodes(List.of(0, 1, 2))
                .setOfflineReplicas(List.of());
        MetadataResponseData.MetadataResponseTopic topic = new MetadataResponseData.MetadataResponseTopic()
                .setErrorCode(Errors.NONE.code())
                .setName(TOPIC)
                .setIsInternal(false);
        topic.partitions().add(partition);
        List<MetadataResponseData.MetadataResponseTopic> topics = new ArrayList<>();
        topics.add(topic);
        MetadataResponse response = MetadataResponse.prepareResponse(
                ApiKeys.METADATA.latestVersion(), 0, brokers, "eosfuzz-cluster", 0, topics,
                MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED);
        metadata.updateWithCurrentRequestVersion(response, false, 0L);

        Map<TopicPartition, Metadata.LeaderIdAndEpoch> leaders = new LinkedHashMap<>();
        int leaderId = incoming.getInt("leaderId");
        int leaderEpoch = incoming.getInt("leaderEpoch");
        // What the Sender and AbstractFetch put in the map: their own test drops -1 before, so a -1
        // here reaches Metadata's first test only when a caller passes it, as Optional.empty.
        leaders.put(tp, new Metadata.LeaderIdAndEpoch(
                leaderId == -1 ? Optional.empty() : Optional.of(leaderId),
                leaderEpoch == -1 ? Optional.empty() : Optional.of(leaderEpoch)));
        List<Node> endpoints = new ArrayList<>();
        for (Object id : request.getList("nodeEndpoints")) endpoints.add(node(((Number) id).intValue()));
        Set<TopicPartition> updated = metadata.updatePartitionLeadership(leaders, endpoints);

        Metadata.LeaderAndEpoch after = metadata.currentLeader(tp);
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("updated", updated.contains(tp));
        reply.put("leaderId", after.leader.map(Node::id).orElse(-1));
        reply.put("leaderEpoch", after.epoch.orElse(-1));
        return reply;
    }

    private static Node node(int id) {
        return new Node(id, "broker-" + id, 9092);
    }

    /** new Metadata(retry.backoff.ms, retry.backoff.max.ms, metadata.max.age.ms, LogContext, listeners); LogContext moved package in 4.4. */
    private static Metadata newMetadata() throws Exception {
        Class<?> logContext;
        try {
            logContext = Class.forName("org.apache.kafka.common.utils.internals.LogContext");
        } catch (ClassNotFoundException e) {
            logContext = Class.forName("org.apache.kafka.common.utils.LogContext");
        }
        Object context = logContext.getConstructor(String.class).newInstance("[eosfuzz] ");
        for (Constructor<?> c : Metadata.class.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            if (p.length == 5 && p[3] == logContext && p[4] == ClusterResourceListeners.class)
                return (Metadata) c.newInstance(100L, 1000L, 300_000L, context, new ClusterResourceListeners());
        }
        throw new HarnessException("no Metadata(long, long, long, LogContext, ClusterResourceListeners) in this release");
    }
}
