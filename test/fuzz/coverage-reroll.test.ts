import { describe, expect, it } from "vitest";
import { runConfigFor } from "../../src/fuzz/campaign/campaign.js";
import type { JobOutcome } from "../../src/fuzz/executor/run-job.js";
import { decodeSwarm, encodeSwarm, SWARM_STREAM } from "../../src/fuzz/run-shaping/swarm.js";
import { CoverageCorpus, rerollTape } from "../../src/fuzz/search/coverage-corpus.js";
import { generationSize } from "../../src/fuzz/search/coverage-search.js";
import { parseStateKey } from "../../src/oracle/protocol-coverage.js";
import { resolveScenario } from "../../src/scenario/loader.js";

const tape = {
  "workload:p0": [1, 2, 3, 4],
  "workload:start": [5, 6],
  "net:tc-0>broker-2": [0, 1, 0, 7, 0, 9],
  "net:broker-2>tc-0": [0, 3, 0],
  txnlog: [2, 2, 2],
};
const point = {
  from: { "workload:p0": 2, "workload:start": 2, "net:tc-0>broker-2": 3, "net:broker-2>tc-0": 1, txnlog: 1 },
  link: { from: "tc-0", to: "broker-2" },
};

describe("coverage re-roll scopes", () => {
  it("all: every stream is cut where it stood when the state began", () => {
    expect(rerollTape(tape, point, "all")).toEqual({
      "workload:p0": [1, 2],
      "workload:start": [5, 6],
      "net:tc-0>broker-2": [0, 1, 0],
      "net:broker-2>tc-0": [0],
      txnlog: [2],
    });
  });

  it("clients: only the workload streams are cut; the network and the brokers replay in full", () => {
    expect(rerollTape(tape, point, "clients")).toEqual({ ...tape, "workload:p0": [1, 2], "workload:start": [5, 6] });
  });

  it("link: only the marker copy's own link is cut (not its responses, not the workload)", () => {
    expect(rerollTape(tape, point, "link")).toEqual({ ...tape, "net:tc-0>broker-2": [0, 1, 0] });
  });

  it("a stream the state's positions do not name was not used yet: cut to nothing", () => {
    expect(rerollTape({ ...tape, "consumer:c0": [4, 4] }, point, "all")["consumer:c0"]).toEqual([]);
  });

  it("the kept tape is not changed", () => {
    const before = JSON.stringify(tape);
    rerollTape(tape, point, "all");
    rerollTape(tape, point, "link");
    expect(JSON.stringify(tape)).toBe(before);
  });
});

describe("coverage generations", () => {
  it("grow 1, 1, 2, 2, 4, 4, then stay at 8: learning after each early run, full batches later", () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 50].map(generationSize)).toEqual([1, 1, 2, 2, 4, 4, 8, 8, 8]);
  });
});

describe("coverage corpus carried between campaigns", () => {
  const spec = runConfigFor(resolveScenario("kip-1228-gap")).spec;
  const newCorpus = () =>
    new CoverageCorpus({ decode: (tape) => decodeSwarm(spec, tape), encode: encodeSwarm, lateFirstCopy: null });
  const point = (key: string) => ({ state: parseStateKey(key), key, count: 1, from: {}, link: null });
  const outcome = (index: number, keys: string[]) =>
    ({
      index,
      coverage: keys.map(point),
      tape: { [SWARM_STREAM]: [], "workload:p0": [index] },
    }) as unknown as JobOutcome;
  const near =
    "marker@4.1 wire=v1 arrival=repeat leaderTxn=none producer=moved-on rule=legacy result=applied role=leader leader=same";

  it("exports the kept tapes most novel first, and a later campaign keeps every one it imports", () => {
    const first = newCorpus();
    first.learn({ job: {} as never, mix: null }, outcome(0, ["event producer-outcome-unknown"]));
    first.learn({ job: {} as never, mix: null }, outcome(1, [near]));
    first.learn({ job: {} as never, mix: null }, outcome(2, ["event producer-outcome-unknown"])); // nothing new: not kept
    expect(first.size).toBe(2);
    const saved = first.exportEntries(10);
    expect(saved.map((e) => e.tape["workload:p0"])).toEqual([[1], [0]]); // the near miss is worth more
    expect(first.exportEntries(1)).toHaveLength(1);

    const next = newCorpus();
    next.importEntries([...saved, ...saved]); // repeats too: they were kept for what they reached
    expect(next.size).toBe(4);
    expect(next.imported).toBe(4);
    expect(next.exportEntries(10).map((e) => e.tape["workload:p0"])).toEqual([[1], [1], [0], [0]]);
  });
});
