package eosfuzz.driver;

import eosfuzz.harness.HarnessException;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;

/** The clients the driver holds: one Admin per bootstrap list, the producers by the plan's names. */
final class Clients {
    private final Map<String, Admin> admins = new ConcurrentHashMap<>();
    private final Map<String, KafkaProducer<String, String>> producers = new ConcurrentHashMap<>();

    Admin admin(String bootstrap) {
        return admins.computeIfAbsent(bootstrap, b -> {
            Properties p = new Properties();
            p.put("bootstrap.servers", b);
            p.put("client.id", "eosfuzz-admin");
            // Short enough that a health check polls, long enough for a loaded 2-core machine.
            p.put("request.timeout.ms", "10000");
            p.put("default.api.timeout.ms", "20000");
            p.put("retry.backoff.ms", "100");
            return Admin.create(p);
        });
    }

    KafkaProducer<String, String> newProducer(String name, Properties config) {
        if (producers.containsKey(name)) throw new HarnessException("producer " + name + " exists already");
        config.put("key.serializer", StringSerializer.class.getName());
        config.put("value.serializer", StringSerializer.class.getName());
        KafkaProducer<String, String> producer = new KafkaProducer<>(config);
        producers.put(name, producer);
        return producer;
    }

    KafkaProducer<String, String> producer(String name) {
        KafkaProducer<String, String> p = producers.get(name);
        if (p == null) throw new HarnessException("no producer " + name + " (producerInit first)");
        return p;
    }

    void closeProducer(String name, Duration timeout) {
        KafkaProducer<String, String> p = producers.remove(name);
        if (p != null) p.close(timeout);
    }

    /** Close everything, each bounded; false when a close threw. */
    boolean closeAll() {
        boolean ok = true;
        for (String name : producers.keySet()) {
            try {
                closeProducer(name, Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                ok = false;
            }
        }
        for (Admin a : admins.values()) {
            try {
                a.close(Duration.ofSeconds(2));
            } catch (RuntimeException e) {
                ok = false;
            }
        }
        return ok;
    }
}
