package eosfuzz.harness.leader;

import eosfuzz.harness.Fields;
import eosfuzz.harness.HarnessException;
import eosfuzz.harness.KafkaErrors;
import eosfuzz.harness.ManualTime;
import eosfuzz.harness.Service;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The `leader` service (jvm/PROTOCOL.md): one operation sequence on a fresh UnifiedLog of the
 * release, one result per operation with the log's state after it. What is called, and with what,
 * is the same for every release; how it is called is the release's LeaderLog.
 */
public final class LeaderService implements Service {
    /** Builds a fresh log of partition eosfuzz-0 on the given clock. */
    public interface LogFactory {
        LeaderLog create(ManualTime time, int producerIdExpirationMs, int maxTransactionTimeoutMs) throws Exception;
    }

    private final LogFactory factory;

    public LeaderService(LogFactory factory) {
        this.factory = factory;
    }

    @Override
    public Map<String, Object> handle(Fields request) throws Exception {
        Fields config = Fields.of(request.raw("config"), "config");
        ManualTime time = new ManualTime(0);
        List<Object> results = new ArrayList<>();
        Sequence sequence = new Sequence(factory.create(time, config.getInt("producerIdExpirationMs"), config.getInt("maxTransactionTimeoutMs")), time);
        try {
            for (Object raw : request.getList("ops")) results.add(sequence.apply(Fields.of(raw, "an op")));
        } finally {
            sequence.log.close();
        }
        Map<String, Object> reply = new LinkedHashMap<>();
        reply.put("results", results);
        return reply;
    }

    /**
     * One sequence's state the service keeps beside the log: each producer's last guard, the guard each
     * verify op returned (by its index in the sequence), the ids used.
     */
    private static final class Sequence {
        private LeaderLog log;
        private final ManualTime time;
        private final Map<Long, Object> guards = new HashMap<>();
        private final Map<Integer, Object> guardsByOp = new HashMap<>();
        private final TreeSet<Long> producerIds = new TreeSet<>();
        private int index = -1;

        Sequence(LeaderLog log, ManualTime time) {
            this.log = log;
            this.time = time;
        }

        Map<String, Object> apply(Fields op) {
            index++;
            // A trace replays the model's clock: an op may say when it happened (never earlier than the last).
            if (op.has("atMs")) time.set(op.getLong("atMs"));
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("error", "NONE");
            result.put("exception", null);
            result.put("message", null);
            try {
                step(op, result);
            } catch (HarnessException e) {
                throw e;
            } catch (Throwable t) {
                // Kafka's answer: the exception its classes threw, and the error the broker would send for it.
                result.put("error", KafkaErrors.nameOf(t));
                result.put("exception", t.getClass().getSimpleName());
                result.put("message", t.getMessage());
            }
            result.put("state", state());
            return result;
        }

        private void step(Fields op, Map<String, Object> result) throws Exception {
            String name = op.getString("op");
            switch (name) {
                case "verify" -> {
                    long pid = op.getLong("producerId");
                    producerIds.add(pid);
                    Object guard = log.maybeStartTransactionVerification(pid, op.getInt("sequence"), op.getShort("producerEpoch"), op.getBool("supportsEpochBump"));
                    Object previous = guards.put(pid, guard);
                    guardsByOp.put(index, guard);
                    result.put("guard", guard == log.sentinelGuard() ? "sentinel" : guard == previous ? "reused" : "new");
                }
                case "data" -> {
                    long pid = op.getLong("producerId");
                    producerIds.add(pid);
                    LeaderLog.DataBatch batch = new LeaderLog.DataBatch(pid, op.getShort("producerEpoch"), op.getInt("baseSequence"), op.getInt("count"), op.getBool("transactional"), op.getInt("leaderEpoch", 0));
                    String origin = origin(op, "CLIENT", "COORDINATOR", "REPLICATION");
                    if (origin.equals("REPLICATION")) {
                        long base = log.logEndOffset();
                        log.appendDataAsFollower(batch, base, timestamp(op));
                        result.put("firstOffset", base);
                        result.put("lastOffset", base + batch.count() - 1);
                        result.put("duplicate", false);
                    } else {
                        long endBefore = log.logEndOffset();
                        long[] offsets = log.appendDataAsLeader(batch, origin, guardFor(op, pid), timestamp(op));
                        result.put("firstOffset", offsets[0]);
                        result.put("lastOffset", offsets[1]);
                        result.put("duplicate", log.logEndOffset() == endBefore);
                    }
                }
                case "marker" -> {
                    long pid = op.getLong("producerId");
                    producerIds.add(pid);
                    String kind = op.getString("result");
                    if (!kind.equals("COMMIT") && !kind.equals("ABORT")) throw new HarnessException("marker result must be COMMIT or ABORT, got " + kind);
                    LeaderLog.Marker marker = new LeaderLog.Marker(pid, op.getShort("producerEpoch"), op.getInt("coordinatorEpoch"), kind.equals("COMMIT"), op.getShort("transactionVersion"), op.getInt("leaderEpoch", 0));
                    if (origin(op, "COORDINATOR", "REPLICATION").equals("REPLICATION")) {
                        long base = log.logEndOffset();
                        log.appendMarkerAsFollower(marker, base, timestamp(op));
                        result.put("offset", base);
                    } else {
                        long endBefore = log.logEndOffset();
                        long first = log.appendMarkerAsLeader(marker, timestamp(op));
                        result.put("offset", log.logEndOffset() == endBefore ? null : first);
                    }
                }
                case "records" -> {
                    if (origin(op, "COORDINATOR", "REPLICATION").equals("REPLICATION")) {
                        long base = log.logEndOffset();
                        log.appendPlainAsFollower(op.getInt("leaderEpoch", 0), base, timestamp(op));
                        result.put("offset", base);
                    } else {
                        result.put("offset", log.appendPlainAsLeader(op.getInt("leaderEpoch", 0), timestamp(op)));
                    }
                }
                case "highWatermark" -> log.updateHighWatermark(op.getLong("offset"));
                case "truncate" -> log.truncateTo(op.getLong("offset"));
                case "logStartOffset" -> result.put("moved", log.maybeIncrementLogStartOffset(op.getLong("offset")));
                case "advanceTime" -> time.advance(op.getLong("ms"));
                case "expireProducers" -> log.removeExpiredProducers(time.milliseconds());
                // Partition.makeLeader / makeFollower do not touch the log's producer state (the epoch
                // start offset goes to the leader epoch cache): the state after the op is what is compared.
                case "becomeLeader", "becomeFollower" -> { }
                case "restart" -> {
                    log = log.reopen(op.getBool("clean"));
                    guards.clear();
                    // The broker's ReplicaManager restores the high watermark from its checkpoint file
                    // (Partition.createLogIfNotExists): the op says what the checkpoint held.
                    if (op.has("highWatermark")) log.updateHighWatermark(op.getLong("highWatermark"));
                }
                default -> throw new HarnessException("leader: no op " + name);
            }
        }

