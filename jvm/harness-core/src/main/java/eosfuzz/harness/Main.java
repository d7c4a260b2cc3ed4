package eosfuzz.harness;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * The harness process: one Kafka release's classes behind a line protocol (jvm/PROTOCOL.md). One
 * JSON request per line on stdin, one JSON reply per line on stdout, in order; requests may be
 * pipelined, and replies are flushed whenever no further request is waiting. stdout carries nothing
 * else: System.out is pointed at stderr before Kafka's classes load, so a stray print of theirs
 * cannot break a reply. The process ends at the end of stdin.
 */
public final class Main {
    public static void main(String[] args) throws Exception {
        PrintStream protocolOut = System.out;
        System.setOut(System.err);
        Adapter adapter = loadAdapter();
        Map<String, Service> services = adapter.services();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(protocolOut, StandardCharsets.UTF_8), 1 << 16);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            out.write(Json.write(answer(line, adapter, services)));
            out.write('\n');
            if (!in.ready()) out.flush();
        }
        out.flush();
    }

    private static Adapter loadAdapter() {
        Iterator<Adapter> found = ServiceLoader.load(Adapter.class).iterator();
        if (!found.hasNext()) throw new IllegalStateException("no eosfuzz.harness.Adapter on the classpath");
        Adapter adapter = found.next();
        if (found.hasNext()) throw new IllegalStateException("more than one eosfuzz.harness.Adapter on the classpath");
        return adapter;
    }

    private static Map<String, Object> answer(String line, Adapter adapter, Map<String, Service> services) {
        Object id = null;
        Map<String, Object> reply = new LinkedHashMap<>();
        try {
            Fields request = Fields.of(Json.parse(line), "a request");
            id = request.raw("id");
            reply.put("id", id);
            String name = request.getString("service");
            if (name.equals("hello")) {
                reply.put("adapter", adapter.name());
                reply.put("kafkaVersion", KafkaVersion.get());
                reply.put("services", services.keySet());
                return reply;
            }
            Service service = services.get(name);
            if (service == null) throw new HarnessException("no service " + name + " in adapter " + adapter.name());
            reply.putAll(service.handle(request));
            return reply;
        } catch (HarnessException | IllegalArgumentException e) {
            return harnessError(id, e.getMessage());
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            return harnessError(id, "harness failure: " + trace);
        }
    }

    private static Map<String, Object> harnessError(Object id, String message) {
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("id", id);
        reply.put("harnessError", message);
        return reply;
    }
}
