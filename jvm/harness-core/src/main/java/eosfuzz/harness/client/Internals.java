package eosfuzz.harness.client;

import eosfuzz.harness.HarnessException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.clients.producer.internals.TransactionalRequestResult;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;

/**
 * Reads of TransactionManager's private state that its tests read through package-private methods
 * (the harness lives in another package). The names are those of every release from 3.9 to 4.4
 * (javap -p); an adapter names the fields that differ (epochBumpRequired before 4.0).
 */
public final class Internals {
    private Internals() {}

    public static Object field(Object owner, Class<?> declaring, String name) {
        try {
            Field f = declaring.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(owner);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(declaring.getName() + " has no field " + name + " in this release", e);
        }
    }

    public static Object call(Object owner, Class<?> declaring, String name) {
        try {
            Method m = declaring.getDeclaredMethod(name);
            m.setAccessible(true);
            return m.invoke(owner);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(declaring.getName() + "." + name + "() failed in this release", e);
        }
    }

    /** The handlers of a PriorityQueue (pendingRequests), as a list. */
    public static List<Object> queued(Object queue) {
        if (!(queue instanceof Collection<?> c)) throw new IllegalStateException("pendingRequests is not a collection: " + queue);
        return new ArrayList<>(c);
    }

    /** "InitProducerId", "EndTxn", ..., and "FindCoordinator(TRANSACTION)" / "FindCoordinator(GROUP)": what a TxnRequestHandler will send. */
    public static String describe(Object handler) {
        Object builder = call(handler, handlerClass(handler), "requestBuilder");
        if (!(builder instanceof AbstractRequest.Builder<?> b)) throw new IllegalStateException("requestBuilder() gave " + builder);
        String api = b.apiKey().name;
        if (b instanceof FindCoordinatorRequest.Builder f)
            return api + "(" + FindCoordinatorRequest.CoordinatorType.forId(f.data().keyType()).name() + ")";
        return api;
    }

    /** TransactionManager.TxnRequestHandler, the class that declares requestBuilder(). */
    private static Class<?> handlerClass(Object handler) {
        for (Class<?> c = handler.getClass(); c != null; c = c.getSuperclass())
            if (c.getSimpleName().equals("TxnRequestHandler")) return c;
        throw new IllegalStateException(handler.getClass().getName() + " is not a TxnRequestHandler");
    }

    /** A TransactionalRequestResult's outcome: "pending", "ok", or the simple class name of the error it failed with. */
    public static String outcome(Object result) {
        if (result == null) return null;
        if (!(result instanceof TransactionalRequestResult r)) throw new HarnessException("not a TransactionalRequestResult: " + result);
        if (!r.isCompleted()) return "pending";
        return r.isSuccessful() ? "ok" : r.error().getClass().getSimpleName();
    }
}
