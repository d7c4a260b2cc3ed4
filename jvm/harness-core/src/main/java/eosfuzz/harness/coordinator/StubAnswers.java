package eosfuzz.harness.coordinator;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.mockito.invocation.InvocationOnMock;
import org.mockito.stubbing.Answer;
import scala.Function1;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the txnCoordinator service stubs, as Mockito answers (Kafka's TransactionCoordinatorConcurrencyTest
 * mocks the same ReplicaManager and MetadataCache): appendRecords answers its callback at once, each
 * partition NONE unless failNextAppend queued an error; a method returning scala.Option or
 * java.util.Optional answers empty (getLog: no __transaction_state log, so a load finds nothing);
 * anything else answers Mockito's defaults. Everything else of the coordinator is Kafka's.
 */
public final class StubAnswers {
    private final Deque<Errors> appendErrors = new ArrayDeque<>();
    private int appends;

    /** The next appendRecords answers `error` for its partition (once). */
    public void failNextAppend(Errors error) {
        appendErrors.add(error);
    }

    public int appends() {
        return appends;
    }

    /** The ReplicaManager's answer: appendRecords answered at once; `overrides` answer methods by name first. */
    public Answer<Object> replicaManager(Map<String, Answer<Object>> overrides) {
        return invocation -> {
            Method method = invocation.getMethod();
            Answer<Object> override = overrides.get(method.getName());
            if (override != null) return override.answer(invocation);
            if (method.getName().equals("appendRecords")) return appendRecords(invocation);
            return empty(invocation);
        };
    }

    /** The default for any mocked method: empty Options, else Mockito's defaults. */
    public static Object empty(InvocationOnMock invocation) throws Throwable {
        Class<?> type = invocation.getMethod().getReturnType();
        if (type == scala.Option.class) return scala.Option.empty();
        if (type == Optional.class) return Optional.empty();
        return org.mockito.Mockito.RETURNS_DEFAULTS.answer(invocation);
    }

    @SuppressWarnings("unchecked")
    private Object appendRecords(InvocationOnMock invocation) {
        appends++;
        scala.collection.Map<Object, Object> entries = null;
        Function1<Object, Object> callback = null;
        for (Object arg : invocation.getArguments()) {
            if (entries == null && arg instanceof scala.collection.Map) entries = (scala.collection.Map<Object, Object>) arg;
            else if (callback == null && entries != null && arg instanceof Function1) callback = (Function1<Object, Object>) arg;
        }
        if (entries == null || callback == null) throw new IllegalStateException("appendRecords without entries or a response callback");
        Errors error = appendErrors.isEmpty() ? Errors.NONE : appendErrors.poll();
        Map<Object, ProduceResponse.PartitionResponse> status = new LinkedHashMap<>();
        for (Object key : CollectionConverters.asJava(entries.keySet())) status.put(key, new ProduceResponse.PartitionResponse(error));
        callback.apply(CollectionConverters.asScala(status));
        return null;
    }
}
