import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

// No process eosfuzz confirm starts may outlive it: not after SIGINT, not after a crash, not even
// after a SIGKILL of eosfuzz itself (the watcher shell kills its group when its stdin pipe closes).
// sleep stands in for Kafka's JVMs; the real cluster's version of this test is in test/real-cluster.

const FIXTURE = fileURLToPath(new URL("./fixtures/guarded-children.mjs", import.meta.url));
const strays: number[] = [];

afterEach(() => {
  for (const pid of strays.splice(0)) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
});

/** Whether any process of the group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startFixture(
  mode: string,
): Promise<{ child: ChildProcess; pids: number[]; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, [FIXTURE, mode], { stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once("line", resolve));
  const pids = JSON.parse(line) as number[];
  strays.push(...pids);
  return { child, pids, exited };
}

async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

describe("guarded children", () => {
  it("are killed when eosfuzz exits on SIGINT", async () => {
    const { child, pids, exited } = await startFixture("wait");
    expect(pids.every(groupAlive)).toBe(true);
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(await eventually(() => !pids.some(groupAlive))).toBe(true);
  });

  it("are killed when eosfuzz crashes", async () => {
    const { pids, exited } = await startFixture("crash");
    expect(await exited).toBe(1);
    expect(await eventually(() => !pids.some(groupAlive))).toBe(true);
  });

  it("are killed by their watcher when eosfuzz itself is killed with SIGKILL", async () => {
    const { child, pids, exited } = await startFixture("wait");
    child.kill("SIGKILL");
    await exited;
    expect(await eventually(() => !pids.some(groupAlive))).toBe(true);
  });

  it("the check sees a survivor: an unguarded detached child outlives a SIGKILLed parent", async () => {
    const { child, pids, exited } = await startFixture("unguarded");
    child.kill("SIGKILL");
    await exited;
    await new Promise((r) => setTimeout(r, 300));
    expect(pids.some(groupAlive)).toBe(true);
  });
});
