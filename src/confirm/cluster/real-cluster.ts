import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DriverProcess } from "../driver/driver-process.js";
import { killGroup, runGuarded, spawnGuarded, stopGroup } from "../process/child-registry.js";
import { freePorts } from "./free-port.js";
import { kafkaClasspath, metadataVersionFor } from "./kafka-jars.js";
import {
  type BrokerNode,
  brokerProperties,
  type ClusterSettings,
  type ControllerNode,
  controllerProperties,
  log4j2Properties,
} from "./node-properties.js";

export interface RealBrokerSpec {
  /** Kafka's node.id (the model's broker-N runs as node N). */
  nodeId: number;
  /** The model's name: "broker-0". */
  name: string;
  /** The Kafka release it runs: "4.1.2". */
  release: string;
}

export interface RealClusterSpec {
  /** Where every node's data, configuration and logs go (kept with the result). */
  dir: string;
  brokers: readonly RealBrokerSpec[];
  controllerRelease: string;
  /** transaction.version finalized at format time (null: the metadata version's default). */
  transactionVersion: number | null;
  settings: ClusterSettings;
  /** Broker settings for one broker only, by name. */
  brokerOverrides?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

/** Where each broker listener is advertised: its own port, or a proxy's in front of it. */
export interface ListenerRouting {
  /** Called once the ports are known and before any JVM starts: the port to advertise. */
  route(broker: RealBrokerSpec, listener: "CLIENT" | "INTERNAL", upstreamPort: number): Promise<number>;
}

export interface StartOptions {
  routing?: ListenerRouting;
  /** The driver that checks health (describeCluster through every broker). */
  driver: Promise<DriverProcess> | DriverProcess;
  /** The whole start (format, JVMs, health) must fit in this. */
  timeoutMs?: number;
}

/** A node that failed to start, or a start that took too long: says which, with its log's tail. */
export class ClusterStartError extends Error {
  override readonly name = "ClusterStartError";
}

/** JVM options of a Kafka node: a heap sized for 4 JVMs on 2 cores and 24 GB; C1 only (start-up costs less CPU). */
const NODE_JVM_OPTIONS = [
  "-Xms128m",
  "-Xmx384m",
  "-XX:+UseSerialGC",
  "-XX:TieredStopAtLevel=1",
  "-Xshare:auto",
  "-Djava.awt.headless=true",
];

interface RunningNode {
  name: string;
  nodeId: number;
  release: string;
  role: "controller" | "broker";
  dir: string;
  propertiesFile: string;
  log4jFile: string;
  logFile: string;
  stdoutFile: string;
  child: ChildProcess | null;
  /** Why it exited when nobody stopped it. */
  exit: string | null;
  broker: BrokerNode | null;
}

/** A 22-character Kafka cluster id (base64url of 16 random bytes, as Uuid.randomUuid prints one). */
function clusterId(): string {
  return randomBytes(16).toString("base64url");
}

/** The last lines of a file (a node's log), for an error message. */
export function tailOf(file: string, lines = 15): string {
  if (!existsSync(file)) return "(no log)";
  return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
}

/**
 * A real KRaft cluster on 127.0.0.1: one JVM per node, each running `kafka.Kafka` from its own
 * release's jars; one controller; storage formatted by each node's own StorageTool with the metadata
 * version of the oldest member. Every process is guarded (src/confirm/process/child-registry.ts):
 * no JVM outlives eosfuzz.
 */
export class RealCluster {
  private stopped = false;

  private constructor(
    readonly spec: RealClusterSpec,
    readonly clusterId: string,
    readonly metadataVersion: string,
    private readonly nodes: RunningNode[],
  ) {}

