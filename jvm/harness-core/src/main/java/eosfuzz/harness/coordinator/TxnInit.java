package eosfuzz.harness.coordinator;

import eosfuzz.harness.Fields;
import java.util.List;

/** The txnMetadata service's `init`: the fields a TransactionMetadata is constructed with. */
public record TxnInit(String transactionalId, long producerId, long prevProducerId, long nextProducerId, short producerEpoch,
        short lastProducerEpoch, int txnTimeoutMs, String state, List<Object> topicPartitions, long txnStartTimestamp,
        long txnLastUpdateTimestamp, short clientTransactionVersion) {

    public static TxnInit of(Fields f) {
        return new TxnInit(f.getString("transactionalId"), f.getLong("producerId"), f.getLong("prevProducerId", -1),
                f.getLong("nextProducerId", -1), f.getShort("producerEpoch"), f.has("lastProducerEpoch") ? f.getShort("lastProducerEpoch") : -1,
                f.getInt("txnTimeoutMs"), TxnNames.state(f.getString("state")), f.getList("topicPartitions"), f.getLong("txnStartTimestamp"),
                f.getLong("txnLastUpdateTimestamp"), f.has("clientTransactionVersion") ? f.getShort("clientTransactionVersion") : 0);
    }
}
