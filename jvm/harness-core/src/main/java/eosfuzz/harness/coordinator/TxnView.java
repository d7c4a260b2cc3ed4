package eosfuzz.harness.coordinator;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A TransactionMetadata's fields, or a TxnTransitMetadata's, in the protocol's names. A release
 * without a field reports what its behaviour amounts to: 3.9 has no nextProducerId (-1), no
 * client transaction version (0), and calls prevProducerId lastProducerId.
 */
public record TxnView(long producerId, long prevProducerId, long nextProducerId, short producerEpoch, short lastProducerEpoch,
        int txnTimeoutMs, String state, List<String> topicPartitions, long txnStartTimestamp, long txnLastUpdateTimestamp,
        int clientTransactionVersion) {

    /** A transit: the fields with the state as txnState. */
    public Map<String, Object> transitJson() {
        Map<String, Object> m = common();
        m.put("txnState", state);
        return m;
    }

    /** A metadata: the transactional id first, then the fields, the pending state and the failed-fence flag. */
    public Map<String, Object> metadataJson(String transactionalId, String pendingState, boolean hasFailedEpochFence) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("transactionalId", transactionalId);
        m.putAll(common());
        m.put("state", state);
        m.put("pendingState", pendingState);
        m.put("hasFailedEpochFence", hasFailedEpochFence);
        return m;
    }

    private Map<String, Object> common() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("producerId", producerId);
        m.put("prevProducerId", prevProducerId);
        m.put("nextProducerId", nextProducerId);
        m.put("producerEpoch", (long) producerEpoch);
        m.put("lastProducerEpoch", (long) lastProducerEpoch);
        m.put("txnTimeoutMs", (long) txnTimeoutMs);
        m.put("topicPartitions", topicPartitions);
        m.put("txnStartTimestamp", txnStartTimestamp);
        m.put("txnLastUpdateTimestamp", txnLastUpdateTimestamp);
        m.put("clientTransactionVersion", (long) clientTransactionVersion);
        return m;
    }
}
