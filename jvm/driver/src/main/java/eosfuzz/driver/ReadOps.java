package eosfuzz.driver;

import eosfuzz.harness.Fields;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A reading of given partitions from the beginning by a consumer of the release (no group: assign),
 * read_committed unless told otherwise, up to the end offset that isolation level shows (the last
 * stable offset for read_committed), or until timeoutMs.
 */
final class ReadOps {
    Map<String, Object> read(Fields f) {
        Properties p = new Properties();
        p.put("bootstrap.servers", f.getString("bootstrap"));
        p.put("client.id", "eosfuzz-reader");
        p.put("isolation.level", f.getString("isolation", "read_committed"));
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        List<TopicPartition> partitions = new ArrayList<>();
        for (Object name : f.getList("partitions")) partitions.add(AdminOps.parse(name));
        long deadline = System.currentTimeMillis() + f.getLong("timeoutMs", 20000);
        List<Object> records = new ArrayList<>();
        Map<String, Object> ends = new LinkedHashMap<>();
        boolean complete;
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofMillis(Math.max(1, deadline - System.currentTimeMillis())));
            for (TopicPartition tp : partitions) ends.put(AdminOps.name(tp), end.get(tp));
            while (true) {
                complete = true;
                for (TopicPartition tp : partitions) if (consumer.position(tp) < end.get(tp)) complete = false;
                if (complete || System.currentTimeMillis() >= deadline) break;
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    Map<String, Object> o = new LinkedHashMap<>();
                    o.put("partition", r.topic() + "-" + r.partition());
                    o.put("offset", r.offset());
                    o.put("key", r.key());
                    o.put("value", r.value());
                    o.put("timestamp", r.timestamp());
                    records.add(o);
                }
            }
        }
        Map<String, Object> r = Ops.ok();
        r.put("records", records);
        r.put("endOffsets", ends);
        r.put("complete", complete);
        return r;
    }
}
