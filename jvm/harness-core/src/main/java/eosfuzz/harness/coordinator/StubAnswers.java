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

    private static boolean callbackTakesJavaMap(Method method) {
        for (java.lang.reflect.Type t : method.getGenericParameterTypes())
            if (t instanceof java.lang.reflect.ParameterizedType p && p.getRawType() == Function1.class)
                return p.getActualTypeArguments()[0].getTypeName().startsWith("java.util.Map");
        return false;
    }

    @SuppressWarnings("unchecked")
    private Object appendRecords(InvocationOnMock invocation) {
        appends++;
        // Up to 4.2 the entries and the callback's statuses are Scala maps; from 4.3 java.util.Maps.
        Object entries = null;
        Function1<Object, Object> callback = null;
        for (Object arg : invocation.getArguments()) {
            if (entries == null && (arg instanceof scala.collection.Map || arg instanceof java.util.Map)) entries = arg;
            else if (callback == null && entries != null && arg instanceof Function1) callback = (Function1<Object, Object>) arg;
        }
        if (entries == null || callback == null) throw new IllegalStateException("appendRecords without entries or a response callback");
        Errors error = appendErrors.isEmpty() ? Errors.NONE : appendErrors.poll();
        Map<Object, ProduceResponse.PartitionResponse> status = new LinkedHashMap<>();
        Iterable<Object> keys = entries instanceof java.util.Map
                ? ((java.util.Map<Object, Object>) entries).keySet()
                : CollectionConverters.asJava(((scala.collection.Map<Object, Object>) entries).keySet());
        for (Object key : keys) status.put(key, new ProduceResponse.PartitionResponse(error));
        // The callback's parameter type is erased: 4.3 on takes java.util.Map statuses for Scala entries.
        boolean javaStatuses = entries instanceof java.util.Map || callbackTakesJavaMap(invocation.getMethod());
        callback.apply(javaStatuses ? status : CollectionConverters.asScala(status));
        return null;
    }
}
