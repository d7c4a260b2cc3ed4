import { closeSync, existsSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { outputErrorOf } from "../common/output-error.js";
import { ensureDir } from "../common/write-files.js";
import { RESULTS_FILE } from "../report/results-log.js";
import { InputError } from "../common/input-error.js";

/**
 * A report directory (`run --out DIR`) is one run's: a second run refuses a directory that holds
 * one (unless it resumes it), and a lock file keeps two processes from writing one directory.
 */
export const LOCK_FILE = ".eosfuzz.lock";

/** The holder touches its lock this often; a lock not touched for STALE_MS is a dead process's. */
const HEARTBEAT_MS = 15_000;
const STALE_MS = 120_000;

interface LockContent {
  pid: number;
  host: string;
  startedAt: string;
  command: string;
}

/** Whether `dir` holds the files of a run (its results log or its report). */
export function holdsRun(dir: string): boolean {
  return existsSync(join(dir, RESULTS_FILE)) || existsSync(join(dir, "run.json"));
}

/** `run --out DIR` on a directory that holds a run: one line saying what to do instead. */
export function refuseUsedOutDir(dir: string): void {
  if (!holdsRun(dir)) return;
  const what = existsSync(join(dir, RESULTS_FILE)) ? "the results of an earlier run" : "the report of an earlier run";
  throw new InputError(
    dir,
    "",
    `expected a new or empty directory for --out, found ${what} (continue it with eosfuzz run --resume ${dir}, add --continue to resume it whenever it holds this campaign, or choose another --out)`,
  );
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function readLock(path: string): { content: LockContent | null; ageMs: number } | null {
  try {
    const ageMs = Date.now() - statSync(path).mtimeMs;
    let content: LockContent | null = null;
    try {
      content = JSON.parse(readFileSync(path, "utf8")) as LockContent;
    } catch {
      // half written by a process killed at that moment: judged by its age alone
    }
    return { content, ageMs };
  } catch {
    return null; // gone meanwhile
  }
}

/**
 * A lock left by a process that is gone: not touched for STALE_MS (any host), or on this host a
 * process that no longer runs, or one with our own pid (a restarted container reuses pids).
 */
function isStale(lock: { content: LockContent | null; ageMs: number }): boolean {
  if (lock.ageMs > STALE_MS) return true;
  const c = lock.content;
  if (c === null) return lock.ageMs > HEARTBEAT_MS;
  if (c.host !== hostname()) return false;
  return c.pid === process.pid || !processAlive(c.pid);
}

export interface DirLock {
  readonly file: string;
  release(): void;
}

/** Take the lock of `dir` (made if missing), or refuse with one line naming who holds it. */
export function lockDir(dir: string, command: string): DirLock {
  ensureDir(dir, "the report directory");
  const file = join(dir, LOCK_FILE);
  const content: LockContent = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), command };
  for (let attempt = 0; ; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, "wx");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST")
        throw outputErrorOf(file, "the lock of the report directory", e);
      const held = readLock(file);
      if (held && isStale(held) && attempt === 0) {
        try {
          unlinkSync(file);
        } catch {
          // another process took it over first: the next attempt finds its lock
        }
        continue;
      }
      if (held === null && attempt < 2) continue;
      const by = held?.content
        ? `pid ${held.content.pid} on ${held.content.host} since ${held.content.startedAt} (${held.content.command})`
        : "another process";
      throw new InputError(
        dir,
        "",
        `expected a directory no other eosfuzz is writing, found it in use by ${by}; if that process is gone, delete ${file}`,
      );
    }
    try {
      const bytes = Buffer.from(`${JSON.stringify(content)}\n`);
      writeSync(fd, bytes, 0, bytes.length);
    } finally {
      closeSync(fd);
    }
    break;
  }
  const heartbeat = setInterval(() => {
    try {
      const now = new Date();
      utimesSync(file, now, now);
    } catch {
      // the directory went away: nothing to keep alive
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    process.off("exit", release);
    const now = readLock(file)?.content;
    if (now && now.pid === content.pid && now.host === content.host && now.startedAt === content.startedAt) {
      try {
        unlinkSync(file);
      } catch {
        // already removed
      }
    }
  };
  // A second Ctrl-C ends the process with process.exit: the lock goes with it.
  process.on("exit", release);
  return { file, release };
}
