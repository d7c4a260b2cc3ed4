package eosfuzz.harness.client;

import eosfuzz.harness.HarnessException;
import eosfuzz.harness.ManualTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.ApiVersions;
import org.apache.kafka.clients.ClientRequest;
import org.apache.kafka.clients.ClientResponse;
import org.apache.kafka.clients.KafkaClient;
import org.apache.kafka.clients.LeastLoadedNode;
import org.apache.kafka.clients.NodeApiVersions;
import org.apache.kafka.clients.RequestCompletionHandler;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * The Sender's network, played by the harness: one broker (node 0), always connected, that answers
 * only when told. What Kafka's MockClient is in TransactionManagerTest (kafka-clients' test jar is not
 * served for every release, and KafkaClient's methods are the same from 3.9 to 4.4, so one class
 * serves every adapter).
 *
 * send() builds the request as NetworkClient.doSend does (the version the node's ApiVersions and the
 * builder allow; a builder that refuses every version is answered with a version mismatch, as
 * NetworkClient answers it) and keeps it in flight. answer() and disconnect() queue the reply, and
 * the next poll() completes it: ClientResponse.onComplete runs the request's handler, and an
 * exception that handler throws is kept and swallowed, as NetworkClient.completeResponses does.
 */
public final class ScriptedNetwork implements KafkaClient {
    /** A request sent and not yet answered: the ClientRequest and the request the builder made. */
    public record InFlight(ClientRequest clientRequest, AbstractRequest request, short version) {}

    private final ManualTime time;
    private final Node node;
    private final ApiVersions apiVersions;
    private final List<InFlight> inFlight = new ArrayList<>();
    private final List<ClientResponse> ready = new ArrayList<>();
    private final List<InFlight> sent = new ArrayList<>();
    private final List<Throwable> handlerExceptions = new ArrayList<>();
    private int nextCorrelationId = 1;

    public ScriptedNetwork(ManualTime time, Node node, ApiVersions apiVersions) {
        this.time = time;
        this.node = node;
        this.apiVersions = apiVersions;
    }

    public Node node() {
        return node;
    }

    /** Requests sent and not yet answered, oldest first. */
    public List<InFlight> inFlight() {
        return List.copyOf(inFlight);
    }

    /** Every request sent so far, in order. */
    public List<InFlight> sent() {
        return List.copyOf(sent);
    }

    /** Exceptions a response handler threw (NetworkClient logs and swallows them). */
    public List<Throwable> handlerExceptions() {
        return List.copyOf(handlerExceptions);
    }

    /** The broker answers `request` with `body`; the handler runs at the Sender's next poll. */
    public void answer(InFlight request, AbstractResponse body) {
        take(request);
        ready.add(new ClientResponse(request.clientRequest().makeHeader(request.version()), request.clientRequest().callback(),
                request.clientRequest().destination(), request.clientRequest().createdTimeMs(), time.milliseconds(),
                false, null, null, body));
    }

    /** The connection drops before the answer: the handler sees wasDisconnected() at the next poll. */
    public void disconnect(InFlight request) {
        take(request);
        ready.add(new ClientResponse(request.clientRequest().makeHeader(request.version()), request.clientRequest().callback(),
                request.clientRequest().destination(), request.clientRequest().createdTimeMs(), time.milliseconds(),
                true, null, null, null));
    }

    private void take(InFlight request) {
        if (!inFlight.remove(request)) throw new HarnessException("no such request in flight: " + request.clientRequest());
    }

    @Override
    public boolean isReady(Node node, long now) {
        return true;
    }

    @Override
    public boolean ready(Node node, long now) {
        return true;
    }

    @Override
    public long connectionDelay(Node node, long now) {
        return 0;
    }

    @Override
    public long pollDelayMs(Node node, long now) {
        return 0;
    }

    @Override
    public boolean connectionFailed(Node node) {
        return false;
    }

    @Override
    public AuthenticationException authenticationException(Node node) {
        return null;
    }

    @Override
    public void send(ClientRequest request, long now) {
        AbstractRequest.Builder<?> builder = request.requestBuilder();
        NodeApiVersions versions = apiVersions.get(request.destination());
        try {
            short version = versions == null
                    ? builder.latestAllowedVersion()
                    : versions.latestUsableVersion(request.apiKey(), builder.oldestAllowedVersion(), builder.latestAllowedVersion());
            InFlight entry = new InFlight(request, builder.build(version), version);
            inFlight.add(entry);
            sent.add(entry);
        } catch (UnsupportedVersionException e) {
            ready.add(new ClientResponse(request.makeHeader(builder.latestAllowedVersion()), request.callback(), request.destination(),
                    now, now, false, e, null, null));
        }
    }

    @Override
    public List<ClientResponse> poll(long timeout, long now) {
        List<ClientResponse> completed = new ArrayList<>(ready);
        ready.clear();
        for (ClientResponse response : completed) {
            try {
                response.onComplete();
            } catch (Exception e) {
                handlerExceptions.add(e);
            }
        }
        return completed;
    }

    @Override
    public void disconnect(String nodeId) {}

    @Override
    public void close(String nodeId) {}

    @Override
    public LeastLoadedNode leastLoadedNode(long now) {
        return new LeastLoadedNode(node, true);
    }

    @Override
    public int inFlightRequestCount() {
        return inFlight.size();
    }

    @Override
    public boolean hasInFlightRequests() {
        return !inFlight.isEmpty();
    }

    @Override
    public int inFlightRequestCount(String nodeId) {
        return inFlight.size();
    }

    @Override
    public boolean hasInFlightRequests(String nodeId) {
        return !inFlight.isEmpty();
    }

    @Override
    public boolean hasReadyNodes(long now) {
        return true;
    }

    @Override
    public void wakeup() {}

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder, long createdTimeMs, boolean expectResponse) {
        return newClientRequest(nodeId, requestBuilder, createdTimeMs, expectResponse, 30_000, null);
    }

    @Override
    public ClientRequest newClientRequest(String nodeId, AbstractRequest.Builder<?> requestBuilder, long createdTimeMs, boolean expectResponse,
                                          int requestTimeoutMs, RequestCompletionHandler callback) {
        return new ClientRequest(nodeId, requestBuilder, nextCorrelationId++, "eosfuzz-producer", createdTimeMs, expectResponse,
                requestTimeoutMs, callback);
    }

    @Override
    public void initiateClose() {}

    @Override
    public boolean active() {
        return true;
    }

    @Override
    public void close() {}
}
