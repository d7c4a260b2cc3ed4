import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The Kafka releases the JVM harness runs (jvm/releases.json): each with the adapter module compiled
 * against its signatures and the model's release profile that claims to behave as it does.
 */
export interface HarnessRelease {
  /** Kafka's version, as Maven Central names it: "4.2.1". */
  readonly release: string;
  /** The jvm/adapter-<adapter> module that speaks its signatures. */
  readonly adapter: string;
  /** The model's release profile (src/kafka/release.ts) judged against it. */
  readonly profile: string;
}

/** The jvm/ folder of this checkout or installed package. */
export const JVM_DIR = fileURLToPath(new URL("../../jvm/", import.meta.url));

/** A harness that cannot start (no Java, not set up): the user's environment, reported in one line. */
export class HarnessUnavailable extends Error {
  override readonly name = "HarnessUnavailable";
}

let cached: readonly HarnessRelease[] | null = null;

export function harnessReleases(): readonly HarnessRelease[] {
  if (cached) return cached;
  const file = `${JVM_DIR}releases.json`;
  const parsed = JSON.parse(readFileSync(file, "utf8")) as { releases?: unknown };
  if (!Array.isArray(parsed.releases)) throw new Error(`${file}: releases must be an array`);
  cached = parsed.releases.map((r: unknown, i: number) => {
    const { release, adapter, profile } = (r ?? {}) as Record<string, unknown>;
    if (typeof release !== "string" || typeof adapter !== "string" || typeof profile !== "string")
      throw new Error(`${file}: releases[${i}] needs release, adapter and profile strings`);
    return { release, adapter, profile };
  });
  return cached;
}

export function harnessRelease(release: string): HarnessRelease | undefined {
  return harnessReleases().find((r) => r.release === release);
}

/** The java command line of a release's harness, or why it cannot start. */
export function harnessClasspath(release: HarnessRelease): string {
  const classpathFile = `${JVM_DIR}target/classpath/${release.release}.txt`;
  const jars = [
    `${JVM_DIR}harness-core/target/harness-core-1.jar`,
    `${JVM_DIR}adapter-${release.adapter}/target/adapter-${release.adapter}-1.jar`,
  ];
  for (const jar of [...jars, classpathFile]) {
    if (!existsSync(jar))
      throw new HarnessUnavailable(
        `the JVM harness for Kafka ${release.release} is not set up (${jar.replace(JVM_DIR, "jvm/")} missing): run npm run harness:setup (needs Java 17+ and Maven)`,
      );
  }
  return [...jars, readFileSync(classpathFile, "utf8").trim()].join(":");
}
