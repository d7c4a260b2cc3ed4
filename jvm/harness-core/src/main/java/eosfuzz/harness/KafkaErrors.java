package eosfuzz.harness;

import org.apache.kafka.common.protocol.Errors;

/** The error a broker answers for an exception Kafka's code threw: Errors.forException, as KafkaApis does. */
public final class KafkaErrors {
    private KafkaErrors() {}

    public static String nameOf(Throwable t) {
        return Errors.forException(t).name();
    }
}
