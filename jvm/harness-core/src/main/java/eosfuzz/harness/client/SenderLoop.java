package eosfuzz.harness.client;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * The thread the harness runs Sender loops on: one, made by the adapter's factory (a
 * Sender.SenderThread from 4.1, which is what TransactionManager.shouldPoisonStateOnInvalidTransition
 * asks about), kept for the whole process. The harness waits for each loop, so everything still
 * happens one step at a time, in order; a thread per loop cost more than the loop itself.
 */
public final class SenderLoop {
    /** A Sender loop; it may throw what Sender.runOnce throws. */
    public interface Body {
        void run() throws Exception;
    }

    private final ExecutorService thread;

    public SenderLoop(ThreadFactory factory) {
        this.thread = Executors.newSingleThreadExecutor(factory);
    }

    /** Run `body` on the loop's thread and wait for it; what it throws is thrown here. */
    public void run(Body body) throws Exception {
        try {
            thread.submit(() -> {
                body.run();
                return null;
            }).get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) throw cause;
            if (e.getCause() instanceof Error error) throw error;
            throw e;
        }
    }
}
