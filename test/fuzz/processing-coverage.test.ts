import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { possibleCoveragePoints } from "../../src/fuzz/campaign/protocol-coverage-summary.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import { GROUP_EVENT_POINTS, parseStateKey, type ProtocolState } from "../../src/oracle/protocol-coverage.js";
import type { RunReport } from "../../src/report/run-report.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { eosfuzz, ROOT } from "../cli/cli-helpers.js";

/**
 * Coverage of the group side (issue 17): a WriteTxnMarkers arrival at a __consumer_offsets
 * partition is handed by KafkaApis.handleWriteTxnMarkersRequest to the group coordinator
 * (GroupCoordinatorService.completeTransaction), a different path from a data partition's
 * UnifiedLog append: its arrivals are states of their own (offsets-marker@...), and the group's
 * KIP-447 fence and UNSTABLE_OFFSET_COMMIT are event points.
 */
const isStaleAtOffsets = (s: ProtocolState | null) =>
  s?.kind === "offsets-marker" &&
  s.arrival.arrival === "repeat" &&
  s.arrival.pending === "other" &&
  s.arrival.result === "applied";

describe("coverage states of the group side", () => {
  it("only scenarios with a consumer group can reach offsets-marker states and group events; the others' space is as before", () => {
    const kinds = (name: string) => {
      const keys = [...possibleCoveragePoints(resolveScenario(name).scenario).keys()];
      return {
        offsets: keys.filter((k) => k.startsWith("offsets-marker@")).length,
        group: keys.filter((k) => GROUP_EVENT_POINTS.some((e) => k === `event ${e}`)).length,
        all: keys.length,
      };
    };
    // kip-1228-gap had 192 possible states before the group side had states (main 69e47d9).
    expect(kinds("kip-1228-gap")).toEqual({ offsets: 0, group: 0, all: 192 });
    const gap = kinds("eos-processor-gap");
    expect(gap.group).toBe(GROUP_EVENT_POINTS.length);
    // The 4.1 leader of __consumer_offsets-0 judges by the legacy rule: its stale state is possible.
    expect(
      [...possibleCoveragePoints(resolveScenario("eos-processor-gap").scenario).values()].some(isStaleAtOffsets),
    ).toBe(true);
  });

  it("eos-processor-gap: a late copy applied over a newer transaction's pending offsets is reached exactly in the runs with a stale marker at __consumer_offsets-0", () => {
    const config = runConfigFor(resolveScenario("eos-processor-gap"));
    let both = 0;
    for (let seed = 0; seed < 10; seed++) {
      const r = runSeed(config, { seed });
      const reached = r.coverage.some((p) => isStaleAtOffsets(p.state));
      const violated = r.violations.some((v) => v.kind === "stale-marker" && v.partition === "__consumer_offsets-0");
      expect(reached, `seed ${seed}`).toBe(violated);
      if (reached) both++;
    }
    expect(both).toBeGreaterThanOrEqual(3); // seeds 1, 4, 6, 7 and 9 at the time of writing
  });

  it("kip-447-zombie reaches the KIP-447 fence (TxnOffsetCommit refused for its generation) and UNSTABLE_OFFSET_COMMIT", () => {
    const config = runConfigFor(resolveScenario("kip-447-zombie"));
    const events = new Set<string>();
    for (let seed = 0; seed < 5; seed++) for (const p of runSeed(config, { seed }).coverage) events.add(p.key);
    expect(events).toContain("event offset-fetch-unstable");
    expect(
      events.has("event txn-offset-commit-illegal-generation") || events.has("event txn-offset-commit-unknown-member"),
    ).toBe(true);
  });

  it("eosfuzz run --strategy coverage on eos-processor-gap reaches the new states, and the summary and run.json name them", () => {
    const out = mkdtempSync(join(tmpdir(), "eosfuzz-offsets-cov-"));
    const r = eosfuzz([
      "run",
      "--scenario",
      "eos-processor-gap",
      "--strategy",
      "coverage",
      "--seeds",
      "8",
      "--no-shrink",
      "--workers",
      "0",
      "--out",
      out,
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/at __consumer_offsets: \d+ marker arrival states of the group coordinator/);
    expect(r.stdout).toContain(
      "late copy applied over a newer transaction's pending offsets: offsets-marker@4.1 wire=v1 arrival=repeat pending=other producer=moved-on rule=legacy marker=COMMIT result=applied",
    );
    expect(r.stdout).toMatch(/group events: .*offset-fetch-unstable/);
    const report = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunReport;
    const reached = report.coverage.reached.map((p) => p.point);
    expect(reached.filter((k) => k.startsWith("offsets-marker@4.1 ")).length).toBeGreaterThan(5);
    expect(reached.some((k) => isStaleAtOffsets(parseStateKey(k)))).toBe(true);
    expect(report.coverage.neverReached.some((k) => k.startsWith("offsets-marker@4.2.1 "))).toBe(true);
  }, 120_000);

  it("a scenario can require an offsets-partition state as a coverage goal: on eos-processor (4.2.1) the KIP-1228 check rejects late copies over newer pending offsets", () => {
    const dir = mkdtempSync(join(tmpdir(), "eosfuzz-offsets-goal-"));
    const base = readFileSync(join(ROOT, "scenarios/eos-processor.yaml"), "utf8");
    const goal = (pattern: string) =>
      `${base}\ncoverage:\n  goals:\n    - name: KIP-1228 held at __consumer_offsets\n      ${pattern}\n`;
    const file = join(dir, "goal.yaml");
    writeFileSync(
      file,
      goal('offsetsMarker: { release: "4.2.1", arrival: repeat, pending: other, rule: strict-tv2, result: rejected }'),
    );
    const args = ["run", "--scenario", file, "--seeds", "20", "--no-shrink", "--workers", "0", "--json"];
    const r = eosfuzz(args);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as RunReport;
    const verdict = report.coverage.goals[0];
    expect(verdict?.pattern).toBe(
      "offsets-marker release=4.2.1 arrival=repeat pending=other rule=strict-tv2 result=rejected",
    );
    expect(verdict?.possible).toBe(true);
    expect(verdict?.reached).toBe(true);
    // None was applied: the stale state at an offsets partition is not reached on 4.2.1.
    expect(report.coverage.reached.some((p) => isStaleAtOffsets(parseStateKey(p.point)))).toBe(false);
    // A goal names exactly one kind of state.
    writeFileSync(file, goal('marker: { release: "4.2.1" }\n      offsetsMarker: { release: "4.2.1" }'));
    const both = eosfuzz(args);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain("expected exactly one of marker, offsetsMarker or event");
  }, 120_000);
});
