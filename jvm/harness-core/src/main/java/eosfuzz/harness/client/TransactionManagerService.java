package eosfuzz.harness.client;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.ManualTime;
import eosfuzz.harness.Service;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The `transactionManager` service (jvm/PROTOCOL.md): how the release's producer classifies one error
 * answered to one transactional request. A fresh client is driven, as TransactionManagerTest drives
 * it, to the point where a request of the api under test is in flight, every earlier request answered
 * with success; that request is answered with the error, the Sender runs once (the loop in which
 * NetworkClient completes the response), and the TransactionManager's state is read back.
 *
 * Which application calls lead to each request is the same for every release; the adapter's
 * TransactionalClient makes the calls.
 */
public final class TransactionManagerService implements Service {
    /** Builds a fresh client of the release whose cluster finalized `transactionVersion`. */
    public interface ClientFactory {
        TransactionalClient create(ManualTime time, int transactionVersion) throws Exception;
    }

    /** What InitProducerId hands out, and what a TV2 EndTxn bumps from. */
    static final long PRODUCER_ID = 1000L;
    static final short PRODUCER_EPOCH = 5;
    static final String DATA_TOPIC = "eosfuzz";
    static final String INPUT_TOPIC = "eosfuzz-input";
    static final String GROUP_ID = "eosfuzz-group";
    static final String MEMBER_ID = "eosfuzz-member";
    static final int GENERATION_ID = 3;
    /** Sender loops that may pass without a request before the client counts as idle. */
    private static final int MAX_LOOPS = 64;
    /** The pseudo-error of a connection that drops before the answer (ClientResponse.wasDisconnected). */
    static final String DISCONNECTED = "DISCONNECTED";

    private final ClientFactory factory;

    public TransactionManagerService(ClientFactory factory) {
        this.factory = factory;
    }

    @Override
    public Map<String, Object> handle(Fields request) throws Exception {
        int tv = request.getInt("transactionVersion");
        if (tv < 0 || tv > 2) throw new HarnessException("transactionVersion must be 0, 1 or 2, got " + tv);
        String api = request.getString("api");
        boolean commit = request.getBool("commit", true);
        boolean bump = request.getBool("bump", false);
        if (bump && !api.equals("InitProducerId")) throw new HarnessException("bump is an option of InitProducerId only");
        String error = request.getString("error");
        if (!error.equals(DISCONNECTED)) errorOf(error);
        try (TransactionalClient client = factory.create(new ManualTime(0), tv)) {
            return new Case(client, api, commit, bump, error).run();
        }
    }

    private static Errors errorOf(String name) {
        try {
            return Errors.valueOf(name);
        } catch (IllegalArgumentException e) {
            throw new HarnessException("no error " + name + " in this release's Errors");
        }
    }

    /** One error at one request of one fresh client. */
    private static final class Case {
        private final TransactionalClient client;
        private final ScriptedNetwork network;
        private final String api;
        private final boolean commit;
        private final boolean bump;
        private final String error;
        private long nextOffset = 0;
        private short epoch = PRODUCER_EPOCH;

        Case(TransactionalClient client, String api, boolean commit, boolean bump, String error) {
            this.client = client;
            this.network = client.network();
            this.api = api;
            this.commit = commit;
            this.bump = bump;
            this.error = error;
        }

