package eosfuzz.driver;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The driver process (jvm/DRIVER.md): real Kafka clients of one release behind a JSON line protocol.
 * One request per line on stdin, one reply per line on stdout. Unlike the harness, replies may come
 * out of order: each request runs on its lane (a producer's name, "admin", "reader"), one request
 * at a time per lane, so a producer blocked on an acknowledgement does not hold up the others. A
 * Kafka exception is an answer (`exception`, `error`); `driverError` is a mistake of the caller's.
 * The process ends at the end of stdin, closing every client; stdout carries replies only.
 */
public final class Main {
    private static final Map<String, ExecutorService> lanes = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        PrintStream protocolOut = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        Clients clients = new Clients();
        Ops ops = new Ops(clients);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            final String request = line;
            Object id = null;
            String lane = "admin";
            try {
                Fields f = Fields.of(Json.parse(request), "a request");
                id = f.raw("id");
                lane = f.getString("lane", f.getString("producer", "admin"));
            } catch (RuntimeException e) {
                write(protocolOut, driverError(id, e.getMessage()));
                continue;
            }
            final Object requestId = id;
            laneFor(lane).submit(() -> write(protocolOut, answer(requestId, request, ops)));
        }
        // End of stdin: eosfuzz is gone or done. The requests under way may answer (a few seconds),
        // then every client closes and the process ends, whatever threads Kafka's clients still hold.
        synchronized (Main.class) {
            for (ExecutorService lane : lanes.values()) lane.shutdown();
        }
        long until = System.currentTimeMillis() + 5_000;
        for (ExecutorService lane : lanes.values())
            lane.awaitTermination(Math.max(1, until - System.currentTimeMillis()), TimeUnit.MILLISECONDS);
        Runtime.getRuntime().halt(clients.closeAll() ? 0 : 1);
    }

    private static synchronized ExecutorService laneFor(String name) {
        return lanes.computeIfAbsent(name, n -> Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "lane-" + n);
            t.setDaemon(true);
            return t;
        }));
    }

    private static synchronized void write(PrintStream out, Map<String, Object> reply) {
        out.print(Json.write(reply));
        out.print('\n');
        out.flush();
    }

    private static Map<String, Object> answer(Object id, String line, Ops ops) {
        try {
            Fields request = Fields.of(Json.parse(line), "a request");
            Map<String, Object> reply = new LinkedHashMap<>();
            reply.put("id", id);
            reply.putAll(ops.handle(request));
            return reply;
        } catch (HarnessException | IllegalArgumentException e) {
            return driverError(id, e.getMessage());
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            return driverError(id, "driver failure: " + trace);
        }
    }

    private static Map<String, Object> driverError(Object id, String message) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("id", id);
        reply.put("driverError", message);
        return reply;
    }
}
