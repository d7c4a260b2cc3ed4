package eosfuzz.harness.leader;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The temporary directory one sequence's log lives in. UnifiedLog reads its partition from the
 * directory's name, so the log is `<temp>/eosfuzz-0`; the whole temp directory goes when the
 * sequence ends. The same for every release: it makes no Kafka call.
 */
public final class LogDirectory implements AutoCloseable {
    private final Path parent;

    private LogDirectory(Path parent) {
        this.parent = parent;
    }

    public static LogDirectory create() throws IOException {
        return new LogDirectory(Files.createTempDirectory("eosfuzz-leader"));
    }

    /** The log's own directory, partition eosfuzz-0 (created by UnifiedLog). */
    public File partition() {
        return parent.resolve("eosfuzz-0").toFile();
    }

    /**
     * Deletes the log's producer-state snapshots (`*.snapshot`): a log opened after it rebuilds its
     * producer state from its segments alone, as recovery after a crash past the last snapshot does.
     */
    public void dropProducerSnapshots() throws IOException {
        File[] files = partition().listFiles((d, name) -> name.endsWith(".snapshot"));
        if (files == null) return;
        for (File f : files) Files.delete(f.toPath());
    }

    /** Deletes the directory and everything the log wrote in it (deepest first). */
    @Override
    public void close() throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(parent)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : paths) Files.deleteIfExists(p);
    }
}
