import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { HarnessUnavailable } from "../../harness/kafka-releases.js";
import { driverClasspath } from "../cluster/kafka-jars.js";
import { killGroup, spawnGuarded } from "../process/child-registry.js";

/** A reply of the driver: the op's fields, with `error` ("NONE" or Kafka's Errors name). */
export type DriverReply = Record<string, unknown> & {
  id: number;
  error: string;
  exception?: string;
  cause?: string | null;
  message?: string | null;
};

/** The driver could not carry out a request as written: a bug of ours, never Kafka's answer. */
export class DriverProtocolError extends Error {
  override readonly name = "DriverProtocolError";
}

/** JVM options of the driver: small heap, one GC thread, no JIT beyond C1 (the machines have 2 cores). */
const JVM_OPTIONS = ["-Xms32m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"];

/**
 * The real-client driver (jvm/driver, jvm/DRIVER.md) on one release's kafka-clients: requests go out
 * as JSON lines; replies come back by id, in any order (each lane runs one request at a time).
 */
export class DriverProcess {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (r: DriverReply) => void; reject: (e: Error) => void }>();
  private stderrTail = "";
  private failure: Error | null = null;
  kafkaVersion = "";

  private constructor(
    readonly release: string,
    private readonly child: ChildProcess,
  ) {
    if (!child.stdout || !child.stdin || !child.stderr) throw new Error("the driver needs its pipes");
    createInterface({ input: child.stdout }).on("line", (line) => this.onLine(line));
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
    });
    child.on("exit", (code, signal) =>
      this.fail(
        new Error(
          `the driver (kafka-clients ${release}) exited (${signal ?? `code ${code}`}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}`,
        ),
      ),
    );
    child.on("error", (e) => this.fail(e));
    child.stdin.on("error", (e) => this.fail(e));
  }

  static async start(release: string, logFile?: number): Promise<DriverProcess> {
    const classpath = driverClasspath(release);
    const child = spawnGuarded("java", [...JVM_OPTIONS, "-cp", classpath, "eosfuzz.driver.Main"], {
      what: `driver (kafka-clients ${release})`,
      ownsStdin: true,
      ...(logFile !== undefined ? { stderr: logFile } : {}),
    });
    const driver = new DriverProcess(release, child);
    const hello = await driver.request({ op: "hello" });
    driver.kafkaVersion = String(hello.kafkaVersion);
    if (driver.kafkaVersion !== release)
      throw new HarnessUnavailable(
        `the driver for ${release} runs kafka-clients ${driver.kafkaVersion}: run npm run harness:setup`,
      );
    return driver;
  }

  /** One request; its reply (Kafka's errors included), or a DriverProtocolError. */
  request(body: Record<string, unknown>): Promise<DriverReply> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.stdin?.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  /** A request whose error must be NONE: anything else throws, naming the op and Kafka's answer. */
  async expect(body: Record<string, unknown>): Promise<DriverReply> {
    const r = await this.request(body);
    if (r.error !== "NONE")
      throw new Error(`${String(body.op)}: ${r.error} (${r.exception ?? "?"}: ${r.message ?? ""})`);
    return r;
  }

  private onLine(line: string): void {
    let reply: DriverReply & { driverError?: string };
    try {
      reply = JSON.parse(line) as DriverReply & { driverError?: string };
    } catch {
      this.fail(new DriverProtocolError(`the driver wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    const waiting = this.pending.get(reply.id);
    if (!waiting) {
      this.fail(new DriverProtocolError(`a driver reply for no request: ${line.slice(0, 200)}`));
      return;
    }
    this.pending.delete(reply.id);
    if (reply.driverError !== undefined) waiting.reject(new DriverProtocolError(reply.driverError));
    else waiting.resolve(reply);
  }

  private fail(error: Error): void {
    if (!this.failure) this.failure = error;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
  }

  /** End the driver (its stdin closes: it closes its clients and exits), at most timeoutMs, then SIGKILL. */
  async close(timeoutMs = 8_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once("exit", () => resolve()));
    this.child.stdin?.end();
    const timer = setTimeout(() => void killGroup(this.child), timeoutMs);
    await exited;
    clearTimeout(timer);
  }
}
