import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { type AddressInfo, connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ClusterStartError, RealCluster } from "../../src/confirm/cluster/real-cluster.js";
import { DriverProcess } from "../../src/confirm/driver/driver-process.js";
import { startEosfuzz } from "../cli/cli-helpers.js";

// Real clusters (npm run confirm:check): a mixed 4.1.2/4.2.1 KRaft cluster starts, and neither a
// SIGINT of the process that runs it nor a failed start leaves a JVM or a bound port behind.

const FIXTURE = fileURLToPath(new URL("./fixtures/cluster-until-signal.mjs", import.meta.url));

/** Process ids of every JVM whose command line names `dir` (the node's server.properties is in it). */
function jvmsOf(dir: string): number[] {
  const r = spawnSync("pgrep", ["-f", dir], { encoding: "utf8" });
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => {
      // A connect to a free port of the ephemeral range can meet itself (TCP simultaneous open,
      // source port = destination port): that is no listener.
      const self = s.localPort === port;
      s.destroy();
      resolve(!self);
    });
    s.once("error", () => resolve(false));
  });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) for (const pid of jvmsOf(dir)) process.kill(pid, "SIGKILL");
});

describe("a real cluster", () => {
  it("starts with mixed releases, and a SIGINT of eosfuzz leaves no JVM and no port", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-cluster-"));
    dirs.push(dir);
    const child = spawn(process.execPath, [FIXTURE, dir], { stdio: ["ignore", "pipe", "inherit"] });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`the cluster fixture exited ${code} before the cluster was up`)));
    });
    const { ports, nodes } = JSON.parse(line) as {
      ports: number[];
      nodes: { name: string; release: string; pid: number }[];
    };
    expect(nodes.map((n) => `${n.name} ${n.release}`)).toEqual([
      "controller 4.1.2",
      "broker-0 4.2.1",
      "broker-1 4.1.2",
    ]);
    expect(jvmsOf(dir).length).toBeGreaterThanOrEqual(3);
    expect(await portOpen(ports[0] as number)).toBe(true);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(jvmsOf(dir)).toEqual([]);
    for (const port of ports) expect(await portOpen(port)).toBe(false);
  }, 150_000);

  async function failedStart(brokerOverrides: Record<string, string>, why: RegExp): Promise<void> {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-cluster-"));
    dirs.push(dir);
    const driver = DriverProcess.start("4.2.1");
    const start = RealCluster.start(
      {
        dir,
        controllerRelease: "4.2.1",
        transactionVersion: 2,
        brokers: [{ nodeId: 0, name: "broker-0", release: "4.2.1" }],
        settings: {
          transactionStatePartitions: 1,
          transactionStateReplicationFactor: 1,
          transactionStateMinIsr: 1,
          brokerOverrides,
        },
      },
      { driver, timeoutMs: 90_000 },
    );
    await expect(start).rejects.toThrow(ClusterStartError);
    await expect(start).rejects.toThrow(why);
    await (await driver).close();
    expect(jvmsOf(dir)).toEqual([]);
  }

  it("whose configuration Kafka refuses fails at format, naming the node, and leaves no JVM", async () => {
    await failedStart(
      { "num.io.threads": "none" },
      /formatting broker-0's storage with Kafka 4\.2\.1's StorageTool failed/,
    );
  }, 150_000);

  it("whose broker cannot bind its port fails when that broker exits, and leaves no JVM", async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, "127.0.0.1", resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      await failedStart(
        { listeners: `CLIENT://127.0.0.1:${port},INTERNAL://127.0.0.1:0` },
        /broker-0 \(Kafka 4\.2\.1\) exited/,
      );
    } finally {
      busy.close();
    }
  }, 150_000);
});

describe("eosfuzz confirm interrupted", () => {
  it("by SIGINT while its cluster starts exits 130 and leaves no JVM", async () => {
    const out = mkdtempSync(join(tmpdir(), "eosfuzz-confirm-sigint-"));
    dirs.push(out);
    const { child, done } = startEosfuzz([
      "confirm",
      "test/real-cluster/fixtures/kip-1228-gap-4.1-coordinator.tape.json",
      "--out",
      out,
    ]);
    // Once the nodes' JVMs run kafka.Kafka (each with its server.properties under the out directory).
    const nodes = () => jvmsOf(`^java .*kafka\\.Kafka ${out}`);
    for (let i = 0; i < 1200 && nodes().length < 4; i++) await new Promise((r) => setTimeout(r, 100));
    expect(nodes().length).toBe(4);
    child.kill("SIGINT");
    const finished = await done;
    expect(finished.code).toBe(130);
    expect(jvmsOf(out)).toEqual([]);
  }, 150_000);
});
