package eosfuzz.harness;

import java.io.InputStream;
import java.util.Properties;

/** The version of the kafka-clients jar on the classpath (its kafka/kafka-version.properties, as AppInfoParser reads it). */
public final class KafkaVersion {
    private KafkaVersion() {}

    public static String get() {
        try (InputStream in = KafkaVersion.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (Exception e) {
            return "unknown";
        }
    }
}