        Map<String, Object> run() throws Exception {
            Object init = client.initTransactions();
            if (api.equals("FindCoordinator")) return strike(until(ApiKeys.FIND_COORDINATOR), init, null);
            if (api.equals("InitProducerId") && !bump) return strike(until(ApiKeys.INIT_PRODUCER_ID), init, null);
            ScriptedNetwork.InFlight initPid = until(ApiKeys.INIT_PRODUCER_ID);
            succeed(initPid);
            client.runOnce();
            if (!"ok".equals(Internals.outcome(init))) throw new IllegalStateException("initTransactions did not complete: " + Internals.outcome(init));
            client.initTransactionsDone(init);
            client.beginTransaction();
            switch (api) {
                case "InitProducerId" -> {
                    // KIP-360's epoch bump: an abortable produce error, then the abort; a TV0/1 client
                    // bumps its epoch with InitProducerId once the EndTxn is done (TV2 leaves it to EndTxn).
                    client.send(DATA_TOPIC, 0);
                    ScriptedNetwork.InFlight produce = until(ApiKeys.PRODUCE);
                    network.answer(produce, client.response(produce.request(), Errors.INVALID_PRODUCER_EPOCH, PRODUCER_ID, epoch, -1L));
                    client.runOnce();
                    Object abort = client.beginAbort();
                    return strike(until(ApiKeys.INIT_PRODUCER_ID), abort, null);
                }
                case "AddPartitionsToTxn" -> {
                    Future<?> record = client.send(DATA_TOPIC, 0);
                    return strike(until(ApiKeys.ADD_PARTITIONS_TO_TXN), null, record);
                }
                case "Produce" -> {
                    // The batch after an acknowledged one: an error about it is about the partition's
                    // state at the leader, not its first write (whose UNKNOWN_PRODUCER_ID would be retried).
                    client.send(DATA_TOPIC, 0);
                    succeed(until(ApiKeys.PRODUCE));
                    client.runOnce();
                    Future<?> record = client.send(DATA_TOPIC, 0);
                    return strike(until(ApiKeys.PRODUCE), null, record);
                }
                case "AddOffsetsToTxn" -> {
                    Object offsets = sendOffsets();
                    return strike(until(ApiKeys.ADD_OFFSETS_TO_TXN), offsets, null);
                }
                case "TxnOffsetCommit" -> {
                    Object offsets = sendOffsets();
                    return strike(until(ApiKeys.TXN_OFFSET_COMMIT), offsets, null);
                }
                case "EndTxn" -> {
                    client.send(DATA_TOPIC, 0);
                    if (until(null) != null) throw new IllegalStateException("a request is still in flight before EndTxn");
                    Object end = commit ? client.beginCommit() : client.beginAbort();
                    return strike(until(ApiKeys.END_TXN), end, null);
                }
                default -> throw new HarnessException("api must be FindCoordinator, InitProducerId, AddPartitionsToTxn, Produce, "
                        + "AddOffsetsToTxn, TxnOffsetCommit or EndTxn, got " + api);
            }
        }

        private Object sendOffsets() {
            return client.sendOffsetsToTransaction(INPUT_TOPIC, 0, 42L, GROUP_ID, GENERATION_ID, MEMBER_ID);
        }

        /**
         * Run the Sender, answering every request with success, until a request of `target` is in
         * flight (returned unanswered), or the client is idle (null: it never sends one).
         */
        private ScriptedNetwork.InFlight until(ApiKeys target) throws Exception {
            int idle = 0;
            for (int loop = 0; loop < 4 * MAX_LOOPS && idle < 3; loop++) {
                int sentBefore = network.sent().size();
                client.runOnce();
                for (ScriptedNetwork.InFlight r : network.inFlight()) {
                    if (r.clientRequest().apiKey() == target) return r;
                    succeed(r);
                }
                idle = network.sent().size() == sentBefore && network.inFlight().isEmpty() ? idle + 1 : 0;
            }
            if (idle < 3) throw new IllegalStateException("the client did not settle in " + 4 * MAX_LOOPS + " Sender loops");
            return null;
        }

        private void succeed(ScriptedNetwork.InFlight r) {
            ApiKeys key = r.clientRequest().apiKey();
            long baseOffset = key == ApiKeys.PRODUCE ? nextOffset++ : -1L;
            // A TV2 coordinator bumps the epoch at every EndTxn and says so in the answer (v5).
            if (key == ApiKeys.END_TXN && r.version() >= 5) epoch++;
            network.answer(r, client.response(r.request(), Errors.NONE, PRODUCER_ID, epoch, baseOffset));
        }

