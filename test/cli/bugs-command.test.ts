import { describe, expect, it } from "vitest";
import { readableFlag } from "../../src/cli/commands/bugs.js";
import { BUG_HISTORY } from "../../src/fuzz/catalogue/bug-history.js";
import { visibleLength } from "../../src/report/terminal-width.js";
import { eosfuzz } from "./cli-helpers.js";

// Issue 30 item 7: `bugs` lists a table with flag names in words (not raw names and JSON), and
// `bugs run` shows the shrunk failure's steps and the command that replays it.

describe("eosfuzz bugs", () => {
  it("is a table that fits the terminal, its flags in words, no JSON", () => {
    const r = eosfuzz(["bugs"], { env: { COLUMNS: "100" } });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/│ id +│ Kafka +│ symptom +│ the bug +│ brought back by +│/);
    expect(Math.max(...r.stdout.split("\n").map(visibleLength))).toBeLessThanOrEqual(100);
    expect(r.stdout).not.toMatch(/\{"/);
    const flags = BUG_HISTORY.flatMap((b) => Object.keys(b.bug ?? {}));
    expect(flags.length).toBeGreaterThan(10);
    // Wide enough that no cell wraps: each cell's text is whole on its line.
    const wide = eosfuzz(["bugs"], { env: { COLUMNS: "400" } });
    const flat = wide.stdout.replace(/[│┌┐└┘├┤┬┴┼─]/g, " ").replace(/\s+/g, " ");
    for (const flag of flags) expect(flat, flag).not.toContain(flag);
    expect(flat).toContain("coordinator: timeout abort keeps epoch on");
    expect(readableFlag("tv2EndTxnEpochCheckBeforePending")).toBe("TV2 end transaction epoch check before pending");
    expect(readableFlag("tlogDropsPidLinkFields")).toBe("transaction log drops producer id link fields");
  });

  it("run: the shrunk failure's steps and a replay command that works", () => {
    const r = eosfuzz(["bugs", "run", "Z14", "--budget-seeds", "20"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/the shrunk failure:\n( +\d+\. t=\d+ms .*\n)+ +\d+\. t=\d+ms +=> stale-marker/);
    const replay = /replay it: eosfuzz (replay \S+)$/m.exec(r.stdout);
    expect(replay).not.toBeNull();
    const again = eosfuzz([...(replay?.[1]?.split(" ") ?? []), "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ reproduced: true });
  });
});
