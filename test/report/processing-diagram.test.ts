import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { type SeedTrace, traceSeed } from "../../src/fuzz/seeds/failure-traces.js";
import { runSeed } from "../../src/fuzz/run/run-seed.js";
import type { ReleaseFlags } from "../../src/kafka/release.js";
import { renderStory } from "../../src/oracle/story.js";
import { renderSpaceTimeSvg } from "../../src/report/html/svg-diagram.js";
import { buildSpaceTime } from "../../src/report/space-time.js";
import { resolveScenario } from "../../src/scenario/loader.js";

/**
 * The group side in the space-time diagram and the story (issue 17): processors' lanes, the group
 * APIs as arrows, the group coordinator's events (TxnOffsetCommit's pending offsets with member and
 * generation, a marker completing or discarding them at __consumer_offsets), all from the typed
 * trace events.
 */
interface FirstTraceOptions {
  overrides?: Partial<ReleaseFlags>;
  partition?: string;
  /** Which of the kind's violations qualify, judged on the run's story (e.g. a zombie fenced by a stall). */
  storyMatches?: RegExp;
}

/** The first of seeds 0..39 with a violation of `kind` (that qualifies), traced. */
function firstTrace(scenario: string, kind: string, options: FirstTraceOptions = {}) {
  const { overrides = {}, partition, storyMatches } = options;
  const config = runConfigFor(resolveScenario(scenario), overrides);
  for (let seed = 0; seed < 40; seed++) {
    const r = runSeed(config, { seed });
    const v = r.violations.find((x) => x.kind === kind && (partition === undefined || x.partition === partition));
    if (!v) continue;
    const trace: SeedTrace = traceSeed(config, seed, r.traceHash);
    const violation = trace.violations.find((x) => x.kind === kind && x.summary === v.summary) ?? v;
    if (storyMatches && !storyMatches.test(renderStory(trace.events, violation).join("\n"))) continue;
    return { trace, violation };
  }
  throw new Error(`no ${kind} in 40 seeds of ${scenario}`);
}

