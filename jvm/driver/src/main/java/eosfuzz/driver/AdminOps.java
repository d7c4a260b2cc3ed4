package eosfuzz.driver;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.AbortTransactionSpec;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeProducersOptions;
import org.apache.kafka.clients.admin.FeatureUpdate;
import org.apache.kafka.clients.admin.FinalizedVersionRange;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.UpdateFeaturesOptions;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/** Admin operations of the plan: what an operator or a test does to the cluster, and what it asks it. */
final class AdminOps {
    private final Clients clients;

    AdminOps(Clients clients) {
        this.clients = clients;
    }

    private Admin admin(Fields f) {
        return clients.admin(f.getString("bootstrap"));
    }

    static TopicPartition partition(Fields f) {
        return new TopicPartition(f.getString("topic"), f.getInt("partition"));
    }

    /** "orders-3" -> orders, 3 (the last dash splits). */
    static TopicPartition parse(Object name) {
        if (!(name instanceof String)) throw new HarnessException("a partition must be a topic-N string, got " + name);
        String s = (String) name;
        int dash = s.lastIndexOf('-');
        if (dash <= 0) throw new HarnessException("a partition must be a topic-N string, got " + s);
        return new TopicPartition(s.substring(0, dash), Integer.parseInt(s.substring(dash + 1)));
    }

    static String name(TopicPartition tp) {
        return tp.topic() + "-" + tp.partition();
    }

    /** Admin.describeProducers at the partition's leader (or at `brokerId`): each producer's state there. */
    Map<String, Object> describeProducers(Fields f) throws Exception {
        TopicPartition tp = partition(f);
        DescribeProducersOptions options = new DescribeProducersOptions();
        if (f.has("brokerId")) options.brokerId(f.getInt("brokerId"));
        List<Object> producers = new ArrayList<>();
        for (ProducerState p : admin(f).describeProducers(List.of(tp), options).partitionResult(tp).get().activeProducers()) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("producerId", p.producerId());
            r.put("producerEpoch", p.producerEpoch());
            r.put("coordinatorEpoch", p.coordinatorEpoch().isPresent() ? p.coordinatorEpoch().getAsInt() : -1);
            r.put("currentTransactionStartOffset",
                    p.currentTransactionStartOffset().isPresent() ? p.currentTransactionStartOffset().getAsLong() : null);
            r.put("lastSequence", p.lastSequence());
            producers.add(r);
        }
        Map<String, Object> r = Ops.ok();
        r.put("producers", producers);
        return r;
    }

    /** Admin.abortTransaction: WriteTxnMarkers ABORT straight to the leader, with the caller's epochs. */
    Map<String, Object> abortTransaction(Fields f) throws Exception {
        AbortTransactionSpec spec = new AbortTransactionSpec(
                partition(f), f.getLong("producerId"), f.getShort("producerEpoch"), f.getInt("coordinatorEpoch"));
        admin(f).abortTransaction(spec).all().get();
        return Ops.ok();
    }

    Map<String, Object> electLeaders(Fields f) throws Exception {
        Set<TopicPartition> partitions = new LinkedHashSet<>();
        for (Object p : f.getList("partitions")) partitions.add(parse(p));
        var result = admin(f).electLeaders(ElectionType.valueOf(f.getString("type", "PREFERRED")), partitions).partitions().get();
        Map<String, Object> errors = new LinkedHashMap<>();
        for (var e : result.entrySet())
            errors.put(name(e.getKey()), e.getValue().isPresent() ? Ops.failed(e.getValue().get()).get("error") : "NONE");
        Map<String, Object> r = Ops.ok();
        r.put("errors", errors);
        return r;
    }

    Map<String, Object> reassign(Fields f) throws Exception {
        admin(f).alterPartitionReassignments(
                Map.of(partition(f), Optional.of(new NewPartitionReassignment(Ops.ints(f.raw("replicas")))))).all().get();
        return Ops.ok();
    }

    Map<String, Object> updateFeature(Fields f) throws Exception {
        FeatureUpdate update = new FeatureUpdate(f.getShort("level"), FeatureUpdate.UpgradeType.valueOf(f.getString("upgradeType", "UPGRADE")));
        admin(f).updateFeatures(Map.of(f.getString("feature"), update), new UpdateFeaturesOptions()).all().get();
        return Ops.ok();
    }

    Map<String, Object> describeFeatures(Fields f) throws Exception {
        Map<String, Object> finalized = new LinkedHashMap<>();
        for (Map.Entry<String, FinalizedVersionRange> e : admin(f).describeFeatures().featureMetadata().get().finalizedFeatures().entrySet())
            finalized.put(e.getKey(), e.getValue().maxVersionLevel());
        Map<String, Object> r = Ops.ok();
        r.put("finalized", finalized);
        return r;
    }

    /** ListOffsets latest of each partition: the high watermark (read_uncommitted) and the last stable offset (read_committed). */
    Map<String, Object> listOffsets(Fields f) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new LinkedHashMap<>();
        for (Object p : f.getList("partitions")) request.put(parse(p), OffsetSpec.latest());
        ListOffsetsResult hw = admin(f).listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED));
        ListOffsetsResult lso = admin(f).listOffsets(request, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED));
        Map<String, Object> out = new LinkedHashMap<>();
        for (TopicPartition tp : request.keySet()) {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("highWatermark", hw.partitionResult(tp).get().offset());
            o.put("lastStableOffset", lso.partitionResult(tp).get().offset());
            out.put(name(tp), o);
        }
        Map<String, Object> r = Ops.ok();
        r.put("offsets", out);
        return r;
    }

    /** KafkaProducer.sendOffsetsToTransaction with a group id (the group need not exist: the coordinator only stores offsets). */
    Map<String, Object> sendOffsets(KafkaProducer<String, String> producer, Fields f) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : Ops.object(f, "offsets").entrySet())
            offsets.put(parse(e.getKey()), new OffsetAndMetadata(((Long) e.getValue())));
        producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(f.getString("groupId")));
        return Ops.ok();
    }
}
