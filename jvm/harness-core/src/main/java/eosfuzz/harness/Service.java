package eosfuzz.harness;

import java.util.Map;

/**
 * One comparison surface of one Kafka release (the leader's log, the coordinator's state machine,
 * the client's error handling): takes one request object, returns the reply's fields. Kafka's own
 * exceptions are part of a reply (Kafka answered that way); a HarnessException is a bad request.
 */
public interface Service {
    Map<String, Object> handle(Fields request) throws Exception;
}
