import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Small tmpfs mounts for disk-full (ENOSPC) and read-only (EROFS) tests. Mounting needs root (or
 * CAP_SYS_ADMIN) and a sandbox that allows it; where it does not, `mountTmpfs` returns null and the
 * tests that need a real file system say so and fall back to a simulated error.
 */
export interface Mount {
  dir: string;
  unmount(): void;
}

export function mountTmpfs(options: { sizeKb: number; readOnly?: boolean; full?: boolean }): Mount | null {
  const dir = mkdtempSync(join(tmpdir(), "eosfuzz-tmpfs-"));
  const mount = (opts: string) =>
    spawnSync("mount", ["-t", "tmpfs", "-o", opts, "tmpfs", dir], { encoding: "utf8", timeout: 10_000 });
  const r = mount(`size=${options.sizeKb}k`);
  if (r.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  const unmount = () => {
    spawnSync("umount", [dir], { timeout: 10_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (options.full) fill(dir);
    if (options.readOnly && spawnSync("mount", ["-o", "remount,ro", dir], { timeout: 10_000 }).status !== 0) {
      unmount();
      return null;
    }
  } catch (e) {
    unmount();
    throw e;
  }
  return { dir, unmount };
}

/** Fill a file system to its last byte (a directory made beforehand so tests can write below it). */
function fill(dir: string): void {
  mkdirSync(join(dir, "seeds"));
  let n = 0;
  for (let size = 1 << 16; size >= 1; size >>= 1) {
    for (;;) {
      try {
        writeFileSync(join(dir, `.filler-${n++}`), Buffer.alloc(size));
      } catch {
        break;
      }
    }
  }
}

/** Whether this machine lets the tests mount a tmpfs (checked once). */
export const canMountTmpfs: boolean = (() => {
  const m = mountTmpfs({ sizeKb: 64 });
  m?.unmount();
  return m !== null;
})();
