import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

// A disk that fills up, simulated: writeSync fails with ENOSPC once a file has received a few
// bytes. This runs everywhere (test/reliability/output-failures.long.test.ts uses a real full tmpfs
// where the machine lets the tests mount one) and checks the same promises of writeFileAtomic:
// the error names the user's path, never the temporary file's, and no temporary file is left.
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (process.env.EOSFUZZ_TEST_DISK_FULL === "1")
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28 });
    return (fs.writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, writeSync, default: { ...fs, writeSync } };
});

const { writeFileAtomic, writeJsonAtomic } = await import("../../src/common/write-files.js");
const { OutputError } = await import("../../src/common/output-error.js");

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-enospc-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a full disk (simulated ENOSPC)", () => {
  it("writeFileAtomic and writeJsonAtomic: one OutputError naming the target, no temporary file left", () => {
    process.env.EOSFUZZ_TEST_DISK_FULL = "1";
    try {
      for (const write of [
        () => writeFileAtomic(join(dir, "out", "junit.xml"), "<xml/>", "the JUnit report"),
        () => writeJsonAtomic(join(dir, "out", "run.json"), { violations: [1, 2, 3] }, "the run report"),
      ]) {
        let error: unknown = null;
        try {
          write();
        } catch (e) {
          error = e;
        }
        expect(error).toBeInstanceOf(OutputError);
        expect((error as Error).message).toMatch(
          new RegExp(
            `^${join(dir, "out")}/(junit\\.xml|run\\.json): expected a place to write the (JUnit|run) report, found no space left on the device \\(ENOSPC\\)$`,
          ),
        );
      }
    } finally {
      delete process.env.EOSFUZZ_TEST_DISK_FULL;
    }
    expect(readdirSync(join(dir, "out"))).toEqual([]);
    writeFileAtomic(join(dir, "out", "junit.xml"), "<xml/>");
    expect(existsSync(join(dir, "out", "junit.xml"))).toBe(true);
  });
});
