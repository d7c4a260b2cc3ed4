package eosfuzz.harness;

import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/**
 * Kafka's Time, moved only by the harness (what MockTime is in Kafka's tests; kafka-clients' test jar
 * is not served for every release, so the harness has its own). Starts at 0 unless told otherwise:
 * the model's clocks start at 0 too.
 */
public final class ManualTime implements Time {
    private long nowMs;

    public ManualTime(long startMs) {
        this.nowMs = startMs;
    }

    public void advance(long ms) {
        if (ms < 0) throw new HarnessException("time cannot go back: " + ms);
        nowMs += ms;
    }

    public void set(long ms) {
        if (ms < nowMs) throw new HarnessException("time cannot go back from " + nowMs + " to " + ms);
        nowMs = ms;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    @Override
    public long nanoseconds() {
        return nowMs * 1_000_000L;
    }

    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) {
        if (!condition.get()) throw new HarnessException("waitObject: the harness runs on one thread, nothing would wake it");
    }
}
