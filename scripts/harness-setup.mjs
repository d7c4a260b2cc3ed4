#!/usr/bin/env node
// npm run harness:setup: builds the JVM harness (jvm/) and resolves, from Maven Central, one
// classpath per Kafka release of jvm/releases.json into jvm/target/classpath/<release>.txt. Needs
// Java 17 or later and Maven. A release whose classpath file is newer than jvm/resolve/pom.xml is
// not resolved again. Exit 0 when every release is ready, 2 when Java or Maven is missing (one line
// says which), 1 when the build or a resolution fails.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const jvm = join(root, "jvm");
const quiet = process.argv.includes("--quiet");
const say = (line) => {
  if (!quiet) process.stdout.write(`${line}\n`);
};

function need(command, args, what) {
  const r = spawnSync(command, args, { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    process.stderr.write(`eosfuzz harness: ${what} is needed (${command} not found on PATH)\n`);
    process.exit(2);
  }
  return `${r.stdout}${r.stderr}`;
}

const javaVersion = need("java", ["-version"], "Java 17 or later");
const major = Number(/version "(\d+)/.exec(javaVersion)?.[1] ?? "0");
if (major < 17) {
  process.stderr.write(`eosfuzz harness: Java 17 or later is needed (java -version says ${major})\n`);
  process.exit(2);
}
need("mvn", ["-v"], "Maven");

function mvn(args, label) {
  const r = spawnSync("mvn", ["-q", "-B", ...args], { cwd: jvm, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.status !== 0) {
    process.stderr.write(`${r.stdout}${r.stderr}`);
    process.stderr.write(`eosfuzz harness: ${label} failed (mvn exit ${r.status})\n`);
    process.exit(1);
  }
}

say("building the JVM harness (mvn package)");
mvn(["package", "-DskipTests"], "building jvm/");

const { releases } = JSON.parse(readFileSync(join(jvm, "releases.json"), "utf8"));
const out = join(jvm, "target", "classpath");
mkdirSync(out, { recursive: true });
const pomTime = statSync(join(jvm, "resolve", "pom.xml")).mtimeMs;
for (const { release } of releases) {
  const file = join(out, `${release}.txt`);
  if (existsSync(file) && statSync(file).mtimeMs > pomTime) {
    say(`kafka ${release}: classpath ready`);
    continue;
  }
  say(`kafka ${release}: resolving its jars from Maven Central`);
  const partial = `${file}.partial`;
  mvn(
    ["-f", "resolve/pom.xml", `-Dkafka.version=${release}`, "dependency:build-classpath", `-Dmdep.outputFile=${partial}`],
    `resolving Kafka ${release}'s jars`,
  );
  renameSync(partial, file);
}
writeFileSync(join(out, "READY"), `${releases.map((r) => r.release).join("\n")}\n`);
say(`harness ready: ${releases.length} Kafka releases`);
