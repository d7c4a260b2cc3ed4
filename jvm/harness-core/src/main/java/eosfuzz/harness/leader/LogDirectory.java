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

    /** Memory-backed when the machine has one (/dev/shm): a sequence's appends never wait for a disk. */
    private static final Path BASE = Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))
            ? Path.of("/dev/shm") : Path.of(System.getProperty("java.io.tmpdir"));

    public static LogDirectory create() throws IOException {
        return new LogDirectory(Files.createTempDirectory(BASE, "eosfuzz-leader"));
    }

    /** The log's own directory, partition eosfuzz-0 (created by UnifiedLog). */
    public File partition() {
        return parent.resolve("eosfuzz-0").toFile();
    }

    /** The names of the log's producer-state snapshot files (`*.snapshot`). */
    public java.util.Set<String> producerSnapshots() {
        String[] names = partition().list((d, name) -> name.endsWith(".snapshot"));
        return names == null ? java.util.Set.of() : java.util.Set.of(names);
    }

    /**
     * Deletes the producer-state snapshots not in `kept`: what a clean close wrote and a crash never
     * would have. The snapshots taken before (at truncations and recoveries) are on disk either way.
     */
    public void dropProducerSnapshotsExcept(java.util.Set<String> kept) throws IOException {
        for (String name : producerSnapshots())
            if (!kept.contains(name)) Files.delete(partition().toPath().resolve(name));
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
