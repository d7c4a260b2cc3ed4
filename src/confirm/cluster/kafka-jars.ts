import { existsSync, readFileSync } from "node:fs";
import { HarnessUnavailable, harnessReleases, JVM_DIR } from "../../harness/kafka-releases.js";

/**
 * The Kafka releases a real cluster can run: those of jvm/releases.json, whose jars npm run
 * harness:setup resolved from Maven Central (kafka_2.13 with kafka.Kafka, StorageTool and
 * DumpLogSegments, and kafka-clients).
 */

/**
 * A scenario names the model's release profiles ("4.1", "3.x", "4.2.1"); a real cluster runs
 * Kafka releases. A profile runs as the first release of jvm/releases.json that claims it (4.1 as
 * 4.1.2, 3.x as 3.9.1); a Kafka version given as such ("4.2.2") runs as itself.
 */
export function kafkaReleaseFor(name: string): string {
  const releases = harnessReleases();
  if (releases.some((r) => r.release === name)) return name;
  const byProfile = releases.find((r) => r.profile === name);
  if (byProfile) return byProfile.release;
  throw new HarnessUnavailable(
    `no Kafka release for "${name}": jvm/releases.json has ${releases.map((r) => r.release).join(", ")}`,
  );
}

/** The classpath of one release (its jars), or why it is not set up. */
export function kafkaClasspath(release: string): string {
  const file = `${JVM_DIR}target/classpath/${release}.txt`;
  if (!existsSync(file))
    throw new HarnessUnavailable(
      `Kafka ${release}'s jars are not resolved (jvm/target/classpath/${release}.txt missing): run npm run harness:setup`,
    );
  return readFileSync(file, "utf8").trim();
}

/** The driver's classpath on a release's clients (jvm/driver and the harness's JSON, then the release's jars). */
export function driverClasspath(release: string): string {
  const jars = [`${JVM_DIR}driver/target/driver-1.jar`, `${JVM_DIR}harness-core/target/harness-core-1.jar`];
  for (const jar of jars)
    if (!existsSync(jar))
      throw new HarnessUnavailable(
        `the driver is not built (${jar.replace(JVM_DIR, "jvm/")} missing): run npm run harness:setup`,
      );
  return [...jars, kafkaClasspath(release)].join(":");
}

/** Release order by version numbers: "4.1.2" < "4.2.1" < "4.10.0". */
export function compareReleases(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * The newest production metadata.version of each release line (what its StorageTool formats with
 * by default, `format --help` says). A mixed cluster is formatted with the oldest member's, which
 * every member supports.
 */
const LATEST_METADATA_VERSION: Record<string, string> = {
  "3.9": "3.9-IV0",
  "4.0": "4.0-IV3",
  "4.1": "4.1-IV1",
  "4.2": "4.2-IV1",
  "4.3": "4.3-IV0",
  "4.4": "4.4-IV2",
};

export function metadataVersionFor(releases: readonly string[]): string {
  const oldest = [...releases].sort(compareReleases)[0];
  if (oldest === undefined) throw new Error("a cluster needs at least one release");
  const line = oldest.split(".").slice(0, 2).join(".");
  const mv = LATEST_METADATA_VERSION[line];
  if (!mv) throw new HarnessUnavailable(`no metadata.version known for Kafka ${oldest}`);
  return mv;
}

/**
 * The model's release profile that claims to behave as a Kafka release (jvm/releases.json), or
 * null when the model has none (the newer lines the harness judges, 4.3 and 4.4).
 */
export function modelProfileOf(release: string): string | null {
  return harnessReleases().find((r) => r.release === release)?.profile ?? null;
}