        /** Answer `target` with the error, let the Sender complete it, read the client back. */
        private Map<String, Object> strike(ScriptedNetwork.InFlight target, Object result, Future<?> record) throws Exception {
            Map<String, Object> out = new LinkedHashMap<>();
            // The release's own code for the error, so that the caller can check it means the same error.
            out.put("errorCode", error.equals(DISCONNECTED) ? null : (long) errorOf(error).code());
            out.put("sent", target != null);
            out.put("before", client.state());
            out.put("transactionV2", client.transactionV2Enabled());
            if (target == null) {
                out.put("requestVersion", null);
                return finish(out, null, result, record, null);
            }
            out.put("requestVersion", (long) target.version());
            int handlerErrorsBefore = network.handlerExceptions().size();
            if (error.equals(DISCONNECTED)) network.disconnect(target);
            else network.answer(target, client.response(target.request(), errorOf(error), PRODUCER_ID, epoch, -1L));
            String senderException = null;
            try {
                client.runOnce();
            } catch (Exception e) {
                // Sender.run logs and swallows what runOnce throws ("Uncaught error in kafka producer I/O thread").
                senderException = e.getClass().getSimpleName() + ": " + e.getMessage();
            }
            List<Throwable> handlerErrors = network.handlerExceptions();
            String handlerException = handlerErrors.size() > handlerErrorsBefore
                    ? describe(handlerErrors.get(handlerErrors.size() - 1))
                    : senderException;
            return finish(out, target, result, record, handlerException);
        }

        private Map<String, Object> finish(Map<String, Object> out, ScriptedNetwork.InFlight target, Object result,
                                           Future<?> record, String thrown) {
            String state = client.state();
            RuntimeException lastError = client.lastError();
            boolean requeued = false;
            String lookup = null;
            Object handler = target == null || target.clientRequest().apiKey() == ApiKeys.PRODUCE ? null : target.clientRequest().callback();
            for (Object queued : client.queuedHandlers()) {
                if (queued == handler) requeued = true;
                else if (lookup == null && Internals.describe(queued).startsWith("FindCoordinator(")) {
                    String d = Internals.describe(queued);
                    lookup = d.substring("FindCoordinator(".length(), d.length() - 1);
                }
            }
            if (target != null && target.clientRequest().apiKey() == ApiKeys.PRODUCE) requeued = record != null && !record.isDone();
            String outcome = record != null && target != null && target.clientRequest().apiKey() == ApiKeys.PRODUCE
                    ? futureOutcome(record)
                    : Internals.outcome(result);
            out.put("state", state);
            out.put("class", target == null ? "unsent" : classOf(state, requeued, outcome));
            out.put("epochBumpRequired", client.epochBumpRequired());
            out.put("requeued", requeued);
            out.put("coordinatorLookup", lookup);
            out.put("lastError", lastError == null ? null : lastError.getClass().getSimpleName());
            out.put("lastErrorCause", lastError == null || lastError.getCause() == null ? null : lastError.getCause().getClass().getSimpleName());
            out.put("result", outcome);
            out.put("thrown", thrown);
            List<Object> queue = new ArrayList<>();
            for (Object queued : client.queuedHandlers()) queue.add(Internals.describe(queued));
            queue.sort(null);
            out.put("queued", queue);
            return out;
        }

        private static String classOf(String state, boolean requeued, String outcome) {
            if (state.equals("FATAL_ERROR")) return "fatal";
            if (state.equals("ABORTABLE_ERROR")) return "abortable";
            if (requeued) return "retry";
            if (outcome != null && !outcome.equals("ok") && !outcome.equals("pending")) return "failed";
            return "ok";
        }

        private static String futureOutcome(Future<?> record) {
            if (!record.isDone()) return "pending";
            try {
                record.get();
                return "ok";
            } catch (ExecutionException e) {
                return e.getCause().getClass().getSimpleName();
            } catch (Exception e) {
                return e.getClass().getSimpleName();
            }
        }

        private static String describe(Throwable t) {
            return t.getClass().getSimpleName() + ": " + t.getMessage();
        }
    }
}
