package eosfuzz.driver;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.KafkaVersion;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.protocol.Errors;

/**
 * The operations of the line protocol (jvm/DRIVER.md). Each returns the reply's fields; a Kafka
 * exception becomes `exception` (simple class name), `message` and `error` (the Errors name the
 * broker answered, Errors.forException), which is an answer, never a driver error.
 */
final class Ops {
    private final Clients clients;
    private final AdminOps admin;
    private final ReadOps read;

    Ops(Clients clients) {
        this.clients = clients;
        this.admin = new AdminOps(clients);
        this.read = new ReadOps();
    }

    Map<String, Object> handle(Fields f) throws Exception {
        String op = f.getString("op");
        try {
            switch (op) {
                case "hello": return Map.of("kafkaVersion", KafkaVersion.get());
                case "describeCluster": return describeCluster(f);
                case "createTopic": return createTopic(f);
                case "describeTopic": return describeTopic(f);
                case "producerInit": return producerInit(f);
                case "begin":
                    clients.producer(f.getString("producer")).beginTransaction();
                    return ok();
                case "send": return send(f);
                case "commit":
                    clients.producer(f.getString("producer")).commitTransaction();
                    return ok();
                case "abort":
                    clients.producer(f.getString("producer")).abortTransaction();
                    return ok();
                case "sendOffsets": return admin.sendOffsets(clients.producer(f.getString("producer")), f);
                case "closeProducer":
                    clients.closeProducer(f.getString("producer"), Duration.ofMillis(f.getLong("timeoutMs", 5000)));
                    return ok();
                case "describeTransaction": return describeTransaction(clients.admin(f.getString("bootstrap")), f.getString("transactionalId"));
                case "describeProducers": return admin.describeProducers(f);
                case "abortTransaction": return admin.abortTransaction(f);
                case "electLeaders": return admin.electLeaders(f);
                case "reassign": return admin.reassign(f);
                case "updateFeature": return admin.updateFeature(f);
                case "describeFeatures": return admin.describeFeatures(f);
                case "listOffsets": return admin.listOffsets(f);
                case "read": return read.read(f);
                default: throw new HarnessException("no op " + op);
            }
        } catch (ExecutionException e) {
            return failed(e.getCause() == null ? e : e.getCause());
        } catch (HarnessException e) {
            throw e;
        } catch (RuntimeException e) {
            return failed(e);
        }
    }

    static Map<String, Object> ok() {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("error", "NONE");
        return r;
    }

    /** A Kafka exception as an answer: what the broker said, in Errors' names. */
    static Map<String, Object> failed(Throwable t) {
        Throwable cause = t;
        // KafkaProducer wraps a send's or a transaction's exception; the broker's error is inside.
        while (cause.getCause() != null && !(cause instanceof org.apache.kafka.common.errors.ApiException)) cause = cause.getCause();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("error", Errors.forException(cause).name());
        r.put("exception", t.getClass().getSimpleName());
        r.put("cause", cause == t ? null : cause.getClass().getSimpleName());
        r.put("message", t.getMessage());
        return r;
    }

    private Map<String, Object> describeCluster(Fields f) throws Exception {
        Admin a = clients.admin(f.getString("bootstrap"));
        DescribeClusterResult d = a.describeCluster(new DescribeClusterOptions().timeoutMs(f.getInt("timeoutMs", 5000)));
        List<Object> nodes = new ArrayList<>();
        for (Node n : d.nodes().get()) nodes.add(node(n));
        Map<String, Object> r = ok();
        r.put("clusterId", d.clusterId().get());
        r.put("controller", d.controller().get().id());
        r.put("nodes", nodes);
        return r;
    }

