import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createProgress, heartbeatLine, rateAndEta } from "../../src/report/progress.js";
import { CLI, ROOT } from "../cli/cli-helpers.js";

// Item 12 of "Trustworthy in CI and on long campaigns": the ETA is right (also for a resumed run
// and when results come a batch at a time), Ctrl-C leaves a clean summary with no bar drawn inside
// it, and with CI=true there is no bar.

/** A terminal stream that keeps what is written. */
function fakeTerminal(): NodeJS.WriteStream & { text: () => string } {
  let written = "";
  const stream = {
    isTTY: true,
    columns: 120,
    rows: 40,
    write(chunk: string | Uint8Array) {
      written += String(chunk);
      return true;
    },
    on() {
      return stream;
    },
    once() {
      return stream;
    },
    removeListener() {
      return stream;
    },
    text: () => written,
  };
  return stream as unknown as NodeJS.WriteStream & { text: () => string };
}

describe("progress", () => {
  it("speed and ETA count only the runs made by this process, not those a resume read back", () => {
    // 1,000 of 2,000 seeds were done before; 100 more in 10 s: 10 seeds/s, 900 left, 90 s.
    expect(rateAndEta(1_100, 1_000, 2_000, 10_000)).toEqual({ rate: 10, etaMs: 90_000 });
    expect(rateAndEta(1_000, 1_000, 2_000, 10_000).etaMs).toBeNaN();
    expect(heartbeatLine("s", 1_100, 2_000, 0, 10_000, 1_000)).toBe(
      "eosfuzz s: 1,100/2,000 seeds (55%), 10.0 seeds/s, 0 violations, ETA 1m30s",
    );
  });

  it("the bar shows that ETA even when results come in bursts (cli-progress's own read a burst as near-infinite speed)", () => {
    const stream = fakeTerminal();
    let now = 0;
    const p = createProgress({ scenario: "s", total: 1_000, stream, now: () => now, env: {} });
    // 50 results at the same instant, every 5 s: 10 seeds/s on average.
    for (let batch = 1; batch <= 4; batch++) {
      now = batch * 5_000;
      for (let i = 1; i <= 50; i++) p.update((batch - 1) * 50 + i, 0);
    }
    p.stop();
    const last = stream.text().split("ETA ").pop() ?? "";
    expect(last.startsWith("1m20s")).toBe(true); // 800 left at 10 seeds/s
  });

  it("after stop, updates draw nothing (the runs in flight after Ctrl-C finish while the summary prints)", async () => {
    const stream = fakeTerminal();
    const p = createProgress({ scenario: "s", total: 100, stream, env: {} });
    p.update(10, 0);
    p.stop();
    const stopped = stream.text().length;
    p.update(20, 1);
    p.update(30, 1);
    await new Promise((r) => setTimeout(r, 400)); // past the bar's redraw interval
    expect(stream.text().length).toBe(stopped);
  });

  it("with CI=true there is no bar on a terminal: the heartbeat line instead", () => {
    const stream = fakeTerminal();
    let now = 0;
    const p = createProgress({
      scenario: "s",
      total: 100,
      stream,
      now: () => now,
      heartbeatMs: 1_000,
      env: { CI: "true" },
    });
    now = 2_000;
    p.update(10, 0);
    p.stop();
    expect(stream.text()).toBe("eosfuzz s: 10/100 seeds (10%), 5.0 seeds/s, 0 violations, ETA 18s\n");
    for (const ci of ["false", "0", ""]) {
      const tty = fakeTerminal();
      createProgress({ scenario: "s", total: 100, stream: tty, env: { CI: ci } }).stop();
      expect(tty.text()).toMatch(/seeds\/s/); // the bar
    }
  });
});

const dir = mkdtempSync(join(tmpdir(), "eosfuzz-progress-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Ctrl-C on a terminal (a real pseudo-terminal, script(1))", () => {
  it.runIf(existsSync("/usr/bin/script"))(
    "leaves the interrupted line and a clean summary: no bar drawn after it",
    async () => {
      const pidFile = join(dir, "pid");
      const command = `echo $$ > ${pidFile}; exec "${process.execPath}" "${CLI}" run --scenario kip-1228-gap-small --seeds 100000 --workers 2 --no-shrink`;
      const child = spawn("script", ["-qfec", command, "/dev/null"], {
        cwd: ROOT,
        env: { ...process.env, FORCE_COLOR: "0", CI: "", COLUMNS: "120" },
      });
      let output = "";
      child.stdout.on("data", (d) => (output += d));
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      for (let i = 0; i < 400 && !/seeds\/s/.test(output); i++) await new Promise((r) => setTimeout(r, 25));
      await new Promise((r) => setTimeout(r, 1_000)); // the bar redrawn a few times
      process.kill(Number(readFileSync(pidFile, "utf8")), "SIGINT");
      expect(await closed).toBe(130);
      const at = output.indexOf("interrupted:");
      expect(at).toBeGreaterThan(0);
      const after = output.slice(at);
      expect(after).toMatch(/eosfuzz run kip-1228-gap-small/);
      expect(after).not.toMatch(/seeds\/s \|/);
      expect(after).not.toMatch(/[█░]/);
    },
    60_000,
  );
});
