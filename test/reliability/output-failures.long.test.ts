import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readRunReport } from "../../src/report/read-run-report.js";
import { CLI, eosfuzz, FAILING_SEEDS_RUN, savedFailingSeedFile } from "../cli/cli-helpers.js";
import { canMountTmpfs, type Mount, mountTmpfs } from "./tmpfs.js";

// Outputs that cannot be written (items 3 and 6 of "Trustworthy in CI and on long campaigns"): a
// full disk, a read-only file system, a file where a directory is expected, /proc, a named pipe
// with no writer. Real processes; the disk-full and read-only cases on small tmpfs mounts when the
// machine allows them (test/reliability/simulated-enospc.test.ts covers the same code without one).

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-outputs-"));
const aFile = join(dir, "a-file");
writeFileSync(aFile, "not a directory\n");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Temporary files left anywhere under `root`. */
function tempFiles(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => /\.tmp$/.test(f));
}

/** stderr as its lines; the one-line rule: no stack frame, one line per failure. */
function errorLines(stderr: string): string[] {
  const lines = stderr.split("\n").filter((l) => l !== "");
  for (const l of lines) expect(l).not.toMatch(/^\s+at .+:\d+:\d+\)?$/);
  return lines;
}

const FAILING = FAILING_SEEDS_RUN;

let seedFile = "";
beforeAll(() => {
  seedFile = savedFailingSeedFile(join(dir, "seeds"));
});

describe("a secondary output that cannot be written never loses the run", () => {
  let full: Mount | null = null;
  beforeAll(() => {
    full = mountTmpfs({ sizeKb: 64, full: true });
  });
  afterAll(() => full?.unmount());

  it.runIf(canMountTmpfs)("--save-failures on a full disk: run.json and the summary written, one line, exit 2", () => {
    const disk = (full as Mount).dir;
    const out = join(dir, "full-seeds");
    const r = eosfuzz([...FAILING, "--out", out, "--save-failures", join(disk, "seeds")]);
    expect(r.code).toBe(2);
    const lines = errorLines(r.stderr);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(
        `^eosfuzz: ${join(disk, "seeds")}/kip-1228-gap\\.seed-\\d+\\.json: expected a place to write a seed file, found no space left on the device \\(ENOSPC\\)$`,
      ),
    );
    expect(r.stdout).toMatch(/eosfuzz run kip-1228-gap/);
    expect(r.stdout).toMatch(/report: .*index\.html/);
    const report = readRunReport(join(out, "run.json"));
    expect(report.seedsRun).toBe(30);
    expect(report.violations.length).toBeGreaterThan(0);
    expect(report.seedFiles).toEqual([]);
    expect(tempFiles(disk)).toEqual([]);
  });

  it.runIf(canMountTmpfs)("--corpus, --junit and replay --html on a full disk: the same", () => {
    const disk = (full as Mount).dir;
    const out = join(dir, "full-corpus");
    const coverage = [
      "run",
      "--scenario",
      "kip-1228-small",
      "--strategy",
      "coverage",
      "--seeds",
      "20",
      "--workers",
      "0",
      "--no-progress",
    ];
    const corpus = eosfuzz([...coverage, "--out", out, "--corpus", join(disk, "corpus.json")]);
    expect(corpus.code).toBe(2);
    expect(errorLines(corpus.stderr)).toEqual([
      `eosfuzz: ${join(disk, "corpus.json")}: expected a place to write the corpus file, found no space left on the device (ENOSPC)`,
    ]);
    expect(readRunReport(join(out, "run.json")).seedsRun).toBe(20);

    const junit = eosfuzz([...FAILING, "--junit", join(disk, "junit.xml")]);
    expect(junit.code).toBe(2);
    expect(errorLines(junit.stderr)).toEqual([
      `eosfuzz: ${join(disk, "junit.xml")}: expected a place to write the JUnit report, found no space left on the device (ENOSPC)`,
    ]);
    expect(junit.stdout).toMatch(/expectation: /);

    const replay = eosfuzz(["replay", seedFile, "--html", join(disk, "page.html")]);
    expect(replay.code).toBe(2);
    expect(errorLines(replay.stderr)).toEqual([
      `eosfuzz: ${join(disk, "page.html")}: expected a place to write the HTML page, found no space left on the device (ENOSPC)`,
    ]);
    expect(replay.stdout).toMatch(/REPRODUCED/);
    expect(tempFiles(disk)).toEqual([]);
  });

  it.runIf(canMountTmpfs)(
    "a read-only file system: --out refused before any run, --html after the report, one line, exit 2",
    () => {
      const ro = mountTmpfs({ sizeKb: 256, readOnly: true }) as Mount;
      try {
        const r = eosfuzz([...FAILING, "--out", join(ro.dir, "out")]);
        expect(r.code).toBe(2);
        expect(errorLines(r.stderr)).toEqual([
          `eosfuzz: ${join(ro.dir, "out")}: expected a place to write the report directory, found a read-only file system (EROFS)`,
        ]);
        expect(r.stdout).toBe("");
        const out = join(dir, "report-of-ro");
        expect(eosfuzz([...FAILING, "--out", out]).code).toBe(0);
        const html = eosfuzz(["report", join(out, "run.json"), "--html", join(ro.dir, "page.html")]);
        expect(html.code).toBe(2);
        expect(errorLines(html.stderr)).toEqual([
          `eosfuzz: ${join(ro.dir, "page.html")}: expected a place to write the HTML report, found a read-only file system (EROFS)`,
        ]);
        expect(html.stdout).toMatch(/expectation: /);
      } finally {
        ro.unmount();
      }
    },
  );
});

