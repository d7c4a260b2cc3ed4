import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline";
import { type HarnessRelease, HarnessUnavailable, harnessClasspath } from "./kafka-releases.js";

/** A reply of the harness: the service's fields, or harnessError when the request was not carried out. */
export type HarnessReply = Record<string, unknown> & { id: number; harnessError?: string };

/** The harness answered that it could not carry out a request: a bug of ours, never Kafka's answer. */
export class HarnessProtocolError extends Error {
  override readonly name = "HarnessProtocolError";
}

/** JVM options for a harness: small heap, one GC thread (the machines have 2 cores). */
const JVM_OPTIONS = ["-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-Xshare:auto", "-Dlog4j2.level=OFF"];

const live = new Set<ChildProcessWithoutNullStreams>();
let exitHookInstalled = false;

/** No harness outlives eosfuzz: each is killed when the process exits, however it exits. */
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) child.kill("SIGKILL");
  });
}

let javaChecked = false;

function checkJava(): void {
  if (javaChecked) return;
  const r = spawnSync("java", ["-version"], { encoding: "utf8" });
  if (r.error || r.status !== 0)
    throw new HarnessUnavailable("the JVM harness needs Java 17 or later: java is not on PATH");
  javaChecked = true;
}

/**
 * One running harness: Kafka's classes of one release in a JVM, behind the line protocol of
 * jvm/PROTOCOL.md. Requests are pipelined: `request` writes at once and resolves when the reply
 * of that id comes (replies come in request order). The stdin pipe closing ends the JVM.
 */
export class KafkaHarness {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: HarnessReply) => void; reject: (e: Error) => void }>();
  private stderrTail = "";
  private failure: Error | null = null;

  private constructor(
    readonly release: HarnessRelease,
    private readonly child: ChildProcessWithoutNullStreams,
    /** The Kafka version the harness's kafka-clients jar reports (its hello). */
    public kafkaVersion = "",
    /** The services its adapter offers (its hello). */
    public services: readonly string[] = [],
  ) {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => this.onLine(line));
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
    });
    child.on("exit", (code, signal) => {
      live.delete(child);
      this.fail(
        new Error(
          `the Kafka ${release.release} harness exited (${signal ?? `code ${code}`}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}`,
        ),
      );
    });
    child.stdin.on("error", (e) => this.fail(e));
  }

  static async start(release: HarnessRelease): Promise<KafkaHarness> {
    checkJava();
    const classpath = harnessClasspath(release);
    installExitHook();
    const child = spawn("java", [...JVM_OPTIONS, "-cp", classpath, "eosfuzz.harness.Main"], { stdio: "pipe" });
    live.add(child);
    const harness = new KafkaHarness(release, child);
    const hello = await harness.request({ service: "hello" });
    harness.kafkaVersion = String(hello.kafkaVersion);
    harness.services = Array.isArray(hello.services) ? hello.services.map(String) : [];
    if (harness.kafkaVersion !== release.release)
      throw new HarnessUnavailable(
        `the harness for Kafka ${release.release} runs kafka-clients ${harness.kafkaVersion}: run npm run harness:setup again`,
      );
    return harness;
  }

  /** Send one request; its reply, or a HarnessProtocolError when the harness could not carry it out. */
  request(body: Record<string, unknown>): Promise<HarnessReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    const line = `${JSON.stringify({ id, ...body })}\n`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin.write(line);
    });
  }

  private onLine(line: string): void {
    let reply: HarnessReply;
    try {
      reply = JSON.parse(line) as HarnessReply;
    } catch {
      this.fail(new HarnessProtocolError(`the harness wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) {
      this.fail(new HarnessProtocolError(`a harness reply for no request: ${line.slice(0, 200)}`));
      return;
    }
    this.pending.delete(reply.id);
    if (reply.harnessError !== undefined) waiting.reject(new HarnessProtocolError(reply.harnessError));
    else waiting.resolve(reply);
  }

  private fail(error: Error): void {
    if (!this.failure) this.failure = error;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }

  /** End the JVM (closing its stdin) and wait for it to go. */
  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
