package eosfuzz.harness;

/** A request the harness cannot carry out as written: the TypeScript side's mistake, not Kafka's answer. */
public final class HarnessException extends RuntimeException {
    public HarnessException(String message) {
        super(message);
    }
}
