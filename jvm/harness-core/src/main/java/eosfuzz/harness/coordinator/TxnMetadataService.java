package eosfuzz.harness.coordinator;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.KafkaErrors;
import eosfuzz.harness.Service;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The `txnMetadata` service (jvm/PROTOCOL.md): one operation sequence on a TransactionMetadata of the
 * release built from `init`, one result per operation with the transit a prepare returned and the
 * metadata after it. What is called is the same for every release; how is the release's machine.
 */
public final class TxnMetadataService implements Service {
    private final TxnMetadataMachine.Factory factory;

    public TxnMetadataService(TxnMetadataMachine.Factory factory) {
        this.factory = factory;
    }

    @Override
    public Map<String, Object> handle(Fields request) {
        TxnMetadataMachine machine = factory.create(TxnInit.of(Fields.of(request.raw("init"), "init")));
        List<Object> results = new ArrayList<>();
        for (Object raw : request.getList("ops")) results.add(apply(machine, Fields.of(raw, "an op")));
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("results", results);
        return reply;
    }

    private static Map<String, Object> apply(TxnMetadataMachine m, Fields op) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("error", "NONE");
        result.put("exception", null);
        result.put("message", null);
        TxnView transit = null;
        try {
            transit = step(m, op, result);
        } catch (HarnessException e) {
            throw e;
        } catch (KafkaErrorAnswer e) {
            result.put("error", e.error());
        } catch (Throwable t) {
            result.put("error", KafkaErrors.nameOf(t));
            result.put("exception", t.getClass().getSimpleName());
            result.put("message", t.getMessage());
        }
        result.put("transit", transit == null ? null : transit.transitJson());
        result.put("metadata", m.view().metadataJson(m.transactionalId(), m.pendingState(), m.hasFailedEpochFence()));
        return result;
    }

    private static TxnView step(TxnMetadataMachine m, Fields op, Map<String, Object> result) {
        String name = op.getString("op");
        return switch (name) {
            case "prepareIncrementProducerEpoch" -> m.prepareIncrementProducerEpoch(op.getInt("newTxnTimeoutMs"),
                    op.has("expectedProducerEpoch") ? op.getShort("expectedProducerEpoch") : null, op.getLong("updateTimestamp"));
            case "prepareProducerIdRotation" -> m.prepareProducerIdRotation(op.getLong("producerId"), op.getInt("newTxnTimeoutMs"),
                    op.getLong("updateTimestamp"), op.getBool("recordLastEpoch"));
            case "prepareAddPartitions" -> m.prepareAddPartitions(op.getList("partitions"), op.getLong("updateTimestamp"),
                    op.getShort("clientTransactionVersion"));
            case "prepareAbortOrCommit" -> {
                String state = TxnNames.state(op.getString("newState"));
                if (!state.equals("PREPARE_COMMIT") && !state.equals("PREPARE_ABORT"))
                    throw new HarnessException("prepareAbortOrCommit: newState must be PREPARE_COMMIT or PREPARE_ABORT, got " + state);
                yield m.prepareAbortOrCommit(state, op.getShort("clientTransactionVersion"), op.getLong("nextProducerId"),
                        op.getLong("updateTimestamp"), op.getBool("noPartitionAdded"));
            }
            case "prepareFenceProducerEpoch" -> m.prepareFenceProducerEpoch();
            case "prepareComplete" -> m.prepareComplete(op.getLong("updateTimestamp"));
            case "prepareDead" -> m.prepareDead();
            case "completeTransitionTo" -> {
                // With no transit kept (every prepare so far threw) there is nothing to complete: completed false.
                result.put("completed", m.completeTransitionTo());
                yield null;
            }
            case "clearPendingState" -> {
                m.clearPendingState();
                yield null;
            }
            default -> throw new HarnessException("txnMetadata: no op " + name);
        };
    }
}
