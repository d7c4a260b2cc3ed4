package eosfuzz.harness;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.server.util.Scheduler;

/**
 * A Scheduler that never runs anything: the harness calls what Kafka's periodic tasks would
 * (removeExpiredProducers) as operations of their own, so a sequence is one thread, in order.
 * It lives in harness-core because org.apache.kafka.server.util.Scheduler is the same interface,
 * method for method, in every release of jvm/releases.json (3.9.1 to 4.4.0, checked with javap).
 */
public final class IdleScheduler implements Scheduler {
    @Override
    public void startup() {}

    @Override
    public void shutdown() {}

    @Override
    public ScheduledFuture<?> schedule(String name, Runnable task, long delayMs, long periodMs) {
        return new NeverRuns();
    }

    @Override
    public void resizeThreadPool(int newSize) {}

    private static final class NeverRuns extends CompletableFuture<Object> implements ScheduledFuture<Object> {
        @Override
        public long getDelay(java.util.concurrent.TimeUnit unit) {
            return Long.MAX_VALUE;
        }

        @Override
        public int compareTo(java.util.concurrent.Delayed other) {
            return 0;
        }
    }
}