describe("the group side of a processing run in the diagram and the story", () => {
  const gap = firstTrace("eos-processor-gap", "stale-marker", { partition: "__consumer_offsets-0" });

  it("draws each processor's producer and consumer as lanes, and the group APIs as arrows between them and the group coordinator", () => {
    const st = buildSpaceTime(gap.trace, gap.violation);
    const processors = st.lanes.filter((l) => l.role === "processor").map((l) => l.id);
    expect(processors).toEqual(expect.arrayContaining(["q0", "q0-consumer", "q1", "q1-consumer"]));
    const apis = new Set(st.arrows.map((a) => a.api));
    for (const api of ["JoinGroup", "SyncGroup", "Heartbeat", "OffsetFetch", "TxnOffsetCommit", "FindCoordinator"])
      expect(apis, api).toContain(api);
    // Lanes keep their order: coordinators and brokers, upstream producers, processors, consumers.
    const roles = st.lanes.map((l) => l.role);
    expect(roles.indexOf("processor")).toBeGreaterThan(roles.lastIndexOf("producer"));
    expect(roles.lastIndexOf("processor")).toBeLessThan(roles.indexOf("consumer"));
  });

  it("labels the group coordinator's events from their typed fields, and marks the stale marker's decision of another transaction's pending offsets", () => {
    const st = buildSpaceTime(gap.trace, gap.violation);
    const group = st.events.filter((e) => e.category === "group");
    const offsets = group.find((e) => e.kind === "group.txn-offsets" && e.emphasis === "victim");
    expect(offsets?.label).toMatch(
      new RegExp(`^TxnOffsetCommit ${gap.violation.transaction} eos-app-m\\d+ gen \\d+: pending input-\\d@\\d+`),
    );
    const decided = group.find((e) => e.kind === "group.complete-txn" && e.emphasis === "stale");
    expect(decided?.label).toMatch(
      new RegExp(`^(COMMIT|ABORT) ${gap.violation.markerIssuedFor} __consumer_offsets-0: .*pending offsets`),
    );
    expect(group.some((e) => /^JoinGroup eos-app-m\d+ gen \d+: NONE$/.test(e.label))).toBe(true);
    // The stale marker itself is the append at __consumer_offsets-0, at the moment of the decision.
    const stale = st.events.find((e) => e.kind === "marker.append" && e.emphasis === "stale");
    expect(stale?.timeMs).toBe(decided?.timeMs);
    // The page's explanation adds who wrote the offsets the stale marker decided.
    expect(st.violation?.steps.at(-1)).toMatch(
      new RegExp(
        `^group side: the pending offsets it decided were written by ${gap.violation.transaction}'s TxnOffsetCommit .*group eos-app, member eos-app-m\\d+, generation \\d+, .*input offsets input-\\d@\\d+`,
      ),
    );
    const svg = renderSpaceTimeSvg(st, "d0");
    expect(svg).toContain('class="lane lane-processor"');
    expect(svg).toContain("ev cat-group");
    expect(svg).toContain("TxnOffsetCommit");
  });

  it("a stale marker at __consumer_offsets-0: the story names the input offsets, member, generation and whose pending offsets the marker decided", () => {
    const story = renderStory(gap.trace.events, gap.violation).join("\n");
    const txn = gap.violation.transaction as string;
    expect(story).toMatch(
      new RegExp(
        `group coordinator writes ${txn.replace(".", "\\.")}'s TxnOffsetCommit for group eos-app \\(member eos-app-m\\d+, generation \\d+, producerId \\d+ epoch \\d+\\): input offsets input-\\d@\\d+ pending`,
      ),
    );
    expect(story).toContain(`(written by ${txn}'s TxnOffsetCommit, another transaction)`);
    expect(story).toMatch(/answers JoinGroup of member eos-app-m\d+ of group eos-app: generation \d+/);
  });

  it("zombie-commit (no KIP-447 generation check): the diagram marks the commit the coordinator should have refused; the story shows the generations", () => {
    // A zombie whose member a processor stall fenced (a rebalance alone can fence it too, with no band to draw).
    const zombie = firstTrace("kip-447-zombie", "zombie-commit", {
      overrides: { txnOffsetCommitGenerationCheck: false },
      storyMatches: /fault: processor q\d stalls until/,
    });
    const st = buildSpaceTime(zombie.trace, zombie.violation);
    const commit = st.events.find((e) => e.kind === "group.txn-offsets" && e.emphasis === "stale");
    expect(commit?.label).toContain(`TxnOffsetCommit ${zombie.violation.transaction} `);
    expect(st.violation?.index).toBe(commit?.index);
    expect(st.bands.some((b) => b.kind === "pause" && /^q\d paused/.test(b.label))).toBe(true);
    const story = renderStory(zombie.trace.events, zombie.violation).join("\n");
    expect(story).toMatch(/fault: processor q\d stalls until/);
    expect(story).toMatch(/answers JoinGroup of member (eos-app-m\d+) of group eos-app: generation \d+/);
    expect(story).toContain(`writes ${zombie.violation.transaction}'s TxnOffsetCommit for group eos-app`);
  });

  it("lost-processing (processor-no-seek-after-abort): the story shows the committing transaction's offsets and the marker that committed them", () => {
    const lost = firstTrace("eos-processor", "lost-processing", {
      overrides: { processorSeeksToCommittedOnAbort: false },
    });
    const story = renderStory(lost.trace.events, lost.violation).join("\n");
    expect(story).toContain(`writes ${lost.violation.transaction}'s TxnOffsetCommit for group eos-app`);
    expect(story).toMatch(
      /group coordinator takes \S+'s COMMIT marker at __consumer_offsets-0: \d+ of the \d+ pending/,
    );
  });
});