        /** The records' timestamp: the op's `timestamp` (a follower's copy keeps its leader's), else now. */
        private long timestamp(Fields op) {
            return op.getLong("timestamp", time.milliseconds());
        }

        private Object guardFor(Fields op, long pid) {
            String guard = op.getString("guard");
            if (guard.startsWith("op:")) {
                int at = Integer.parseInt(guard.substring(3));
                if (!guardsByOp.containsKey(at)) throw new HarnessException("guard " + guard + ": op " + at + " was no verify that returned a guard");
                return guardsByOp.get(at);
            }
            return switch (guard) {
                case "verified" -> guards.getOrDefault(pid, log.sentinelGuard());
                case "none" -> log.sentinelGuard();
                case "stale" -> log.unheldGuard();
                default -> throw new HarnessException("guard must be verified, none, stale or op:N, got " + guard);
            };
        }

        private static String origin(Fields op, String... allowed) {
            String origin = op.getString("origin");
            for (String a : allowed) if (a.equals(origin)) return origin;
            throw new HarnessException("origin " + origin + " is not one of " + String.join(", ", allowed) + " for op " + op.getString("op"));
        }

        private Map<String, Object> state() {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("logEndOffset", log.logEndOffset());
            s.put("highWatermark", log.highWatermark());
            s.put("lastStableOffset", log.lastStableOffset());
            s.put("firstUnstableOffset", log.firstUnstableOffset().isPresent() ? log.firstUnstableOffset().getAsLong() : null);
            List<Object> aborted = new ArrayList<>();
            for (long[] a : log.abortedTransactions()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("producerId", a[0]);
                m.put("firstOffset", a[1]);
                m.put("lastOffset", a[2]);
                m.put("lastStableOffset", a[3]);
                aborted.add(m);
            }
            s.put("abortedTxns", aborted);
            List<Object> producers = new ArrayList<>();
            log.producers().values().stream().sorted((a, b) -> Long.compare(a.producerId(), b.producerId())).forEach(p -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("producerId", p.producerId());
                m.put("producerEpoch", (long) p.producerEpoch());
                m.put("coordinatorEpoch", (long) p.coordinatorEpoch());
                m.put("currentTxnFirstOffset", p.currentTxnFirstOffset().isPresent() ? p.currentTxnFirstOffset().getAsLong() : null);
                m.put("lastSequence", (long) p.lastSequence());
                m.put("lastTimestamp", p.lastTimestamp());
                producers.add(m);
            });
            s.put("producers", producers);
            List<Object> verification = new ArrayList<>();
            for (long pid : producerIds) {
                LeaderLog.VerificationView v = log.verificationEntry(pid);
                if (v == null) continue;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("producerId", pid);
                m.put("producerEpoch", (long) v.producerEpoch());
                m.put("lowestSequence", (long) v.lowestSequence());
                m.put("supportsEpochBump", v.supportsEpochBump());
                verification.add(m);
            }
            s.put("verification", verification);
            return s;
        }
    }
}
