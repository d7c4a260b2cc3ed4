import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");
export const CLI = join(ROOT, "dist/cli/main.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a user would (npm test builds first). */
export function eosfuzz(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {},
): CliResult {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: options.cwd ?? ROOT,
    // COLUMNS unset: no terminal width, whole lines (a test sets it to see the output fitted).
    env: { ...process.env, FORCE_COLOR: "0", COLUMNS: "", ...options.env },
    encoding: "utf8",
    timeout: options.timeoutMs ?? 120_000,
    // spawnSync kills a child whose output passes maxBuffer (1 MiB by default); a whole trace in JSON is more.
    maxBuffer: 256 * 1024 * 1024,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface Finished extends CliResult {
  signal: NodeJS.Signals | null;
  /** Date.now() when the process ended. */
  exitedAt: number;
}

export interface Started {
  child: ChildProcess;
  done: Promise<Finished>;
  /** Date.now() when it was spawned. */
  startedAt: number;
}

/** Start the built CLI as a process of its own, to signal it or run several at once. */
export function startEosfuzz(
  args: string[],
  options: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Started {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, FORCE_COLOR: "0", ...options.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => (stdout += d));
  child.stderr?.on("data", (d) => (stderr += d));
  const done = new Promise<Finished>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, exitedAt: Date.now() })),
  );
  return { child, done, startedAt };
}

/** A short run with failing seeds (kip-1228-gap finds its stale marker within 30 seeds): exit 0. */
export const FAILING_SEEDS_RUN = [
  "run",
  "--scenario",
  "kip-1228-gap",
  "--seeds",
  "30",
  "--workers",
  "0",
  "--no-shrink",
  "--no-progress",
];

/** The path of one seed file of a failing seed of kip-1228-gap, saved into `dir`. */
export function savedFailingSeedFile(dir: string): string {
  const r = eosfuzz([...FAILING_SEEDS_RUN, "--save-failures", dir]);
  if (r.code !== 0) throw new Error(`saving seed files failed: ${r.stderr}`);
  const file = readdirSync(dir).find((f) => f.endsWith(".json"));
  if (!file) throw new Error(`no seed file in ${dir}`);
  return join(dir, file);
}

/** The README as committed. */
export function READMEText(): string {
  return readFileSync(join(ROOT, "README.md"), "utf8");
}

/** The `npx eosfuzz ...` lines of the README's shell blocks: the arguments and the comment after them. */
export function readmeCommands(): { argv: string[]; comment: string; line: string }[] {
  const blocks = [...READMEText().matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks
    .flatMap((b) => b.split("\n"))
    .filter((l) => l.startsWith("npx eosfuzz "))
    .map((line) => {
      const [command, comment = ""] = line.split(/\s+#\s+/);
      return { argv: (command as string).trim().split(/\s+/).slice(2), comment: comment.trim(), line };
    });
}

/** Polls `condition` until it holds or `timeoutMs` passes; whether it held. */
export async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return condition();
}
