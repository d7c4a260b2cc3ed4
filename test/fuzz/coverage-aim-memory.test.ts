import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import type { JobOutcome } from "../../src/fuzz/executor/run-job.js";
import type { LateCopyTarget } from "../../src/fuzz/run/late-copy-finder.js";
import { decodeSwarm, encodeSwarm, SWARM_STREAM } from "../../src/fuzz/run-shaping/swarm.js";
import { CoverageCorpus, type Plan } from "../../src/fuzz/search/coverage-corpus.js";
import { parseStateKey } from "../../src/oracle/protocol-coverage.js";
import { resolveScenario } from "../../src/scenario/loader.js";
import { Rng } from "../../src/sim/rng.js";

// What the coverage strategy remembers about its aims at late marker copies (issue 31): which
// targets it has not aimed at yet and what aiming at each group paid, carried to the next campaign
// by a corpus file, and a missed aim's copy aimed at again first.
const spec = runConfigFor(resolveScenario("kip-1228-gap")).spec;
const newCorpus = () =>
  new CoverageCorpus({ decode: (tape) => decodeSwarm(spec, tape), encode: encodeSwarm, lateFirstCopy: null });
const LINK = "net:tc-1>broker-2";
const tcp = {
  delay: { minMs: 1, maxMs: 5, slowPpm: 150_000, slowMinMs: 250, slowMaxMs: 1500 },
  dropPpm: 0,
  duplicatePpm: 0,
  reorderPpm: 0,
  model: "tcp" as const,
};
const target = (release: string, wire: string, at: number, delayMs = 300): LateCopyTarget => ({
  stream: LINK,
  at,
  faults: tcp,
  delayMs,
  release,
  wire,
  how: "first-copy",
});
const point = (key: string) => ({ state: parseStateKey(key), key, count: 1, from: {}, link: null });
const outcome = (index: number, keys: string[], lateCopies: LateCopyTarget[]) =>
  ({
    index,
    coverage: keys.map(point),
    tape: { [SWARM_STREAM]: [], "workload:p0": [index], [LINK]: new Array(40).fill(0) },
    lateCopies,
  }) as unknown as JobOutcome;
const plain: Plan = { job: {} as never, mix: null };
/** The stale marker itself at the 4.1 leader: a late copy applied while the next transaction was open. */
const stale =
  "marker@4.1 wire=v1 arrival=repeat leaderTxn=other producer=moved-on rule=legacy result=applied role=leader leader=same";

describe("coverage aims remembered across runs and campaigns", () => {
  it("a missed aim's copy, offered again by the aimed run, is aimed at next", () => {
    const corpus = newCorpus();
    corpus.learn(
      plain,
      outcome(0, ["event producer-outcome-unknown"], [target("4.1", "v1", 0), target("4.1", "v1", 8)]),
    );
    const missed: Plan = { ...plain, aimedAt: { release: "4.1", wire: "v1", stream: LINK, at: 8 } };
    corpus.learn(
      missed,
      outcome(1, ["event producer-outcome-unknown"], [target("4.1", "v1", 16), target("4.1", "v1", 8, 700)]),
    );
    // In line: the follow-up (at 8, timed on the aimed run), then the older targets, then the new
    // one; saved, the targets of one run share its tape.
    expect(corpus.exportAims(32).map((a) => a.targets.map((t) => `${t.at}/${t.delayMs}`))).toEqual([
      ["8/700", "16/300"],
      ["0/300", "8/300"],
    ]);
    expect(corpus.exportGroups()).toEqual([{ release: "4.1", wire: "v1", aimed: 1, paid: 0 }]);
    // The next aimed run is the follow-up: the aimed run's tape (its workload drew [1]), copy at 8.
    for (let i = 0; ; i++) {
      const plan = corpus.plan(Rng.fromSeed(i, "coverage-strategy"), 2);
      if (!plan.aimedAt) continue;
      expect([plan.aimedAt.at, plan.job.input.tape?.["workload:p0"]]).toEqual([8, [1]]);
      break;
    }
  });

  it("an aim that paid is counted, and its copy is not followed up", () => {
    const corpus = newCorpus();
    const hit: Plan = { ...plain, aimedAt: { release: "4.1", wire: "v1", stream: LINK, at: 8 } };
    corpus.learn(hit, outcome(0, [stale], [target("4.1", "v1", 0), target("4.1", "v1", 8, 700)]));
    expect(corpus.exportGroups()).toEqual([{ release: "4.1", wire: "v1", aimed: 1, paid: 1 }]);
    for (let i = 0; ; i++) {
      const plan = corpus.plan(Rng.fromSeed(i, "coverage-strategy"), 1);
      if (!plan.aimedAt) continue;
      expect(plan.aimedAt.at).toBe(0); // in the order found
      break;
    }
    // Targets of a run that reached the stale marker are not carried to a later campaign: an aim at
    // a copy sent after it would replay it.
    expect(corpus.exportAims(32)).toEqual([]);
  });

  it("a warm campaign aims from its first run where aims paid before, though the corpus holds the stale marker", () => {
    // A former campaign: its kept tape reached the stale marker; aims at the 4.1 leader paid, at a
    // KIP-1228 leader over v2 they never did.
    const former = newCorpus();
    former.learn(plain, outcome(0, [stale], []));
    former.learn(
      plain,
      outcome(
        1,
        ["event producer-outcome-unknown"],
        [target("4.2.1", "v2-tv2", 0), target("4.1", "v1", 8), target("4.2.1", "v2-tv2", 16), target("4.1", "v1", 24)],
      ),
    );
    const entries = former.exportEntries(10);
    const aims = former.exportAims(32);
    const groups = [
      { release: "4.1", wire: "v1", aimed: 10, paid: 7 },
      { release: "4.2.1", wire: "v2-tv2", aimed: 20, paid: 0 },
    ];
    const firstPlans = { aimed: 0, atLegacy: 0 };
    for (let campaign = 0; campaign < 100; campaign++) {
      const warm = newCorpus();
      warm.importEntries(entries);
      warm.importAims(aims, groups);
      const plan = warm.plan(Rng.fromSeed(campaign, "coverage-strategy"), 0);
      if (!plan.aimedAt) continue;
      firstPlans.aimed++;
      if (plan.aimedAt.wire === "v1") firstPlans.atLegacy++;
      // The aim rewrote its copy on the kept run's tape and kept everything else.
      expect(plan.job.input.tape?.[LINK]).not.toEqual(new Array(40).fill(0));
      expect(plan.job.input.tape?.["workload:p0"]).toEqual([1]);
    }
    // Aimed with probability 80% x (7 + 1) / (10 + 1), at the 4.1 leader about 12 times in 13.
    expect(firstPlans.aimed).toBeGreaterThan(45);
    expect(firstPlans.atLegacy).toBeGreaterThan(firstPlans.aimed * 0.85);

    // Cold, with nothing kept, the first run is the random strategy's.
    expect(newCorpus().plan(Rng.fromSeed(0, "coverage-strategy"), 0).aimedAt).toBeUndefined();
  });
});
