package eosfuzz.harness.coordinator;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.KafkaErrors;
import eosfuzz.harness.ManualTime;
import eosfuzz.harness.Service;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.protocol.Errors;

/**
 * The `txnCoordinator` service (jvm/PROTOCOL.md): one operation sequence on a fresh coordinator of
 * the release that owns __transaction_state-0 at the config's coordinator epoch, one result per
 * operation. After each op the service does what the marker send thread would (generateRequests) and
 * reports the markers it produced; they stay unanswered until completeMarkers.
 */
public final class TxnCoordinatorService implements Service {
    private final TxnCoordinatorDriver.Factory factory;

    public TxnCoordinatorService(TxnCoordinatorDriver.Factory factory) {
        this.factory = factory;
    }

    @Override
    public Map<String, Object> handle(Fields request) throws Exception {
        Fields c = Fields.of(request.raw("config"), "config");
        TxnCoordinatorDriver.Config config = new TxnCoordinatorDriver.Config(c.getInt("transactionalIdExpirationMs"),
                c.getInt("transactionMaxTimeoutMs"), c.getShort("finalizedTransactionVersion"), c.getInt("coordinatorEpoch"),
                c.getLong("firstProducerId"));
        ManualTime time = new ManualTime(0);
        ManualScheduler scheduler = new ManualScheduler(time);
        StubAnswers stubs = new StubAnswers();
        TxnCoordinatorDriver driver = factory.create(time, scheduler, stubs, config);
        if (request.has("initialMetadata")) driver.putTransactionState(TxnInit.of(Fields.of(request.raw("initialMetadata"), "initialMetadata")));
        List<Object> results = new ArrayList<>();
        for (Object raw : request.getList("ops")) {
            Fields op = Fields.of(raw, "an op");
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("error", "NONE");
            result.put("exception", null);
            result.put("message", null);
            try {
                step(driver, op, time, scheduler, stubs, result);
            } catch (HarnessException e) {
                throw e;
            } catch (Throwable t) {
                result.put("error", KafkaErrors.nameOf(t));
                result.put("exception", t.getClass().getSimpleName());
                result.put("message", t.getMessage());
            }
            List<Object> markers = new ArrayList<>();
            for (TxnCoordinatorDriver.MarkerView m : driver.drainMarkers()) {
                Map<String, Object> mm = new LinkedHashMap<>();
                mm.put("producerId", m.producerId());
                mm.put("producerEpoch", (long) m.producerEpoch());
                mm.put("coordinatorEpoch", (long) m.coordinatorEpoch());
                mm.put("result", m.result());
                mm.put("partitions", m.partitions());
                mm.put("transactionVersion", (long) m.transactionVersion());
                mm.put("requestVersion", (long) m.requestVersion());
                markers.add(mm);
            }
            result.put("markers", markers);
            results.add(result);
        }
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("results", results);
        return reply;
    }

    private static void step(TxnCoordinatorDriver d, Fields op, ManualTime time, ManualScheduler scheduler, StubAnswers stubs,
            Map<String, Object> result) {
        String name = op.getString("op");
        switch (name) {
            case "initProducerId" -> answer(result, d.initProducerId(op.getString("transactionalId"), op.getInt("transactionTimeoutMs"),
                    op.getLong("producerId"), op.getShort("producerEpoch")));
            case "addPartitions" -> {
                String id = op.getString("transactionalId");
                if (op.getBool("verifyOnly")) {
                    Map<String, String> errors = d.verifyPartitions(id, op.getLong("producerId"), op.getShort("producerEpoch"), op.getList("partitions"));
                    result.put("errors", new java.util.TreeMap<>(errors));
                } else {
                    result.put("error", d.addPartitions(id, op.getLong("producerId"), op.getShort("producerEpoch"), op.getList("partitions"),
                            op.getShort("clientTransactionVersion")));
                }
            }
            case "endTxn" -> {
                String r = op.getString("result");
                if (!r.equals("COMMIT") && !r.equals("ABORT")) throw new HarnessException("endTxn result must be COMMIT or ABORT, got " + r);
                answer(result, d.endTxn(op.getString("transactionalId"), op.getLong("producerId"), op.getShort("producerEpoch"), r.equals("COMMIT"),
                        op.getShort("clientTransactionVersion")));
            }
            case "completeMarkers" -> result.put("acknowledged", (long) d.acknowledgeMarkers());
            case "failNextAppend" -> {
                Errors error;
                try {
                    error = Errors.valueOf(op.getString("error"));
                } catch (IllegalArgumentException e) {
                    throw new HarnessException("failNextAppend: no error " + op.getString("error"));
                }
                stubs.failNextAppend(error);
            }
            case "advanceTime" -> {
                time.advance(op.getLong("ms"));
                scheduler.runDue();
            }
            case "abortTimedOutTransactions" -> d.abortTimedOutTransactions();
            case "describe" -> {
                TxnCoordinatorDriver.Described m = d.describe(op.getString("transactionalId"));
                result.put("metadata", m == null ? null : m.view().metadataJson(m.transactionalId(), m.pendingState(), m.hasFailedEpochFence()));
            }
            default -> throw new HarnessException("txnCoordinator: no op " + name);
        }
    }

    private static void answer(Map<String, Object> result, TxnCoordinatorDriver.Answer a) {
        if (a == null) throw new IllegalStateException("the coordinator did not answer (its callback was not called)");
        result.put("error", a.error());
        result.put("producerId", a.producerId());
        result.put("producerEpoch", (long) a.producerEpoch());
    }
}