  /** Format, start and wait until every broker's own metadata lists every broker. Throws ClusterStartError. */
  static async start(spec: RealClusterSpec, options: StartOptions): Promise<RealCluster> {
    const deadline = Date.now() + (options.timeoutMs ?? 120_000);
    const ports = await freePorts(1 + 2 * spec.brokers.length);
    const controllerNode: ControllerNode = {
      nodeId: 3000,
      port: ports[0] as number,
      dataDir: join(spec.dir, "controller", "data"),
    };
    const nodes: RunningNode[] = [
      nodeFiles(spec.dir, "controller", controllerNode.nodeId, spec.controllerRelease, "controller"),
    ];
    for (const [i, b] of spec.brokers.entries()) {
      const clientPort = ports[1 + 2 * i] as number;
      const internalPort = ports[2 + 2 * i] as number;
      const node = nodeFiles(spec.dir, b.name, b.nodeId, b.release, "broker");
      node.broker = {
        nodeId: b.nodeId,
        dataDir: join(node.dir, "data"),
        clientPort,
        internalPort,
        advertisedClientPort: options.routing ? await options.routing.route(b, "CLIENT", clientPort) : clientPort,
        advertisedInternalPort: options.routing
          ? await options.routing.route(b, "INTERNAL", internalPort)
          : internalPort,
      };
      nodes.push(node);
    }
    const id = clusterId();
    const mv = metadataVersionFor([spec.controllerRelease, ...spec.brokers.map((b) => b.release)]);
    const cluster = new RealCluster(spec, id, mv, nodes);
    try {
      for (const node of nodes) {
        const properties =
          node.role === "controller"
            ? controllerProperties(controllerNode)
            : brokerProperties(node.broker as BrokerNode, controllerNode, {
                ...spec.settings,
                brokerOverrides: { ...spec.settings.brokerOverrides, ...spec.brokerOverrides?.[node.name] },
              });
        writeFileSync(node.propertiesFile, properties);
        writeFileSync(node.log4jFile, log4j2Properties(node.logFile));
      }
      // Two formats at a time: each is a JVM, and the machine has two cores.
      await inPairs(nodes, (node) => cluster.format(node, deadline));
      for (const node of nodes) cluster.launch(node);
      await cluster.waitHealthy(await options.driver, deadline);
      return cluster;
    } catch (e) {
      await cluster.stop();
      throw e;
    }
  }

  private async format(node: RunningNode, deadline: number): Promise<void> {
    const args = [
      ...NODE_JVM_OPTIONS,
      `-Dlog4j2.configurationFile=${node.log4jFile}`,
      "-cp",
      kafkaClasspath(node.release),
      "kafka.tools.StorageTool",
      "format",
      "-t",
      this.clusterId,
      "-c",
      node.propertiesFile,
      "--release-version",
      this.metadataVersion,
    ];
    // Only the controller's bootstrap metadata counts; brokers take the finalized features from it.
    if (node.role === "controller" && this.spec.transactionVersion !== null)
      args.push("--feature", `transaction.version=${this.spec.transactionVersion}`);
    const r = await runGuarded("java", args, {
      what: `StorageTool format of ${node.name} (Kafka ${node.release})`,
      timeoutMs: Math.max(1_000, deadline - Date.now()),
    });
    writeFileSync(join(node.dir, "format.log"), `${r.stdout}${r.stderr}`);
    if (r.code !== 0)
      throw new ClusterStartError(
        `formatting ${node.name}'s storage with Kafka ${node.release}'s StorageTool failed (${r.timedOut ? "timed out" : `exit ${r.code}`}): ${`${r.stdout}${r.stderr}`.trim().split("\n").slice(-3).join(" | ")}`,
      );
  }

  private launch(node: RunningNode): void {
    const out = openSync(node.stdoutFile, "a");
    try {
      node.child = spawnGuarded(
        "java",
        [
          ...NODE_JVM_OPTIONS,
          `-Dlog4j2.configurationFile=${node.log4jFile}`,
          "-cp",
          kafkaClasspath(node.release),
          "kafka.Kafka",
          node.propertiesFile,
        ],
        { what: `${node.name} (Kafka ${node.release})`, stdout: out, stderr: out },
      );
    } finally {
      closeSync(out);
    }
    node.exit = null;
    const child = node.child;
    child.on("exit", (code, signal) => {
      if (!this.stopped && node.child === child) node.exit = signal ?? `exit ${code}`;
    });
  }

  /** Every broker's metadata (Admin.describeCluster through that broker) lists every broker, by the deadline. */
  private async waitHealthy(driver: DriverProcess, deadline: number): Promise<void> {
    const want = this.spec.brokers.map((b) => b.nodeId).sort((a, b) => a - b);
    for (const node of this.brokerNodes()) {
      let last = "no answer yet";
      while (true) {
        this.throwIfExited();
        if (Date.now() > deadline)
          throw new ClusterStartError(
            `the cluster did not come up in time: ${node.name} (Kafka ${node.release}) answered ${last}\n${tailOf(node.logFile)}`,
          );
        const r = await driver.request({
          op: "describeCluster",
          bootstrap: this.bootstrapOf(node.name),
          timeoutMs: 3000,
          lane: `health-${node.name}`,
        });
        if (r.error === "NONE") {
          const seen = (r.nodes as { id: number }[]).map((n) => n.id).sort((a, b) => a - b);
          if (seen.join(",") === want.join(",")) break;
          last = `brokers ${seen.join(", ")}`;
        } else last = `${r.error} (${r.message ?? ""})`;
        await sleep(500);
      }
    }
  }

