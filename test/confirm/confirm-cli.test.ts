import { describe, expect, it } from "vitest";
import { eosfuzz } from "../cli/cli-helpers.js";

// eosfuzz confirm's input checks: bad input is exit 2 with one line, before any JVM starts.

describe("eosfuzz confirm, bad input", () => {
  it.each([
    [[], /expected a seed file or --scenario NAME --seed N, found neither/],
    [["seeds/kip-1228-gap.seed-6.json", "--scenario", "kip-1228-gap", "--seed", "1"], /found both/],
    [["--scenario", "kip-1228-gap"], /expected --seed N .* with --scenario, found none/],
    [["seeds/kip-1228-gap.seed-6.json", "--all-brokers", "9.9.9"], /--all-brokers.*expected one of 3\.9\.1/],
    [["seeds/kip-1228-gap.seed-6.json", "--retries", "3"], /--retries.*expected 0, 1 or 2/],
    [["seeds/kip-1228-gap.seed-6.json", "--transaction-version", "5"], /expected 0, 1 or 2/],
    [["seeds/no-such-file.json"], /no-such-file/],
  ])("eosfuzz confirm %j exits 2", (args, message) => {
    const r = eosfuzz(["confirm", ...args], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
