package eosfuzz.harness.coordinator;

import eosfuzz.harness.ManualTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.server.util.Scheduler;

/**
 * Kafka's Scheduler, run only when told: tasks wait in a list (in the order scheduled) until
 * runDue() finds them due on the ManualTime. TransactionStateManager schedules the load of a
 * __transaction_state partition here; nothing runs on another thread.
 */
public final class ManualScheduler implements Scheduler {
    private final ManualTime time;
    private final List<Task> tasks = new ArrayList<>();

    public ManualScheduler(ManualTime time) {
        this.time = time;
    }

    @Override
    public void startup() {}

    @Override
    public void shutdown() {
        tasks.clear();
    }

    @Override
    public ScheduledFuture<?> schedule(String name, Runnable runnable, long delayMs, long periodMs) {
        Task task = new Task(name, runnable, time.milliseconds() + Math.max(0, delayMs), periodMs);
        tasks.add(task);
        return task;
    }

    @Override
    public void resizeThreadPool(int newSize) {}

    /** Runs every task due now, earliest first (ties in scheduling order), including ones they schedule. */
    public void runDue() {
        while (true) {
            Task next = null;
            for (Task t : tasks) if (!t.isCancelled() && t.dueMs <= time.milliseconds() && (next == null || t.dueMs < next.dueMs)) next = t;
            if (next == null) break;
            tasks.remove(next);
            next.runnable.run();
            if (next.periodMs > 0 && !next.isCancelled()) {
                next.dueMs += next.periodMs;
                tasks.add(next);
            }
        }
        tasks.removeIf(Task::isCancelled);
    }

    private static final class Task extends CompletableFuture<Object> implements ScheduledFuture<Object> {
        final String name;
        final Runnable runnable;
        final long periodMs;
        long dueMs;

        Task(String name, Runnable runnable, long dueMs, long periodMs) {
            this.name = name;
            this.runnable = runnable;
            this.dueMs = dueMs;
            this.periodMs = periodMs;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueMs, TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.MILLISECONDS), other.getDelay(TimeUnit.MILLISECONDS));
        }
    }
}
