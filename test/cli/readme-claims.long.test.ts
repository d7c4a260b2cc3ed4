import { describe, expect, it } from "vitest";
import { eosfuzz, readmeCommands } from "./cli-helpers.js";

// The README's comments that claim a result ("clean", "clean up to N deviations"), checked by running
// the commands as the README words them: minutes of fuzzing, so in npm run test:long (CI runs it).

describe("claims in the README's comments", () => {
  it("'every broker on 4.2.1: clean' and 'clean up to N deviations' hold as the tool runs them", () => {
    const commands = readmeCommands();
    const clean = commands.find((c) => /: clean$/.test(c.comment));
    expect(clean?.argv).toEqual(["run", "--scenario", "kip-1228"]);
    const r = eosfuzz([...(clean?.argv ?? []), "--no-progress", "--no-shrink", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).violations).toEqual([]);

    const exhaustive = commands.find((c) => c.argv.includes("exhaustive"));
    const depth = Number(/clean up to (\d+) deviations/.exec(exhaustive?.comment ?? "")?.[1]);
    expect(depth).toBeGreaterThan(0);
    const e = eosfuzz([...(exhaustive?.argv ?? []), "--no-progress", "--json"], { timeoutMs: 300_000 });
    expect(e.code).toBe(0);
    const strategy = JSON.parse(e.stdout).strategy;
    expect(strategy.exhaustive).toMatchObject({ exhaustive: true, depthCompleted: depth });
    expect(strategy.summary).toMatch(new RegExp(`^exhaustive: clean up to ${depth} deviations`));
  }, 300_000);
});
