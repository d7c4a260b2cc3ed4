package eosfuzz.harness;

import java.util.Map;

/**
 * The per-release part of the harness: jvm/adapter-vNN, compiled against one Kafka release's
 * signatures and found by ServiceLoader (META-INF/services/eosfuzz.harness.Adapter). Exactly one is
 * on a harness process's classpath.
 */
public interface Adapter {
    /** The adapter module's name (v39, v40, ...). */
    String name();

    /** The services this adapter offers, by the name requests use. */
    Map<String, Service> services();
}
