import { spawnSync } from "node:child_process";
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
    env: { ...process.env, FORCE_COLOR: "0", ...options.env },
    encoding: "utf8",
    timeout: options.timeoutMs ?? 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
