import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunReport } from "../../src/report/read-run-report.js";
import { CLI, eosfuzz, savedFailingSeedFile, startEosfuzz as start, waitFor } from "../cli/cli-helpers.js";

// Items 2 and 7 of "Trustworthy in CI and on long campaigns", on real processes with real signals:
// a signal after the last run still writes the report (exit 130), a signal in the first moments
// loses nothing that was given, and a reader that goes away does not change the exit code.

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-signals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs in a results log (its lines but the header and coverage point keys). */
function loggedRuns(out: string): number {
  try {
    return readFileSync(join(out, "results.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith('{"index"')).length;
  } catch {
    return 0;
  }
}

/**
 * A module preloaded into the CLI's process (node --import) that writes `readyFile` when the first
 * SIGINT listener is added ("added": the process would no longer die of a SIGINT; Node always
 * catches SIGINT natively, so /proc's SigCgt mask cannot tell), or when the last one is removed
 * ("released": from then on a SIGINT ends the process by its default action, interrupt.ts
 * stopAtOnce).
 */
function sigintProbe(readyFile: string, when: "added" | "released"): string {
  const probe = join(dir, `sigint-${when}-probe.mjs`);
  const [method, condition] = when === "added" ? ["on", "!told"] : ["off", 'process.listenerCount("SIGINT") === 0'];
  writeFileSync(
    probe,
    `import { writeFileSync } from "node:fs";
     const original = process.${method}.bind(process);
     let told = false;
     process.${method} = (event, listener) => {
       const result = original(event, listener);
       if (event === "SIGINT" && ${condition}) { told = true; writeFileSync(${JSON.stringify(readyFile)}, String(Date.now())); }
       return result;
     };`,
  );
  return probe;
}

describe("signals", () => {
  it("SIGINT after the last run (while shrinking and saving seed files): the report is written, exit 130", async () => {
    const out = join(dir, "after-last");
    const seeds = 300;
    const run = start([
      "run",
      "--scenario",
      "kip-1228-gap",
      "--seeds",
      String(seeds),
      "--workers",
      "2",
      "--no-progress",
      "--shrink-budget-ms",
      "60000",
      "--out",
      out,
      "--save-failures",
      join(out, "seeds"),
    ]);
    expect(await waitFor(() => loggedRuns(out) === seeds, 90_000)).toBe(true);
    run.child.kill("SIGINT");
    const r = await run.done;
    expect(r.signal).toBe(null);
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(
      /interrupted: every run is done: skipping the shrink and the seed files, writing the report/,
    );
    expect(r.stdout).toMatch(/interrupted after the last run: not shrunk, no seed files/);
    const report = readRunReport(join(out, "run.json"));
    expect(report.seedsRun).toBe(seeds);
    expect(report.violations.length).toBeGreaterThan(0);
    expect(report.shrunk).toBeUndefined();
  }, 120_000);

  it("SIGINT in the first moments of a resume (while its results are read): nothing given is lost, exit 130", async () => {
    // A results log big enough that reading it takes a while: 300,000 runs of kip-1228-small.
    const out = join(dir, "early");
    const made = eosfuzz(["run", "--scenario", "kip-1228-small", "--seeds", "2", "--workers", "0", "--out", out]);
    expect(made.code).not.toBe(null);
    const lines = readFileSync(join(out, "results.jsonl"), "utf8").trimEnd().split("\n");
    const header = JSON.parse(lines[0] as string);
    header.args.seeds = 400_000;
    const points = lines.filter((l) => l.startsWith('{"point"'));
    const run = lines.find((l) => l.startsWith('{"index":0,')) as string;
    const runs = 300_000;
    const body = Array.from({ length: runs }, (_, i) =>
      run.replace('{"index":0,"seed":0,', `{"index":${i},"seed":${i},`),
    );
    writeFileSync(join(out, "results.jsonl"), `${[JSON.stringify(header), ...points, ...body].join("\n")}\n`);
    rmSync(join(out, "run.json"));

    const ready = join(dir, "sigint-ready");
    const resumed = start(["run", "--resume", out, "--workers", "1", "--no-progress", "--no-shrink", "--json"], {
      nodeArgs: ["--import", sigintProbe(ready, "added")],
    });
    expect(await waitFor(() => existsSync(ready), 10_000)).toBe(true);
    // The handler is in place long before the results are read and the campaign starts (a signal
    // until then used to kill the process, with nothing written).
    expect(Number(readFileSync(ready, "utf8")) - resumed.startedAt).toBeLessThan(1_000);
    resumed.child.kill("SIGINT");
    const r = await resumed.done;
    expect(r.signal).toBe(null);
    expect(r.code).toBe(130);
    const report = JSON.parse(r.stdout);
    expect(report.interrupted).toBe(true);
    expect(report.seedsRun).toBeGreaterThanOrEqual(runs);
    expect(loggedRuns(out)).toBe(report.seedsRun);
    expect(readRunReport(join(out, "run.json")).seedsRun).toBe(report.seedsRun);
  }, 120_000);
});

describe("other commands", () => {
  it("SIGINT ends them at once, even in the middle of synchronous work (regress, a long one)", async () => {
    // Signalled once regress has begun its work (the CLI gave SIGINT back to its default action), not
    // after a fixed delay: on a loaded machine a signal that lands while modules still load is kept
    // and ends the command with exit 130 when it starts, which is right but is not this case.
    const begun = join(dir, "regress-begun");
    const regress = start(["regress"], { nodeArgs: ["--import", sigintProbe(begun, "released")] });
    expect(await waitFor(() => existsSync(begun), 50_000)).toBe(true);
    const signalledAt = Date.now();
    regress.child.kill("SIGINT");
    const r = await regress.done;
    // Ended by the signal itself (a shell reports 130): a handler would have waited for the work to end.
    expect(r.signal).toBe("SIGINT");
    expect(r.exitedAt - signalledAt).toBeLessThan(3_000);
  }, 60_000);
});

describe("a reader that goes away (EPIPE)", () => {
  it("keeps the exit code the command would have had: replay of a diverging seed file | head is exit 1", () => {
    const file = savedFailingSeedFile(join(dir, "epipe-seeds"));
    const tampered = join(dir, "tampered.json");
    copyFileSync(file, tampered);
    const text = readFileSync(tampered, "utf8");
    writeFileSync(tampered, text.replace(/"traceHash": "[0-9a-f]{16}"/, '"traceHash": "0000000000000000"'));
    const alone = eosfuzz(["replay", tampered, "--json", "--trace"]);
    expect(alone.code).toBe(1);
    // Its JSON (the whole trace) is far bigger than a pipe holds: head is gone long before it is written.
    expect(alone.stdout.length).toBeGreaterThan(200_000);
    const piped = spawnSync(
      "bash",
      [
        "-c",
        `"${process.execPath}" "${CLI}" replay "${tampered}" --json --trace | head -c 100 >/dev/null; echo "\${PIPESTATUS[0]}"`,
      ],
      { encoding: "utf8", timeout: 120_000 },
    );
    expect(piped.stderr).toBe("");
    expect(piped.stdout.trim()).toBe("1");
  }, 120_000);
});