  /** A node that exited by itself: throw, with its log's tail. */
  throwIfExited(): void {
    for (const node of this.nodes)
      if (node.exit !== null)
        throw new ClusterStartError(
          `${node.name} (Kafka ${node.release}) exited (${node.exit}):\n${tailOf(node.logFile)}\n${tailOf(node.stdoutFile, 5)}`,
        );
  }

  private brokerNodes(): RunningNode[] {
    return this.nodes.filter((n) => n.role === "broker");
  }

  private node(name: string): RunningNode {
    const node = this.nodes.find((n) => n.name === name);
    if (!node) throw new Error(`no node ${name} in the cluster`);
    return node;
  }

  /** The advertised client endpoint of one broker. */
  bootstrapOf(name: string): string {
    const b = this.node(name).broker;
    if (!b) throw new Error(`${name} is not a broker`);
    return `127.0.0.1:${b.advertisedClientPort}`;
  }

  /** Every broker's advertised client endpoint. */
  bootstrap(): string {
    return this.brokerNodes()
      .map((n) => this.bootstrapOf(n.name))
      .join(",");
  }

  /** Each node: its name, id, release, role, log file and process id (null once stopped). */
  describe(): { name: string; nodeId: number; release: string; role: string; logFile: string; pid: number | null }[] {
    return this.nodes.map((n) => ({
      name: n.name,
      nodeId: n.nodeId,
      release: n.release,
      role: n.role,
      logFile: n.logFile,
      pid: n.child?.exitCode === null && n.child.signalCode === null ? (n.child.pid ?? null) : null,
    }));
  }

  /** The data directory of a broker (its partitions' logs, for DumpLogSegments). */
  dataDirOf(name: string): string {
    const b = this.node(name).broker;
    if (!b) throw new Error(`${name} is not a broker`);
    return b.dataDir;
  }

  /** kill -9 of one broker (a cluster event), waiting until its JVM is gone; restartBroker starts it again. */
  async killBroker(name: string): Promise<void> {
    const node = this.node(name);
    const child = node.child;
    node.child = null;
    if (child) await stopGroup(child, "SIGKILL", 10_000);
  }

  /**
   * SIGTERM: Kafka's controlled shutdown (the JVM's shutdown hook asks the controller to move its
   * leadership away, then stops), waiting until the JVM is gone. False when it took longer than
   * timeoutMs and was killed.
   */
  async shutdownBroker(name: string, timeoutMs = 30_000): Promise<boolean> {
    const node = this.node(name);
    const child = node.child;
    node.child = null;
    return child ? await stopGroup(child, "SIGTERM", timeoutMs) : true;
  }

  /** Whether a broker's JVM runs (it was not killed or shut down since it last started). */
  isRunning(name: string): boolean {
    return this.node(name).child !== null;
  }

  restartBroker(name: string): void {
    const node = this.node(name);
    if (node.child) throw new Error(`${name} is running`);
    this.launch(node);
  }

  /** Kill every node (SIGKILL: the logs are on disk, and a clean shutdown costs time), and wait for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(
      this.nodes.map(async (n) => {
        const child = n.child;
        n.child = null;
        if (child) await killGroup(child, "SIGKILL");
      }),
    );
  }
}

function nodeFiles(
  dir: string,
  name: string,
  nodeId: number,
  release: string,
  role: "controller" | "broker",
): RunningNode {
  const nodeDir = join(dir, name);
  mkdirSync(nodeDir, { recursive: true });
  return {
    name,
    nodeId,
    release,
    role,
    dir: nodeDir,
    propertiesFile: join(nodeDir, "server.properties"),
    log4jFile: join(nodeDir, "log4j2.properties"),
    logFile: join(nodeDir, "server.log"),
    stdoutFile: join(nodeDir, "stdout.log"),
    child: null,
    exit: null,
    broker: null,
  };
}

/** Two at a time; a failure is thrown once its pair is done (no JVM of the pair is left running). */
async function inPairs<T>(items: readonly T[], run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 2) {
    const settled = await Promise.allSettled(items.slice(i, i + 2).map(run));
    const failed = settled.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
