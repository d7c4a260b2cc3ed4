import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import { decodeSwarm, encodeSwarm, lateFirstCopyMix, SWARM_STREAM } from "../../src/fuzz/run-shaping/swarm.js";
import { CoverageCorpus } from "../../src/fuzz/search/coverage-corpus.js";
import type { ClusterSpec } from "../../src/kafka/cluster-spec.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { Rng } from "../../src/sim/rng.js";
import { adversarialGap } from "./adversarial-gap.js";

// Where a cold coverage search under TCP starts (issue 31): the marker requests' slow rate at the
// swarm scale that makes "first copy past the request timeout, re-send not" likeliest.
const gap = runConfigFor(resolveScenario("kip-1228-gap")).spec;

/** kip-1228-gap with its marker link's slow rate and range, and the coordinators' request timeout, changed. */
function withMarkerSlow(ppm: number, range: [number, number] = [250, 1500], requestTimeoutMs = 200): ClusterSpec {
  const spec = structuredClone(gap);
  const link = spec.faults.markerRequests;
  if (!link) throw new Error("kip-1228-gap has a marker link");
  link.delay.slowPpm = ppm;
  [link.delay.slowMinMs, link.delay.slowMaxMs] = range;
  spec.broker.requestTimeoutMs = requestTimeoutMs;
  return spec;
}

const markerSlow = (spec: ClusterSpec) => lateFirstCopyMix(spec)?.summary ?? null;

describe("lateFirstCopyMix", () => {
  it("kip-1228-gap (15% slow, every slow copy past the 200 ms timeout): x4, 60%, nearest a half", () => {
    expect(markerSlow(gap)).toBe("marker slow x4");
    // Every other kind the scenario has stays on at its own rate (scale 0).
    const settings = lateFirstCopyMix(gap)?.settings ?? [];
    expect(settings.filter((s) => s.on && s.scale !== 0)).toEqual([{ on: true, scale: 2 }]);
    expect(settings.length).toBe(decodeSwarm(gap, []).length);
  });

  it("the scale follows the rate and the share of slow copies that outlast the timeout", () => {
    expect(markerSlow(withMarkerSlow(10_000))).toBe("marker slow x16");
    // 50% already: the scenario's own mix is where the search starts.
    expect(markerSlow(withMarkerSlow(500_000))).toBeNull();
    // 15%, but only a fifth of slow delays outlast the timeout: q = 0.6 x 0.2 at x4, 1 x 0.2 at x16.
    expect(markerSlow(withMarkerSlow(150_000, [100, 349], 300))).toBe("marker slow x16");
    // No slow copy outlasts the timeout: no late first copy to aim at.
    expect(markerSlow(withMarkerSlow(150_000, [250, 1500], 2_000))).toBeNull();
    expect(markerSlow(withMarkerSlow(0))).toBeNull();
  });

  it("null under the adversarial network, where a late copy is a duplicate", () => {
    expect(markerSlow(runConfigFor(adversarialGap()).spec)).toBeNull();
  });
});

describe("coverage's fresh runs", () => {
  const plans = (lateFirstCopy: boolean) => {
    const corpus = new CoverageCorpus({
      decode: (tape) => decodeSwarm(gap, tape),
      encode: encodeSwarm,
      lateFirstCopy: lateFirstCopy ? (lateFirstCopyMix(gap)?.settings ?? null) : null,
    });
    // No run learned yet: every plan is fresh.
    const rng = Rng.fromSeed("0", "coverage-strategy");
    return [0, 1, 2, 3].map(
      (i) => corpus.plan(rng, i).job.input as { tape: Record<string, number[]>; continueSeed: number },
    );
  };

  it("alternate, first, between the late-first-copy mix and the random strategy's run of the seed", () => {
    const scenarioMix = encodeSwarm(decodeSwarm(gap, []).map(() => ({ on: true, scale: 0 })));
    const aimedMix = encodeSwarm(lateFirstCopyMix(gap)?.settings ?? []);
    expect(plans(true).map((input) => [input.tape?.[SWARM_STREAM], input.continueSeed])).toEqual([
      [aimedMix, 0],
      [scenarioMix, 1],
      [aimedMix, 2],
      [scenarioMix, 3],
    ]);
    expect(plans(false).map((input) => input.tape?.[SWARM_STREAM])).toEqual([
      scenarioMix,
      scenarioMix,
      scenarioMix,
      scenarioMix,
    ]);
  });
});
