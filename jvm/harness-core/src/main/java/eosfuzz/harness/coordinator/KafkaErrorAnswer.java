package eosfuzz.harness.coordinator;

/**
 * Kafka answered with an Errors value instead of throwing (4.1's prepareIncrementProducerEpoch returns
 * Either[Errors, TxnTransitMetadata]): reported as that error with no exception.
 */
public final class KafkaErrorAnswer extends RuntimeException {
    private final String error;

    public KafkaErrorAnswer(String error) {
        super(error);
        this.error = error;
    }

    public String error() {
        return error;
    }
}
