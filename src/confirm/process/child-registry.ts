import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";

/**
 * Every process eosfuzz confirm starts (Kafka's JVMs, the driver, Kafka's tools) runs in a process
 * group of its own and is registered here until it exits. When eosfuzz exits, however it exits
 * (the end, SIGINT's exit 130, an uncaught exception), the exit hook kills every registered group
 * with SIGKILL, synchronously. A SIGKILL of eosfuzz itself runs no hook: for that, a guarded child
 * runs under a watcher shell that kills its own group when its stdin pipe from eosfuzz closes.
 */
const live = new Map<number, { child: ChildProcess; what: string }>();
/** Process groups being stopped whose leader (a watcher shell) is gone while the rest winds down. */
const draining = new Set<number>();
let hookInstalled = false;

function installExitHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  process.on("exit", () => killAllNow());
}

/** Kill every registered process group now (SIGKILL): nothing is waited for. Returns how many. */
export function killAllNow(): number {
  let n = 0;
  for (const [pid] of live) {
    try {
      process.kill(-pid, "SIGKILL");
      n++;
    } catch {
      // Already gone.
    }
  }
  live.clear();
  for (const pgid of draining) {
    try {
      process.kill(-pgid, "SIGKILL");
      n++;
    } catch {
      // Already gone.
    }
  }
  draining.clear();
  return n;
}

/** The registered children: process group id and what each is (for tests and diagnostics). */
export function liveChildren(): { pid: number; what: string }[] {
  return [...live].map(([pid, c]) => ({ pid, what: c.what }));
}

/**
 * The watcher: runs the command in the background with stdin from /dev/null, waits for it, and kills
 * the whole group (itself included) once its own stdin (a pipe eosfuzz holds) reaches its end.
 */
const WATCHER = [
  'exec 3<&0 0</dev/null; "$@" & c=$!',
  "(while read -r _ <&3; do :; done; kill -KILL -- -$$ 2>/dev/null) & w=$!",
  "wait $c; s=$?; kill $w 2>/dev/null; exit $s",
].join("\n");

export interface GuardedSpawnOptions {
  /** What the process is, for messages: "broker-1 (Kafka 4.1.2)". */
  what: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where stdout and stderr go: file descriptors (the child's own pipes otherwise). */
  stdout?: number;
  stderr?: number;
  /**
   * The process speaks on its own stdin and stdout (the driver): no watcher shell; it must end by
   * itself at the end of its stdin, which is what the watcher would have arranged.
   */
  ownsStdin?: boolean;
}

/** Start a command in a process group of its own, registered until it exits. */
export function spawnGuarded(command: string, args: readonly string[], options: GuardedSpawnOptions): ChildProcess {
  installExitHook();
  const stdio: SpawnOptions["stdio"] = ["pipe", options.stdout ?? "pipe", options.stderr ?? "pipe"];
  const child = options.ownsStdin
    ? spawn(command, args, { cwd: options.cwd, env: options.env, stdio, detached: true })
    : spawn("bash", ["-c", WATCHER, "eosfuzz-guard", command, ...args], {
        cwd: options.cwd,
        env: options.env,
        stdio,
        detached: true,
      });
  const pid = child.pid;
  if (pid === undefined) {
    // spawn failed (no such command): the 'error' event says why; nothing to register.
    return child;
  }
  live.set(pid, { child, what: options.what });
  child.on("exit", () => live.delete(pid));
  return child;
}

/** Kill one guarded child's group and wait (at most `timeoutMs`) for it to be gone. */
export async function killGroup(
  child: ChildProcess,
  signal: NodeJS.Signals = "SIGKILL",
  timeoutMs = 10_000,
): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-pid, signal);
  } catch {
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone
      }
      resolve();
    }, timeoutMs);
  });
  await Promise.race([gone, late]);
  clearTimeout(timer);
  live.delete(pid);
}

/** Whether any process of the group is still there. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signal a guarded child's whole group and wait until every process of it is gone (a watcher
 * shell exits on SIGTERM at once, while its JVM still runs its shutdown hooks); past `timeoutMs`,
 * SIGKILL. True when the group ended by itself. The group stays registered until it is gone.
 */
export async function stopGroup(child: ChildProcess, signal: NodeJS.Signals, timeoutMs: number): Promise<boolean> {
  const pid = child.pid;
  if (pid === undefined || !groupAlive(pid)) return true;
  draining.add(pid);
  try {
    process.kill(-pid, signal);
    const until = Date.now() + timeoutMs;
    while (groupAlive(pid)) {
      if (Date.now() > until) {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // gone
        }
        while (groupAlive(pid)) await new Promise((r) => setTimeout(r, 50));
        return false;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    return true;
  } catch {
    return !groupAlive(pid);
  } finally {
    draining.delete(pid);
  }
}

/** Run a guarded command to its end: exit code and output (bounded). Kills it past timeoutMs. */
export function runGuarded(
  command: string,
  args: readonly string[],
  options: { what: string; cwd?: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawnGuarded(command, args, { what: options.what, ...(options.cwd ? { cwd: options.cwd } : {}) });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout?.on("data", (d: Buffer) => {
      stdout += d.toString("utf8");
    });
    child.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString("utf8")).slice(-20_000);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      void killGroup(child);
    }, options.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, timedOut });
    });
  });
}
