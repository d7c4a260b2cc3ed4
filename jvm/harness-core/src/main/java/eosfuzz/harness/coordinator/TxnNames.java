package eosfuzz.harness.coordinator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import eosfuzz.harness.HarnessException;
import org.apache.kafka.common.TopicPartition;

/**
 * The protocol's names for the coordinator's values, whatever the release spells them: transaction
 * states are the Java enum names of 4.1's TransactionState (3.9 and 4.0 have Scala case objects named
 * "PrepareCommit" and so on), partitions are "topic-N" strings in sorted order.
 */
public final class TxnNames {
    private TxnNames() {}

    private static final String[][] STATES = {
        {"EMPTY", "Empty"},
        {"ONGOING", "Ongoing"},
        {"PREPARE_COMMIT", "PrepareCommit"},
        {"PREPARE_ABORT", "PrepareAbort"},
        {"COMPLETE_COMMIT", "CompleteCommit"},
        {"COMPLETE_ABORT", "CompleteAbort"},
        {"DEAD", "Dead"},
        {"PREPARE_EPOCH_FENCE", "PrepareEpochFence"},
    };

    /** The enum name of a state a Scala release calls by its case object's name ("PrepareCommit" -> "PREPARE_COMMIT"). */
    public static String enumName(String scalaName) {
        for (String[] s : STATES) if (s[1].equals(scalaName) || s[0].equals(scalaName)) return s[0];
        throw new IllegalStateException("no transaction state named " + scalaName);
    }

    /** The Scala case object's name of a protocol state name. */
    public static String scalaName(String enumName) {
        for (String[] s : STATES) if (s[0].equals(enumName)) return s[1];
        throw new HarnessException("no transaction state " + enumName);
    }

    /** Checks a protocol state name. */
    public static String state(String enumName) {
        scalaName(enumName);
        return enumName;
    }

    public static TopicPartition partition(String name) {
        int dash = name.lastIndexOf('-');
        if (dash <= 0) throw new HarnessException("partition must be topic-N, got " + name);
        try {
            return new TopicPartition(name.substring(0, dash), Integer.parseInt(name.substring(dash + 1)));
        } catch (NumberFormatException e) {
            throw new HarnessException("partition must be topic-N, got " + name);
        }
    }

    public static Set<TopicPartition> partitions(List<Object> names) {
        Set<TopicPartition> out = new HashSet<>();
        for (Object n : names) {
            if (!(n instanceof String)) throw new HarnessException("a partition must be a string, got " + n);
            out.add(partition((String) n));
        }
        return out;
    }

    /** Sorted "topic-N" names: a set's iteration order is no answer of Kafka's. */
    public static List<String> names(Collection<TopicPartition> partitions) {
        List<String> out = new ArrayList<>();
        for (TopicPartition p : partitions) out.add(p.topic() + "-" + p.partition());
        out.sort(null);
        return out;
    }
}