    private static Map<String, Object> node(Node n) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("id", n.id());
        r.put("host", n.host());
        r.put("port", n.port());
        return r;
    }

    private Map<String, Object> createTopic(Fields f) throws Exception {
        Map<Integer, List<Integer>> assignment = new LinkedHashMap<>();
        List<Object> partitions = f.getList("assignment");
        for (int p = 0; p < partitions.size(); p++) assignment.put(p, ints(partitions.get(p)));
        NewTopic topic = new NewTopic(f.getString("name"), assignment);
        Map<String, String> configs = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : object(f, "configs").entrySet()) configs.put(e.getKey(), String.valueOf(e.getValue()));
        topic.configs(configs);
        clients.admin(f.getString("bootstrap")).createTopics(List.of(topic)).all().get();
        return ok();
    }

    /** An optional object field (empty when absent). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> object(Fields f, String key) {
        if (!f.has(key)) return Map.of();
        if (!(f.raw(key) instanceof Map)) throw new HarnessException("field " + key + " must be an object");
        return (Map<String, Object>) f.raw(key);
    }

    static List<Integer> ints(Object list) {
        if (!(list instanceof List)) throw new HarnessException("expected an array of integers, got " + list);
        List<Integer> out = new ArrayList<>();
        for (Object o : (List<?>) list) {
            if (!(o instanceof Long)) throw new HarnessException("expected an integer, got " + o);
            out.add(((Long) o).intValue());
        }
        return out;
    }

    private Map<String, Object> describeTopic(Fields f) throws Exception {
        String name = f.getString("name");
        TopicDescription d = clients.admin(f.getString("bootstrap")).describeTopics(List.of(name)).allTopicNames().get().get(name);
        List<Object> partitions = new ArrayList<>();
        for (TopicPartitionInfo p : d.partitions()) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("partition", p.partition());
            r.put("leader", p.leader() == null ? -1 : p.leader().id());
            r.put("replicas", p.replicas().stream().map(Node::id).toList());
            r.put("isr", p.isr().stream().map(Node::id).toList());
            partitions.add(r);
        }
        Map<String, Object> r = ok();
        r.put("partitions", partitions);
        return r;
    }

    private Map<String, Object> producerInit(Fields f) throws Exception {
        Properties config = new Properties();
        config.put("bootstrap.servers", f.getString("bootstrap"));
        config.put("transactional.id", f.getString("transactionalId"));
        config.put("client.id", f.getString("producer"));
        config.put("enable.idempotence", "true");
        config.put("acks", "all");
        for (Map.Entry<String, Object> e : object(f, "config").entrySet()) config.put(e.getKey(), String.valueOf(e.getValue()));
        KafkaProducer<String, String> producer = clients.newProducer(f.getString("producer"), config);
        producer.initTransactions();
        Map<String, Object> r = describeTransaction(clients.admin(f.getString("bootstrap")), f.getString("transactionalId"));
        return r;
    }

    /** Admin.describeTransactions of one transactional.id: the coordinator's view (producer id and epoch). */
    static Map<String, Object> describeTransaction(Admin admin, String transactionalId) throws Exception {
        TransactionDescription d = admin.describeTransactions(List.of(transactionalId)).description(transactionalId).get(20, TimeUnit.SECONDS);
        Map<String, Object> r = ok();
        r.put("coordinatorId", d.coordinatorId());
        r.put("state", d.state().toString());
        r.put("producerId", d.producerId());
        r.put("producerEpoch", d.producerEpoch());
        r.put("partitions", d.topicPartitions().stream().map(tp -> tp.topic() + "-" + tp.partition()).sorted().toList());
        return r;
    }

    private Map<String, Object> send(Fields f) throws Exception {
        KafkaProducer<String, String> producer = clients.producer(f.getString("producer"));
        ProducerRecord<String, String> record = new ProducerRecord<>(
                f.getString("topic"), f.getInt("partition"), f.getString("key", null), f.getString("value"));
        RecordMetadata m = producer.send(record).get();
        Map<String, Object> r = ok();
        r.put("offset", m.offset());
        r.put("timestamp", m.timestamp());
        return r;
    }
}