describe("unwritable paths are exit 2 with one line naming the user's path", () => {
  it("a file where a directory is expected (--out, --save-failures, --html)", () => {
    const out = eosfuzz([...FAILING, "--out", join(aFile, "sub")]);
    expect(out.code).toBe(2);
    expect(errorLines(out.stderr)).toEqual([
      `eosfuzz: ${aFile}: expected a place to write the report directory, found a file where a directory is expected (ENOTDIR)`,
    ]);
    const asDir = eosfuzz([...FAILING, "--out", aFile]);
    expect(asDir.code).toBe(2);
    expect(errorLines(asDir.stderr)).toEqual([
      `eosfuzz: ${aFile}: expected a place to write the report directory, found a file where a directory is expected (ENOTDIR)`,
    ]);
    const seeds = eosfuzz([...FAILING, "--save-failures", aFile]);
    expect(seeds.code).toBe(2);
    expect(errorLines(seeds.stderr)).toEqual([
      `eosfuzz: ${aFile}: expected a place to write a seed file, found a file where a directory is expected (ENOTDIR)`,
    ]);
    const html = eosfuzz(["replay", seedFile, "--html", join(aFile, "page.html")]);
    expect(html.code).toBe(2);
    expect(errorLines(html.stderr)).toHaveLength(1);
    expect(html.stderr).toContain(`eosfuzz: ${aFile}: expected a place to write the HTML page`);
  });

  it("a directory where a file is expected: EISDIR, no temporary file left beside it", () => {
    const target = join(dir, "junit-is-a-dir");
    const empty = join(dir, "empty");
    for (const d of [target, empty]) mkdirSync(d, { recursive: true });
    const r = eosfuzz(["regress", "--scenarios", empty, "--seeds", empty, "--junit", target]);
    expect(r.code).toBe(2);
    expect(errorLines(r.stderr)).toEqual([
      `eosfuzz: ${target}: expected a place to write the JUnit report, found a directory where a file is expected (EISDIR)`,
    ]);
    expect(tempFiles(dir)).toEqual([]);
  });

  it("an --out directory under /proc fails at once instead of hanging (Node's recursive mkdir loops there)", () => {
    const started = Date.now();
    const r = eosfuzz([...FAILING, "--out", "/proc/eosfuzz-out"], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(errorLines(r.stderr)).toEqual([
      "eosfuzz: /proc/eosfuzz-out: expected a place to write the report directory, found a directory that does not exist and cannot be created (ENOENT)",
    ]);
  });

  it.runIf(process.getuid?.() === 0 && existsSync("/usr/bin/setpriv"))(
    "no permission (EACCES), as an unprivileged user",
    () => {
      const locked = join(dir, "locked");
      mkdirSync(locked);
      chmodSync(locked, 0o555);
      chmodSync(dir, 0o755);
      const r = spawnSync(
        "setpriv",
        [
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          process.execPath,
          CLI,
          "replay",
          seedFile,
          "--html",
          join(locked, "p.html"),
        ],
        { encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" }, timeout: 60_000 },
      );
      expect(r.status).toBe(2);
      expect(errorLines(r.stderr)).toEqual([
        `eosfuzz: ${join(locked, "p.html")}: expected a place to write the HTML page, found no permission to write there (EACCES)`,
      ]);
    },
  );

  it("reading a named pipe with no writer does not hang: exit 2, one line", () => {
    const fifo = join(dir, "scenario.yaml");
    expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
    const started = Date.now();
    const r = eosfuzz(["run", "--scenario", fifo, "--seeds", "1"], { timeoutMs: 30_000 });
    expect(r.code).toBe(2);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(errorLines(r.stderr)).toEqual([
      `eosfuzz: ${fifo}: expected a scenario file, found a named pipe with no writer for 5 s`,
    ]);
  });

  it("a named pipe with a writer (as from <(...)) is read", () => {
    const r = spawnSync(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${CLI}" run --scenario <(cat scenarios/kip-1228-small.yaml) --seeds 2 --workers 0 --no-progress --json`,
      ],
      { encoding: "utf8", cwd: join(CLI, "../../.."), timeout: 60_000 },
    );
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).seedsRun).toBe(2);
  });
});
